package main

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/e62cffed/ants/benchmarks/internal/chartio"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Chart geometry and colours.
const (
	chartColumns = 2
	panelWidth   = 12 * vg.Centimeter
	panelHeight  = 7 * vg.Centimeter
)

// chartSVG draws one horizontal bar chart per workload of f, tiled into a
// grid, and returns it as SVG: median ns/task, or for the latency workloads
// the median p99 start latency.
func chartSVG(f *resultsFile) ([]byte, error) {
	chartio.UseFont()
	rs := f.results()
	rows := (len(f.Workloads) + chartColumns - 1) / chartColumns
	grid := make([][]*plot.Plot, rows)
	for i := range grid {
		grid[i] = make([]*plot.Plot, chartColumns)
	}
	for i, w := range f.Workloads {
		p, err := panel(rs, w, f.Libraries)
		if err != nil {
			return nil, err
		}
		grid[i/chartColumns][i%chartColumns] = p
	}

	tiles := chartio.Tiles(rows, chartColumns)
	tiles.PadX, tiles.PadLeft = vg.Centimeter, vg.Centimeter/2
	var b bytes.Buffer
	err := chartio.Encode(&b, false, grid, tiles, panelWidth*chartColumns, panelHeight*vg.Length(rows))
	return b.Bytes(), err
}

// panel is the plot of one workload: a bar per library, the first at the
// top, each labelled with its value.
func panel(rs *results, w workloadInfo, libs []libInfo) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = w.Name
	p.X.Label.Text = "ns/task (median, lower is better)"
	value := func(s summary) float64 { return s.nsPerTask }
	if w.Kind == kindLatency {
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
		names[len(libs)-1-i] = l.Name
		s := rs.summarize(w.Name, l.Name)
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
		bar.Color = chartio.Blue
		switch {
		case strings.HasPrefix(l.Name, "e62cffed/ants"):
			bar.Color = chartio.Ours
		case l.Like == l.Name:
			bar.Color = chartio.Grey // the channel pools, their own like
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
