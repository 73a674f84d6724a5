package main

import (
	"fmt"
	"image/color"
	"time"

	"github.com/e62cffed/ants/benchmarks/internal/chartio"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Chart geometry; the colours follow the other charts of this module: ours
// orange, the peers blue and green, references grey.
const (
	panelWidth  = 12 * vg.Centimeter
	panelHeight = 7.5 * vg.Centimeter
)

var (
	libColors = chartio.Palette[:3] // e62cffed/ants first
	refColor  = color.RGBA{R: 0x77, G: 0x77, B: 0x77, A: 0xff}
)

// writeChart draws four panels: tasks started per window in the steady
// overload and in the burst after idle, and, on the shared pool, the
// workers held waiting for a token and the plain tasks started a second.
// It writes PNG if path ends in .png, SVG otherwise.
func writeChart(path string, r *result) error {
	chartio.UseFont()
	panels := [][]func(*result) (*plot.Plot, error){
		{steadyPanel, burstPanel},
		{heldPanel, plainPanel},
	}
	grid := make([][]*plot.Plot, len(panels))
	for i, row := range panels {
		for _, f := range row {
			p, err := f(r)
			if err != nil {
				return err
			}
			grid[i] = append(grid[i], p)
		}
	}

	rows, cols := len(panels), len(panels[0])
	return chartio.Save(path, grid, chartio.Tiles(rows, cols), panelWidth*vg.Length(cols), panelHeight*vg.Length(rows))
}

// newPanel is a plot with the common axes and legend, its x axis from 0 to
// end.
func newPanel(title, ylabel string, end time.Duration) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(10)
	p.X.Label.Text = "seconds"
	p.Y.Label.Text = ylabel
	p.X.Min, p.X.Max = 0, end.Seconds()
	p.Y.Min = 0
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	return p
}

// steps is one value per window of width w as a step line, the i-th
// library's colour, dashed if dashed.
func steps(i int, vals []float64, w time.Duration, dashed bool) (*plotter.Line, error) {
	xys := make(plotter.XYs, 0, len(vals)+1)
	for k, v := range vals {
		xys = append(xys, plotter.XY{X: (time.Duration(k) * w).Seconds(), Y: v})
	}
	if len(vals) > 0 {
		xys = append(xys, plotter.XY{X: (time.Duration(len(vals)) * w).Seconds(), Y: vals[len(vals)-1]})
	}
	l, err := plotter.NewLine(xys)
	if err != nil {
		return nil, err
	}
	l.StepStyle = plotter.PostStep
	l.Color = libColors[i%len(libColors)]
	l.Width = vg.Points(1)
	if i == 0 {
		l.Width = vg.Points(1.5)
	}
	if dashed {
		l.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
	}
	return l, nil
}

// legendLines collects lines to add to a plot: the legend lists them in
// the order added, and the plot draws the first on top, so that ours is
// not hidden where the lines coincide.
type legendLines struct {
	names []string
	lines []*plotter.Line
}

func (ll *legendLines) add(name string, l *plotter.Line) {
	ll.names = append(ll.names, name)
	ll.lines = append(ll.lines, l)
}

func (ll *legendLines) addTo(p *plot.Plot) {
	for i := len(ll.lines) - 1; i >= 0; i-- {
		p.Add(ll.lines[i])
	}
	for i, l := range ll.lines {
		p.Legend.Add(ll.names[i], l)
	}
}

// addLevel adds a grey dashed horizontal line at y from 0 to end.
func addLevel(p *plot.Plot, name string, y float64, end time.Duration) error {
	l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: y}, {X: end.Seconds(), Y: y}})
	if err != nil {
		return err
	}
	l.Color = refColor
	l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(l)
	p.Legend.Add(name, l)
	return nil
}

// windowPanel draws the runs' starts per window against the limit.
func windowPanel(title string, runs []paceRun, rate float64, w, end time.Duration) (*plot.Plot, error) {
	p := newPanel(title, fmt.Sprintf("tasks started per %v", w), end)
	most := 0.0
	var ll legendLines
	for i, run := range runs {
		ws := windows(run.starts, w, end)
		vals := make([]float64, len(ws))
		for k, n := range ws {
			vals[k] = float64(n)
			most = max(most, vals[k])
		}
		l, err := steps(i, vals, w, false)
		if err != nil {
			return nil, err
		}
		ll.add(run.name, l)
	}
	ll.addTo(p)
	limit := rate * w.Seconds()
	if err := addLevel(p, fmt.Sprintf("the limit, %g per %v", limit, w), limit, end); err != nil {
		return nil, err
	}
	p.Y.Max = 1.45 * max(most, limit) // room for the legend
	return p, nil
}

func steadyPanel(r *result) (*plot.Plot, error) {
	s := r.cfg.steady
	return windowPanel(fmt.Sprintf("Steady overload: limit %g/s, burst %d", s.rate, s.burst),
		r.steady, s.rate, r.cfg.window, s.duration)
}

func burstPanel(r *result) (*plot.Plot, error) {
	b := r.cfg.burst
	return windowPanel(fmt.Sprintf("Burst after idle: %d tasks at 0 and %gs; %g/s, burst %d", b.tasks, b.second.Seconds(), b.rate, b.burst),
		r.burst, b.rate, r.cfg.window, b.duration)
}

// heldPanel draws, per window, the mean of the workers held waiting for a
// token on the shared pool.
func heldPanel(r *result) (*plot.Plot, error) {
	sh := r.cfg.shared
	w := r.cfg.window
	p := newPanel(fmt.Sprintf("Shared pool of %d workers: workers waiting for a token", sh.workers),
		fmt.Sprintf("workers (mean per %v)", w), sh.duration)
	n := int((sh.duration + w - 1) / w)
	var ll legendLines
	for i, run := range r.shared {
		sums, counts := make([]float64, n), make([]int, n)
		for _, s := range run.samples {
			if k := int(s.at / w); k < n {
				sums[k] += float64(s.held)
				counts[k]++
			}
		}
		for k := range sums {
			if counts[k] > 0 {
				sums[k] /= float64(counts[k])
			}
		}
		l, err := steps(i, sums, w, false)
		if err != nil {
			return nil, err
		}
		ll.add(run.name, l)
	}
	ll.addTo(p)
	if err := addLevel(p, "every worker", float64(sh.workers), sh.duration); err != nil {
		return nil, err
	}
	p.Y.Max = 1.4 * float64(sh.workers)
	return p, nil
}

// plainPanel draws the plain tasks started a second on the shared pool,
// and, dashed, the plain callers alone.
func plainPanel(r *result) (*plot.Plot, error) {
	sh := r.cfg.shared
	w := r.cfg.window
	p := newPanel(fmt.Sprintf("Shared pool: plain tasks beside %g/s throttled ones", sh.rate),
		"plain tasks started a second", sh.duration)
	most := 0.0
	var ll legendLines
	add := func(run sharedRun, i int, name string, dashed bool) error {
		ws := windows(run.plain, w, run.duration)
		vals := make([]float64, len(ws))
		for k, c := range ws {
			vals[k] = float64(c) / w.Seconds()
			most = max(most, vals[k])
		}
		l, err := steps(i, vals, w, dashed)
		if err != nil {
			return err
		}
		ll.add(name, l)
		return nil
	}
	for i, run := range r.shared {
		if err := add(run, i, run.name, false); err != nil {
			return nil, err
		}
	}
	for i, run := range r.alone {
		if err := add(run, i, run.name+", plain callers alone", true); err != nil {
			return nil, err
		}
	}
	ll.addTo(p)
	p.Y.Max = 1.6 * max(most, 1)
	return p, nil
}
