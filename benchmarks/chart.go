package main

import (
	"image/color"
	"os"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Chart geometry and colours.
const (
	chartColumns = 2
	panelWidth   = 12 * vg.Centimeter
	panelHeight  = 7 * vg.Centimeter
)

var (
	colorOurs     = color.RGBA{R: 0xd6, G: 0x4f, B: 0x1f, A: 0xff} // e62cffed/ants
	colorBaseline = color.RGBA{R: 0x99, G: 0x99, B: 0x99, A: 0xff} // both channel pools
	colorOther    = color.RGBA{R: 0x3b, G: 0x6e, B: 0xa8, A: 0xff}
)

// writeChart draws one horizontal bar chart per workload, tiled into a
// grid, and writes it as SVG to path: median ns/task, or for the latency
// workloads the median p99 start latency.
func writeChart(path string, rs *results, cases []workload, libs []library) error {
	// Liberation Sans has Arial's metrics, so the label widths plot
	// computes hold wherever the SVG is shown with Arial or Liberation.
	plot.DefaultFont = font.Font{Typeface: "Liberation", Variant: "Sans"}
	plotter.DefaultFont = plot.DefaultFont
	rows := (len(cases) + chartColumns - 1) / chartColumns
	grid := make([][]*plot.Plot, rows)
	for i := range grid {
		grid[i] = make([]*plot.Plot, chartColumns)
	}
	for i, w := range cases {
		p, err := panel(rs, w, libs)
		if err != nil {
			return err
		}
		grid[i/chartColumns][i%chartColumns] = p
	}

	c := vgsvg.New(panelWidth*chartColumns, panelHeight*vg.Length(rows))
	dc := draw.New(c)
	tiles := draw.Tiles{
		Rows: rows, Cols: chartColumns,
		PadX: vg.Centimeter, PadY: vg.Centimeter / 2,
		PadTop: vg.Centimeter / 4, PadBottom: vg.Centimeter / 4,
		PadLeft: vg.Centimeter / 2, PadRight: vg.Centimeter / 2,
	}
	canvases := plot.Align(grid, tiles, dc)
	for i, row := range grid {
		for j, p := range row {
			if p != nil {
				p.Draw(canvases[i][j])
			}
		}
	}

	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := c.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// panel is the plot of one workload: a bar per library, the first at the
// top, each labelled with its value.
func panel(rs *results, w workload, libs []library) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = w.name
	p.X.Label.Text = "ns/task (median, lower is better)"
	value := func(s summary) float64 { return s.nsPerTask }
	if w.kind == kindLatency {
		p.X.Label.Text = "p99 ns from Submit to start (median, lower is better)"
		value = func(s summary) float64 { return s.p99Ns }
	}
	p.X.Min = 0
	p.X.Tick.Marker = plainTicks{}

	names := make([]string, len(libs))
	var top float64
	var labels plotter.XYLabels
	for i, l := range libs {
		y := float64(len(libs) - 1 - i) // first library on top
		names[len(libs)-1-i] = l.name()
		s := rs.summarize(w.name, l.name())
		if s.runs == 0 {
			continue
		}
		v := value(s)
		bar, err := plotter.NewBarChart(plotter.Values{v}, panelHeight/vg.Length(2*len(libs)))
		if err != nil {
			return nil, err
		}
		bar.Horizontal = true
		bar.XMin = y
		bar.LineStyle.Width = 0
		bar.Color = colorOther
		switch {
		case strings.HasPrefix(l.name(), "e62cffed/ants"):
			bar.Color = colorOurs
		case isBaseline(l.name()):
			bar.Color = colorBaseline
		}
		p.Add(bar)
		top = max(top, v)
		labels.XYs = append(labels.XYs, plotter.XY{X: v, Y: y})
		labels.Labels = append(labels.Labels, " "+formatFloat(v))
	}
	if len(labels.Labels) > 0 {
		lb, err := plotter.NewLabels(labels)
		if err != nil {
			return nil, err
		}
		for i := range lb.TextStyle {
			lb.TextStyle[i].YAlign = draw.YCenter
		}
		p.Add(lb)
	}
	p.NominalY(names...)
	// Leave room right of the longest bar for its label.
	p.X.Max = top * 1.3
	if top == 0 {
		p.X.Max = 1
	}
	p.Y.Min, p.Y.Max = -0.6, float64(len(libs))-0.4
	return p, nil
}

// plainTicks are plot's default ticks labelled without trailing zeros
// ("2500", not "2500.00").
type plainTicks struct{}

func (plainTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i, t := range ticks {
		if !t.IsMinor() {
			ticks[i].Label = strconv.FormatFloat(t.Value, 'f', -1, 64)
		}
	}
	return ticks
}
