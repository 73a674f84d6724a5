// Package flowsfile is the results file of the flows study (the benchmarks
// module's flows command) and the report section made from it: the command
// writes the file and prints the section; the report subcommand of the
// benchmarks command fills BENCHMARKS.md's "flows" section from the newest
// file, so that the section and a committed file always agree.
package flowsfile

import (
	"github.com/e62cffed/ants/benchmarks/internal/study"

	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/e62cffed/ants/benchmarks/internal/overloadfile"
)

// Dir is where the command writes its files by default, relative to the
// benchmarks module: results/flows/YYYY-MM-DD.json, beside the suite's
// results files.
const Dir = "results/flows"

// Machine describes the computer the study ran on.
type Machine = study.Machine

// File is what one run of the flows command measured, with where, when and
// how.
type File struct {
	Date     string    `json:"date"` // YYYY-MM-DD, UTC, the day the run started
	Started  time.Time `json:"started"`
	Duration string    `json:"duration"`
	Machine  Machine   `json:"machine"`
	Go       string    `json:"go"`
	Commit   string    `json:"commit"` // the repository's HEAD, or "unknown"
	Dirty    bool      `json:"dirty"`  // uncommitted changes outside benchmarks/results
	Load     string    `json:"load"`   // the 1-minute load average before the run, or "unknown"

	Config     Config      `json:"config"`
	Contenders []Contender `json:"contenders"` // in table order
	Rows       []Row       `json:"rows"`       // the mixed workload: one per contender that ran
	Scenarios  []Scenario  `json:"scenarios"`  // the backlogged scenarios, in table order
	Shares     []ShareRow  `json:"shares"`     // one per (scenario, contender) that ran
	Failures   []Failure   `json:"failures,omitempty"`
}

// Config is the study's sizes.
type Config struct {
	Workers  int           `json:"workers"`
	Task     time.Duration `json:"task_ns"`          // each task's time.Sleep
	Jitter   float64       `json:"jitter,omitempty"` // the mixed workload's sleeps: uniform within ±Jitter × Task
	Buffer   int           `json:"buffer"`           // WithQueueSize of every pool
	Lights   int           `json:"lights"`           // light flows
	Heavy    float64       `json:"heavy"`            // the heavy flow's rate, × capacity
	Light    float64       `json:"light"`            // the light flows' rate together, × capacity
	HeavyFor time.Duration `json:"heavy_for_ns"`
	Tail     time.Duration `json:"tail_ns"` // the light flows go on this long after the heavy flow stops
	Slot     time.Duration `json:"slot_ns"` // of the fairness index over backlogged flows
	Seed     int64         `json:"seed"`

	// The sub-pools of the partitioned contender in the mixed workload.
	HeavyShare int `json:"heavy_share"`
	LightShare int `json:"light_share"`

	// The backlogged scenarios: closed-loop clients for Window, the
	// service counted after Warmup.
	Window time.Duration `json:"window_ns"`
	Warmup time.Duration `json:"warmup_ns"`
}

// Capacity is the pool's nominal service rate, tasks a second: workers each
// finishing a task of Task at a time.
func (c Config) Capacity() float64 {
	if c.Task <= 0 {
		return 0
	}
	return float64(c.Workers) / c.Task.Seconds()
}

// WaitTarget is the bound the study sets on the light flows' p99 wait:
// two tasks' time.
func (c Config) WaitTarget() time.Duration { return 2 * c.Task }

// The study's targets for the flows contender.
const (
	JainTarget    = 0.95 // Jain's index over backlogged flows of weight 1, at least
	RatioSlack    = 0.05 // the weighted pair's service ratio within this of the weights'
	UtilOfFIFO    = 0.98 // utilisation at least this of the FIFO pool's
	RoleFlows     = "flows"
	RoleFIFO      = "fifo"
	RolePartition = "partition"
)

// Contender is one way to serve the flows.
type Contender struct {
	Name  string `json:"name"`
	Role  string `json:"role"`  // RoleFlows, RoleFIFO, RolePartition: what the report says of it
	Setup string `json:"setup"` // how it is built and called, for the report
}

