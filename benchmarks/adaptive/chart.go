package main

import (
	"math"
	"time"

	"github.com/e62cffed/ants/benchmarks/internal/chartio"
	"github.com/e62cffed/ants/internal/loadtest"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Chart geometry; the colours follow the other charts of this module: ours
// orange, the rest blue, green and grey.
const (
	chartWidth  = 18 * vg.Centimeter
	panelHeight = 7 * vg.Centimeter
)

var poolColors = chartio.Palette // the adaptive pool first

// writeChart draws three panels, one above the other, over the same time
// axis: capacity, throughput and p99 run time, one line per pool. It
// writes PNG if path ends in .png, SVG otherwise.
func writeChart(path string, r *result) error {
	chartio.UseFont()
	panels := []func(*result) (*plot.Plot, error){capacityPanel, throughputPanel, runPanel}
	grid := make([][]*plot.Plot, len(panels))
	for i, f := range panels {
		p, err := f(r)
		if err != nil {
			return err
		}
		grid[i] = []*plot.Plot{p}
	}

	// plot.Add widens the axes to the data; the run's length is the x axis.
	for _, row := range grid {
		row[0].X.Min, row[0].X.Max = 0, (r.cfg.phase1 + r.cfg.phase2).Seconds()
	}
	tiles := chartio.Tiles(len(panels), 1)
	tiles.PadX = 0
	return chartio.Save(path, grid, tiles, chartWidth, panelHeight*vg.Length(len(panels)))
}

// newPanel is a plot with the common axes and legend.
func newPanel(title, ylabel string, r *result) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(10)
	p.X.Label.Text = "seconds"
	p.Y.Label.Text = ylabel
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	return p
}

// addLine adds xys to p as the i-th pool's line.
func addLine(p *plot.Plot, name string, i int, xys plotter.XYs) error {
	l, err := plotter.NewLine(xys)
	if err != nil {
		return err
	}
	l.Color = poolColors[i%len(poolColors)]
	l.Width = vg.Points(1)
	if i == 0 {
		l.Width = vg.Points(1.5)
	}
	p.Add(l)
	p.Legend.Add(name, l)
	return nil
}

// capacityPanel draws Cap() of every pool on a log scale, with the
// downstream's slots dashed.
func capacityPanel(r *result) (*plot.Plot, error) {
	p := newPanel("Cap(): the adaptive pool finds the downstream's K; K=16, then 8", "workers (log scale)", r)
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	end := r.cfg.phase1 + r.cfg.phase2
	for i, pr := range r.pools {
		var xys plotter.XYs
		for _, pt := range pr.caps {
			if pt.At <= end { // the sampler runs on while the callers stop
				xys = append(xys, plotter.XY{X: pt.At.Seconds(), Y: float64(max(pt.Value, 1))})
			}
		}
		if err := addLine(p, pr.name, i, xys); err != nil {
			return nil, err
		}
	}
	k := plotter.XYs{
		{X: 0, Y: float64(r.cfg.k1)}, {X: r.cfg.phase1.Seconds(), Y: float64(r.cfg.k1)},
		{X: r.cfg.phase1.Seconds(), Y: float64(r.cfg.k2)}, {X: end.Seconds(), Y: float64(r.cfg.k2)},
	}
	l, err := plotter.NewLine(k)
	if err != nil {
		return nil, err
	}
	l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
	p.Add(l)
	p.Legend.Add("K, the downstream's slots", l)
	// Room above the largest pool (256) for the legend.
	p.Y.Min, p.Y.Max = 1, 1<<14
	return p, nil
}

// throughputPanel draws the tasks per second of every pool, per bucket.
func throughputPanel(r *result) (*plot.Plot, error) {
	p := newPanel("throughput: only K tasks run at once, whatever the capacity", "tasks per second", r)
	top := 0.0
	for i, pr := range r.pools {
		xys := buckets(r, pr.rec, pr.rec.Throughput)
		for _, xy := range xys {
			top = max(top, xy.Y)
		}
		if err := addLine(p, pr.name, i, xys); err != nil {
			return nil, err
		}
	}
	p.Y.Min, p.Y.Max = 0, max(top, 1)*1.6 // room above the lines for the legend
	return p, nil
}

// runPanel draws the p99 run time of every pool, per bucket, on a log scale.
func runPanel(r *result) (*plot.Plot, error) {
	p := newPanel("p99 run time: above K, tasks only queue in the downstream", "ms (log scale)", r)
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	lo, hi := math.Inf(1), 0.0
	for i, pr := range r.pools {
		xys := buckets(r, pr.rec, func(from, to time.Duration) float64 {
			return max(float64(pr.rec.Quantile(0.99, from, to))/float64(time.Millisecond), 1e-3)
		})
		for _, xy := range xys {
			lo, hi = min(lo, xy.Y), max(hi, xy.Y)
		}
		if err := addLine(p, pr.name, i, xys); err != nil {
			return nil, err
		}
	}
	// A log axis needs a positive range, also when no task finished.
	if hi == 0 {
		lo, hi = 1, 1000
	}
	p.Y.Min, p.Y.Max = lo/2, hi*30 // room above the lines for the legend
	return p, nil
}

// buckets is f over each bucket of the run in which some task finished, one
// point at the bucket's end.
func buckets(r *result, rec *loadtest.Recorder, f func(from, to time.Duration) float64) plotter.XYs {
	end := r.cfg.phase1 + r.cfg.phase2
	var xys plotter.XYs
	for from := time.Duration(0); from < end; from += r.cfg.bucket {
		to := min(from+r.cfg.bucket, end)
		if len(rec.Between(from, to)) > 0 {
			xys = append(xys, plotter.XY{X: to.Seconds(), Y: f(from, to)})
		}
	}
	return xys
}
