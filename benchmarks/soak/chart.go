package main

import (
	"fmt"
	"image/color"

	"github.com/e62cffed/ants/benchmarks/internal/chartio"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Chart geometry and colours.
const (
	panelWidth  = 11 * vg.Centimeter
	panelHeight = 6.5 * vg.Centimeter
)

var (
	colorA = chartio.Ours
	colorB = chartio.Blue
	colorC = chartio.Green
	colorD = chartio.Grey
)

// series is one line of a panel.
type series struct {
	name  string
	color color.Color
	dash  bool
	y     func(second) float64
	peak  bool // over a bucket of seconds, draw the largest value, not the mean
}

// maxPoints is the most points a line gets: a longer run is drawn in
// buckets of seconds, or the tuner's one-second cycle fills the panel solid.
const maxPoints = 120

// panelKind is one row of the chart: the same panel for every variant,
// on the same y range so that the columns compare.
type panelKind struct {
	title  string
	ylabel string
	lines  func(r *report) []series
}

var panelKinds = []panelKind{
	{"latency of accepted requests", "ms", func(r *report) []series {
		if len(r.Levels) > 0 {
			return levelSeries(len(r.Levels))
		}
		return []series{
			{"max", colorD, false, func(s second) float64 { return s.Maxms }, true},
			{"p99", colorA, false, func(s second) float64 { return s.P99ms }, false},
			{"p50", colorB, false, func(s second) float64 { return s.P50ms }, false},
		}
	}},
	{"requests per second", "per s", func(r *report) []series {
		c := r.Config
		ss := []series{
			{"accepted", colorB, false, func(s second) float64 { return float64(s.Accepted) }, false},
			{"shed (503)", colorA, false, func(s second) float64 { return float64(s.Shed) }, false},
		}
		if len(r.Seconds) > 0 && r.Seconds[0].Cap > 0 {
			// Sampled at the end of each second, so it can lag the tuner.
			ss = append(ss, series{"capacity (Cap / work)", colorD, true, func(s second) float64 { return c.capacity(max(s.Cap, 0)) }, false})
		}
		return ss
	}},
	{"memory", "MiB", func(*report) []series {
		return []series{
			{"RSS", colorA, false, func(s second) float64 { return s.RSSMiB }, false},
			{"heap objects", colorB, false, func(s second) float64 { return s.HeapMiB }, false},
		}
	}},
	{"goroutines", "", func(r *report) []series {
		if len(r.Levels) > 0 {
			return []series{
				{"goroutines", colorC, false, func(s second) float64 { return float64(s.Goroutines) }, false},
				{"pool workers", colorD, false, func(s second) float64 { return float64(s.Running) }, false},
				{"paused (as 100)", colorA, true, func(s second) float64 { return 100 * float64(boolInt(s.Paused)) }, true},
			}
		}
		return []series{
			{"goroutines", colorC, false, func(s second) float64 { return float64(s.Goroutines) }, false},
			{"pool workers", colorD, false, func(s second) float64 { return float64(s.Running) }, false},
		}
	}},
}

// writeChart draws a row per panel kind and a column per report, and
// writes it to path: PNG if path ends in .png, SVG otherwise.
func writeChart(path string, reports []*report) error {
	chartio.UseFont()
	rows, cols := len(panelKinds), len(reports)
	grid := make([][]*plot.Plot, rows)
	for i, k := range panelKinds {
		grid[i] = make([]*plot.Plot, cols)
		ymax := 0.0
		for j, r := range reports {
			p, top, err := panel(k, r)
			if err != nil {
				return err
			}
			grid[i][j] = p
			ymax = max(ymax, top)
		}
		for _, p := range grid[i] {
			p.Y.Min, p.Y.Max = 0, ymax*1.05
		}
	}

	return chartio.Save(path, grid, chartio.Tiles(rows, cols), panelWidth*vg.Length(cols), panelHeight*vg.Length(rows))
}

// panel is one variant's plot of one kind, and the largest y it shows.
func panel(k panelKind, r *report) (*plot.Plot, float64, error) {
	p := plot.New()
	bucket := (len(r.Seconds) + maxPoints - 1) / maxPoints
	if cycle := int(r.Config.TuneEvery.Seconds()) * len(r.Config.tuneSizes()); bucket > 1 && cycle > 1 {
		// Whole tuner cycles, or the buckets beat against it.
		bucket = (bucket + cycle - 1) / cycle * cycle
	}
	p.Title.Text = fmt.Sprintf("%s: %s", r.Config.Variant, k.title)
	if bucket > 1 {
		p.Title.Text += fmt.Sprintf(", %d s buckets", bucket)
	}
	p.Title.TextStyle.Font.Size = vg.Points(10)
	p.X.Label.Text = "seconds"
	p.Y.Label.Text = k.ylabel
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	top := 0.0
	for _, s := range k.lines(r) {
		xys := points(r.Seconds, bucket, s)
		for _, xy := range xys {
			top = max(top, xy.Y)
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, 0, err
		}
		l.Color = s.color
		l.Width = vg.Points(1)
		if s.dash {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		}
		p.Add(l)
		p.Legend.Add(s.name, l)
	}
	return p, top, nil
}

// points is s over ss in buckets of bucket seconds: each point at the
// bucket's last second, with the mean (or, for a peak series, the largest)
// of its values.
func points(ss []second, bucket int, s series) plotter.XYs {
	bucket = max(bucket, 1)
	xys := make(plotter.XYs, 0, (len(ss)+bucket-1)/bucket)
	for i := 0; i < len(ss); i += bucket {
		b := ss[i:min(i+bucket, len(ss))]
		y := 0.0
		for _, sec := range b {
			if s.peak {
				y = max(y, s.y(sec))
			} else {
				y += s.y(sec) / float64(len(b))
			}
		}
		xys = append(xys, plotter.XY{X: float64(b[len(b)-1].T), Y: y})
	}
	return xys
}

// levelSeries is the latency panel of a run with priority levels: the
// p99 of each level, the highest level first, and the p50 of all.
func levelSeries(levels int) []series {
	colors := []color.Color{colorA, colorC, colorB, colorD}
	var ss []series
	for l := levels - 1; l >= 0; l-- {
		ss = append(ss, series{fmt.Sprintf("p99, priority %d", l), colors[(levels-1-l)%len(colors)], false,
			func(s second) float64 {
				if l < len(s.LevelP99ms) {
					return s.LevelP99ms[l]
				}
				return 0
			}, false})
	}
	return append(ss, series{"p50, all", colorD, true, func(s second) float64 { return s.P50ms }, false})
}