// Row is what one contender did with the mixed workload: one heavy flow
// and many light ones.
type Row struct {
	Contender string `json:"contender"`
	Offered   int    `json:"offered"`   // requests that arrived
	Heavy     int    `json:"heavy"`     // of them, the heavy flow's
	Ran       int    `json:"ran"`       // requests whose task ran
	Refused   int    `json:"refused"`   // requests the pool did not take (an error from the submit)
	LightRuns int    `json:"light_ran"` // light requests whose task ran

	// The light flows' waits, from the submit call to the task's start.
	LightP99Max    time.Duration `json:"light_p99_max_ns"`    // the largest of the light flows' own p99s
	LightP99Worst  string        `json:"light_p99_worst"`     // the flow of that p99
	LightP99Median time.Duration `json:"light_p99_median_ns"` // the median of the light flows' p99s
	LightP99Heavy  time.Duration `json:"light_p99_heavy_ns"`  // p99 of every light request that arrived while the heavy flow ran
	LightP99Tail   time.Duration `json:"light_p99_tail_ns"`   // and after it stopped
	LightMax       time.Duration `json:"light_max_ns"`        // the longest light wait

	// The largest of the light flows' own p99s of the time from each
	// request's scheduled arrival to its task's start: the wait and the
	// generator's lateness in calling the submit.
	LightP99MaxFromArrival time.Duration `json:"light_p99_max_from_arrival_ns"`

	HeavyRate    float64       `json:"heavy_rate"`       // the heavy flow's tasks started a second while it ran
	HeavyP50     time.Duration `json:"heavy_p50_ns"`     // the heavy flow's median wait
	HeavyDrained time.Duration `json:"heavy_drained_ns"` // from the heavy flow's stop to its last task's start

	// Jain's index over the flows backlogged throughout a slot, of their
	// tasks started in it over their weight, averaged over the slots of
	// the heavy phase; the lowest slot's; and how many flows a slot had
	// backlogged, on average.
	Jain       float64 `json:"jain"`
	JainMin    float64 `json:"jain_min"`
	Backlogged float64 `json:"backlogged"`
	Slots      int     `json:"slots"`

	UtilHeavy float64 `json:"util_heavy"` // busy workers over workers, while the heavy flow ran
	UtilTail  float64 `json:"util_tail"`  // and in the tail

	RunMean time.Duration `json:"run_mean_ns"` // mean time a task took (its sleep, as the machine kept it)
	LagP99  time.Duration `json:"lag_p99_ns"`  // the generator's lateness behind the schedule
	LagMax  time.Duration `json:"lag_max_ns"`
}

// Accounted reports whether every request is counted exactly once.
func (r Row) Accounted() bool { return r.Ran+r.Refused == r.Offered }

// Scenario is one backlogged scenario: flows kept backlogged by closed-loop
// clients, each with its weight.
type Scenario struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	Flows       []Flow  `json:"flows"`
	Ratio       float64 `json:"ratio"` // the service ratio of the first two flows the weights ask for; 0: none asked
}

// Flow is one flow of a backlogged scenario.
type Flow struct {
	Name        string `json:"name"`
	Weight      int    `json:"weight"`
	Outstanding int    `json:"outstanding"` // closed-loop clients, each with one request at a time
	Share       int    `json:"share"`       // the partitioned contender's sub-pool
}

// ShareRow is what one contender did in one backlogged scenario.
type ShareRow struct {
	Scenario  string  `json:"scenario"`
	Contender string  `json:"contender"`
	Started   []int   `json:"started"` // tasks started in the window, per flow, in the scenario's order
	Seconds   float64 `json:"seconds"` // the window counted
	Jain      float64 `json:"jain"`    // over Started / weight
	Ratio     float64 `json:"ratio"`   // Started[0] / Started[1], if there are two flows
	Refused   int     `json:"refused"`
}

// Failure is a run that did not finish (a stall, a pool that would not
// start).
type Failure struct {
	Contender string `json:"contender"`
	Scenario  string `json:"scenario"`
	Error     string `json:"error"`
}

// Row returns the mixed workload's row of contender, if it ran.
func (f *File) Row(contender string) (Row, bool) {
	for _, r := range f.Rows {
		if r.Contender == contender {
			return r, true
		}
	}
	return Row{}, false
}

// Share returns the row of contender in scenario, if it ran.
func (f *File) Share(scenario, contender string) (ShareRow, bool) {
	for _, r := range f.Shares {
		if r.Scenario == scenario && r.Contender == contender {
			return r, true
		}
	}
	return ShareRow{}, false
}

