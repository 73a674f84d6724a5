// Package chartio is what the benchmarks module's charts share: their font
// and colours, and writing a grid of gonum plots to an SVG or PNG file.
package chartio

import (
	"image/color"
	"io"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// The colours of every chart: this library orange, the peers blue and
// green, baselines and references grey.
var (
	Ours  color.Color = color.RGBA{R: 0xd6, G: 0x4f, B: 0x1f, A: 0xff}
	Blue  color.Color = color.RGBA{R: 0x3b, G: 0x6e, B: 0xa8, A: 0xff}
	Green color.Color = color.RGBA{R: 0x55, G: 0x99, B: 0x44, A: 0xff}
	Grey  color.Color = color.RGBA{R: 0x99, G: 0x99, B: 0x99, A: 0xff}

	// Palette is the colours of a chart's series in order.
	Palette = []color.Color{Ours, Blue, Green, Grey}
)

// UseFont makes the plots created after it use Liberation Sans, which has
// Arial's metrics, so that the label widths plot computes hold wherever an
// SVG is shown with Arial or Liberation.
func UseFont() {
	plot.DefaultFont = font.Font{Typeface: "Liberation", Variant: "Sans"}
	plotter.DefaultFont = plot.DefaultFont
}

// Tiles returns the padding the charts use between and around their panels,
// for a grid of rows × cols.
func Tiles(rows, cols int) draw.Tiles {
	return draw.Tiles{
		Rows: rows, Cols: cols,
		PadX: vg.Centimeter / 2, PadY: vg.Centimeter / 2,
		PadTop: vg.Centimeter / 4, PadBottom: vg.Centimeter / 4,
		PadLeft: vg.Centimeter / 4, PadRight: vg.Centimeter / 2,
	}
}

// Save draws grid, rows of plots with their axes aligned and laid out by
// tiles, on a canvas of width × height, and writes it to path: PNG if path
// ends in .png, SVG otherwise. A nil plot leaves its tile blank.
func Save(path string, grid [][]*plot.Plot, tiles draw.Tiles, width, height vg.Length) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := Encode(f, filepath.Ext(path) == ".png", grid, tiles, width, height); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Encode is Save writing to w, as PNG if png is set and as SVG otherwise.
// The SVG of a grid is the same bytes on every run.
func Encode(w io.Writer, png bool, grid [][]*plot.Plot, tiles draw.Tiles, width, height vg.Length) error {
	var c interface {
		vg.CanvasSizer
		WriteTo(io.Writer) (int64, error)
	}
	if png {
		c = vgimg.PngCanvas{Canvas: vgimg.New(width, height)}
	} else {
		c = vgsvg.New(width, height)
	}
	canvases := plot.Align(grid, tiles, draw.New(c))
	for i, row := range grid {
		for j, p := range row {
			if p != nil {
				p.Draw(canvases[i][j])
			}
		}
	}
	_, err := c.WriteTo(w)
	return err
}