// Describe fills in the machine, the toolchain and the checkout.
func (f *File) Describe(started time.Time) {
	var o overloadfile.File
	o.Describe(started)
	f.Date, f.Started, f.Machine, f.Go, f.Commit, f.Dirty, f.Load = o.Date, o.Started, o.Machine, o.Go, o.Commit, o.Dirty, o.Load
}

// Target is one bound the design aims at, and whether the run held it.
type Target = study.Target

// Write writes f as indented JSON to path, creating its directory.
func (f *File) Write(path string) error { return study.WriteJSON(path, f) }

// Read reads a file written by Write.
func Read(path string) (*File, error) {
	var f File
	if err := study.ReadJSON(path, &f); err != nil {
		return nil, err
	}
	if len(f.Contenders) == 0 || f.Config.Workers <= 0 || f.Config.Task <= 0 || f.Config.Lights <= 0 {
		return nil, fmt.Errorf("%s: not a flows results file (no contenders, workers, task or light flows)", path)
	}
	return &f, nil
}

// Newest returns the newest dir/*.json by name (names are dates), or "" if
// there is none or no such directory.
func Newest(dir string) (string, error) { return study.Newest(dir) }

// Jain is Jain's fairness index of xs, (Σx)² / (n Σx²): 1 when all are
// equal, 1/n when one has everything; 1 for a single value, 0 for none or
// all zero.
func Jain(xs []float64) float64 {
	var sum, sq float64
	for _, x := range xs {
		sum += x
		sq += x * x
	}
	if len(xs) == 0 || sq == 0 {
		return 0
	}
	return sum * sum / (float64(len(xs)) * sq)
}

// WriteSection writes the report's section: when and where, the set-up,
// the mixed workload's table, the backlogged scenarios' tables, and the
// bounds the design aims at, each said to hold or not.
func WriteSection(out io.Writer, f *File) {
	c := f.Config
	capacity := c.Capacity()
	fmt.Fprintf(out, "%s\n\n", study.Stamp(f.Date, f.Started, f.Duration, f.Machine, f.Go, f.Commit, f.Dirty, f.Load))
	fmt.Fprintf(out, "%d workers and a buffer of %d tasks, each task a `time.Sleep(%v)`: a capacity of %.0f tasks a second. "+
		"**Mixed workload**: one heavy flow offers %g× capacity (%.0f requests a second) for %v, and %d light flows %g× capacity together (%.1f requests a second each) for %v more; "+
		"arrivals are open-loop (Poisson, seed %d), each request on its own goroutine, which submits it and returns. "+
		"**Wait**: from the submit call to the task's start (the generator's lateness in making the call, below, is not in it). **Light p99**: each light flow's own p99 wait; the largest of them (and its median over the light flows), "+
		"then the p99 of every light request that arrived while the heavy flow ran, and after. **Heavy**: the heavy flow's tasks started a second while it ran, over capacity; its median wait; "+
		"and how long after its stop its last task started. **Jain**: Jain's index, over the flows backlogged (work waiting) throughout a slot of %v, of the tasks each started in the slot, "+
		"averaged over the heavy phase's slots (the lowest slot's, and the flows backlogged in a slot on average, in brackets). "+
		"**Utilisation**: the time workers spent in tasks over workers × time, while the heavy flow ran and in the %v after.\n\n",
		c.Workers, c.Buffer, c.Task, capacity, c.Heavy, c.Heavy*capacity, c.HeavyFor, c.Lights, c.Light, c.Light*capacity/float64(c.Lights), c.HeavyFor+c.Tail,
		c.Seed, c.Slot, c.Tail)
	if c.Jitter > 0 {
		fmt.Fprintf(out, "In the mixed workload each task sleeps a time drawn uniformly within ±%.0f%% of %v.\n\n", 100*c.Jitter, c.Task)
	} else {
		fmt.Fprintf(out, "Every task sleeps the same %v, so workers that start together finish together: the pool, saturated from the start, hands out its workers in bursts about a task's time apart, "+
			"and work that just misses a burst waits for the next (`-jitter` spreads the tasks' times).\n\n", c.Task)
	}
	fmt.Fprintln(out, "| contender | offered | light p99: worst flow (median flow) | light p99 while heavy / after | light max | heavy rate | heavy p50 | heavy drained | Jain (lowest; backlogged) | utilisation heavy / after | task ran |")
	fmt.Fprintln(out, "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
	for _, ct := range f.Contenders {
		r, ok := f.Row(ct.Name)
		if !ok {
			fmt.Fprintf(out, "| %s | failed | | | | | | | | | |\n", ct.Name)
			continue
		}
		fmt.Fprintf(out, "| %s | %d | %s (%s) | %s / %s | %s | %.2f | %s | %s | %.3f (%.3f; %.1f) | %.3f / %.3f | %s |\n",
			ct.Name, r.Offered, ms(r.LightP99Max), ms(r.LightP99Median), ms(r.LightP99Heavy), ms(r.LightP99Tail), ms(r.LightMax),
			r.HeavyRate/capacity, ms(r.HeavyP50), ms(r.HeavyDrained), r.Jain, r.JainMin, r.Backlogged, r.UtilHeavy, r.UtilTail, ms(r.RunMean))
	}
	fmt.Fprintln(out)
	for _, s := range f.Scenarios {
		fmt.Fprintf(out, "**%s**: %s\n\n", s.Name, s.Description)
		var head, rule strings.Builder
		for _, fl := range s.Flows {
			fmt.Fprintf(&head, " %s (weight %d, %d clients) |", fl.Name, fl.Weight, fl.Outstanding)
			rule.WriteString("--:|")
		}
		ratio := ""
		if len(s.Flows) == 2 {
			ratio = " ratio |"
			rule.WriteString("--:|")
		}
		fmt.Fprintf(out, "| contender |%s Jain (per weight) |%s tasks a second |\n", head.String(), ratio)
		fmt.Fprintf(out, "|---|%s--:|--:|\n", rule.String())
		for _, ct := range f.Contenders {
			r, ok := f.Share(s.Name, ct.Name)
			if !ok {
				fmt.Fprintf(out, "| %s | failed |%s\n", ct.Name, strings.Repeat(" |", strings.Count(rule.String(), "|")+1))
				continue
			}
			total := 0
			for _, n := range r.Started {
				total += n
			}
			var cells strings.Builder
			for _, n := range r.Started {
				fmt.Fprintf(&cells, " %d (%s) |", n, pct(n, total))
			}
			rc := ""
			if len(s.Flows) == 2 {
				rc = fmt.Sprintf(" %.3f |", r.Ratio)
			}
			fmt.Fprintf(out, "| %s |%s %.3f |%s %.0f (%.2f× capacity) |\n", ct.Name, cells.String(), r.Jain, rc,
				float64(total)/r.Seconds, float64(total)/r.Seconds/capacity)
		}
		fmt.Fprintln(out)
	}
	if len(f.Failures) > 0 {
		for _, x := range f.Failures {
			fmt.Fprintf(out, "- failed: %s in %s: %s\n", x.Contender, x.Scenario, x.Error)
		}
		fmt.Fprintln(out)
	}
	fmt.Fprintln(out, "Set-ups:")
	fmt.Fprintln(out)
	for _, ct := range f.Contenders {
		fmt.Fprintf(out, "- %s: %s\n", ct.Name, ct.Setup)
	}
	fmt.Fprintln(out)
	ours, ok := f.role(RoleFlows)
	study.WriteBounds(out, ours, ok, Evaluate(f))
	fmt.Fprintln(out)
	fmt.Fprintf(out, "The load generator's lateness behind its schedule, p99 / max over the mixed workload's runs: %s.\n", lagSpan(f))
}

// role returns the first contender of role.
func (f *File) role(role string) (string, bool) {
	for _, c := range f.Contenders {
		if c.Role == role {
			return c.Name, true
		}
	}
	return "", false
}

// Evaluate checks the targets for the first contender of RoleFlows (none if
// there is none): the light flows' p99 wait at most two tasks' time in the
// mixed workload; Jain's index at least JainTarget over backlogged flows of
// weight 1, in the mixed workload and in every backlogged scenario whose
// flows weigh 1; the service ratio of every scenario that asks one within
// RatioSlack of it; utilisation at least UtilOfFIFO of the first RoleFIFO
// contender's, while the heavy flow runs and after. A run that did not
// finish misses its targets.
func Evaluate(f *File) []Target {
	c := f.Config
	ours, ok := f.role(RoleFlows)
	if !ok {
		return nil
	}
	var out []Target
	r, ok := f.Row(ours)
	waitName := fmt.Sprintf("mixed workload: every light flow's p99 wait ≤ 2 × task = %v", c.WaitTarget())
	jainName := fmt.Sprintf("mixed workload: Jain's index over backlogged flows ≥ %.2f", JainTarget)
	if !ok {
		out = append(out, Target{Name: waitName, Measured: "the run did not finish"}, Target{Name: jainName, Measured: "the run did not finish"})
	} else {
		out = append(out,
			Target{Name: waitName, Met: r.LightRuns > 0 && r.LightP99Max <= c.WaitTarget(),
				Measured: fmt.Sprintf("worst flow %s (%s), median flow %s; from the scheduled arrival, worst flow %s; the FIFO pool's worst flow: %s",
					ms(r.LightP99Max), r.LightP99Worst, ms(r.LightP99Median), ms(r.LightP99MaxFromArrival), fifoWait(f))},
			Target{Name: jainName, Met: r.Slots > 0 && r.Jain >= JainTarget,
				Measured: fmt.Sprintf("%.3f over %d slots of %v, lowest %.3f, %.1f flows backlogged in a slot on average", r.Jain, r.Slots, c.Slot, r.JainMin, r.Backlogged)})
	}
	for _, s := range f.Scenarios {
		sr, ok := f.Share(s.Name, ours)
		equal := !slices.ContainsFunc(s.Flows, func(fl Flow) bool { return fl.Weight != 1 })
		if equal {
			name := fmt.Sprintf("%s: Jain's index ≥ %.2f", s.Name, JainTarget)
			if !ok {
				out = append(out, Target{Name: name, Measured: "the run did not finish"})
			} else {
				out = append(out, Target{Name: name, Met: sr.Jain >= JainTarget, Measured: fmt.Sprintf("%.3f", sr.Jain)})
			}
		}
		if s.Ratio > 0 {
			name := fmt.Sprintf("%s: service ratio within ±%.0f%% of %g:1", s.Name, 100*RatioSlack, s.Ratio)
			if !ok {
				out = append(out, Target{Name: name, Measured: "the run did not finish"})
			} else {
				dev := sr.Ratio/s.Ratio - 1
				out = append(out, Target{Name: name, Met: dev >= -RatioSlack && dev <= RatioSlack,
					Measured: fmt.Sprintf("%.3f:1, %+.1f%%", sr.Ratio, 100*dev)})
			}
		}
	}
	fifo, fok := f.role(RoleFIFO)
	fr, frok := f.Row(fifo)
	for _, ph := range []struct {
		name      string
		ours, fif func(Row) float64
	}{
		{"while the heavy flow runs", func(r Row) float64 { return r.UtilHeavy }, func(r Row) float64 { return r.UtilHeavy }},
		{"after it stops", func(r Row) float64 { return r.UtilTail }, func(r Row) float64 { return r.UtilTail }},
	} {
		name := fmt.Sprintf("mixed workload: utilisation %s ≥ %.2f × the FIFO pool's", ph.name, UtilOfFIFO)
		switch {
		case !fok:
			continue
		case !ok || !frok:
			out = append(out, Target{Name: name, Measured: "a run did not finish"})
		default:
			u, v := ph.ours(r), ph.fif(fr)
			out = append(out, Target{Name: name, Met: v > 0 && u >= UtilOfFIFO*v, Measured: fmt.Sprintf("%.3f against %.3f: %.3f×", u, v, u/max(v, 1e-9))})
		}
	}
	return out
}

// fifoWait is the FIFO contender's worst light p99, for comparison.
func fifoWait(f *File) string {
	name, ok := f.role(RoleFIFO)
	if !ok {
		return "–"
	}
	r, ok := f.Row(name)
	if !ok {
		return "did not finish"
	}
	return ms(r.LightP99Max)
}

func lagSpan(f *File) string {
	var p99, most time.Duration
	for _, r := range f.Rows {
		p99, most = max(p99, r.LagP99), max(most, r.LagMax)
	}
	return fmt.Sprintf("%s / %s", ms(p99), ms(most))
}

// ms formats d in milliseconds.
func ms(d time.Duration) string {
	v := float64(d) / float64(time.Millisecond)
	switch {
	case v < 10:
		return fmt.Sprintf("%.2f ms", v)
	case v < 1000:
		return fmt.Sprintf("%.1f ms", v)
	}
	return fmt.Sprintf("%.2f s", v/1000)
}

func pct(n, of int) string {
	if of == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(of))
}
