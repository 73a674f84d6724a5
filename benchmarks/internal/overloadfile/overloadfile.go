// Package overloadfile is the results file of the overload study (the
// benchmarks module's overload command) and the report section made from
// it: the command writes the file and prints the section; the report
// subcommand of the benchmarks command fills BENCHMARKS.md's "overload"
// section from the newest file, so that the section and a committed file
// always agree.
package overloadfile

import (
	"github.com/e62cffed/ants/benchmarks/internal/study"

	"fmt"
	"io"
	"runtime"
	"strings"
	"time"
)

// Dir is where the command writes its files by default, relative to the
// benchmarks module: results/overload/YYYY-MM-DD.json, beside the suite's
// results files.
const Dir = "results/overload"

// File is what one run of the overload command measured, with where, when
// and how.
type File struct {
	Date     string    `json:"date"` // YYYY-MM-DD, UTC, the day the run started
	Started  time.Time `json:"started"`
	Duration string    `json:"duration"`
	Machine  Machine   `json:"machine"`
	Go       string    `json:"go"`
	Commit   string    `json:"commit"` // the repository's HEAD, or "unknown"
	Dirty    bool      `json:"dirty"`  // uncommitted changes outside benchmarks/results
	Load     string    `json:"load"`   // the 1-minute load average before the run, or "unknown"

	Config     Config       `json:"config"`
	Contenders []Contender  `json:"contenders"` // in table order
	Loads      []LoadInfo   `json:"loads"`      // in table order
	Rows       []Row        `json:"rows"`       // one per (load, contender) that ran
	Failures   []RowFailure `json:"failures,omitempty"`
}

// Config is the study's sizes, the same for every row.
type Config struct {
	Workers      int           `json:"workers"`
	Task         time.Duration `json:"task_ns"`     // each task's time.Sleep
	Deadline     time.Duration `json:"deadline_ns"` // each request's, from its arrival
	Target       time.Duration `json:"target_ns"`   // WithQueueTarget's target
	Interval     time.Duration `json:"interval_ns"` // and its interval
	QueueTimeout time.Duration `json:"queue_timeout_ns"`
	Buffer       int           `json:"buffer"` // the large buffers' size
	Seed         int64         `json:"seed"`
}

// Capacity is the pool's nominal service rate, tasks a second: workers
// each finishing a task of Task at a time.
func (c Config) Capacity() float64 {
	if c.Task <= 0 {
		return 0
	}
	return float64(c.Workers) / c.Task.Seconds()
}

// P99Target is the bound the study sets on the p99 latency of successes
// under sustained overload: three targets of waiting and the task itself.
func (c Config) P99Target() time.Duration { return 3*c.Target + c.Task }

// Contender is one way to serve the requests.
type Contender struct {
	Name  string `json:"name"`
	Role  string `json:"role"`  // RoleTarget, RoleFIFO, RoleShed or "": what the report says of it
	Setup string `json:"setup"` // how it is built and called, for the report
}

// The roles of contenders the report speaks of: the pool with a queue
// target (the targets are for the first contender of this role), a large
// FIFO buffer (its p99 against the deadline), and the ways that shed when
// full (their drops in the bursts).
const (
	RoleTarget = "target"
	RoleFIFO   = "fifo"
	RoleShed   = "shed"
)

// LoadInfo is one offered load.
type LoadInfo struct {
	Name        string        `json:"name"`
	Description string        `json:"description"`
	Burst       bool          `json:"burst"` // a burst row: the targets there are about drops
	Sustained   bool          `json:"sustained"`
	Multiple    float64       `json:"multiple"` // the sustained rate as a multiple of capacity
	Onset       time.Duration `json:"onset_ns"` // the first part of the row, counted apart; 0: none
}

// Row is what one contender did under one load. Every request that arrived
// is exactly one of Success, Late, Expired, Dropped and Refused.
type Row struct {
	Contender string  `json:"contender"`
	Load      string  `json:"load"`
	Seconds   float64 `json:"seconds"` // the arrival window's length, after the onset

	// The onset: the requests that arrived in the row's first
	// OnsetSeconds, in none of the counts below, and how many succeeded.
	Onset        int     `json:"onset,omitempty"`
	OnsetSuccess int     `json:"onset_success,omitempty"`
	OnsetSeconds float64 `json:"onset_seconds,omitempty"`

	Offered int `json:"offered"` // requests that arrived
	Success int `json:"success"` // ran and finished by their deadline
	Late    int `json:"late"`    // ran and finished after it: wasted work
	Expired int `json:"expired"` // accepted, never ran: the deadline passed while it waited
	Dropped int `json:"dropped"` // accepted, never ran: the pool dropped it (ErrQueueTimeout)
	Refused int `json:"refused"` // never accepted: the pool or the buffer was full

	P50     time.Duration `json:"p50_ns"` // latency of the successes, from arrival to finish
	P99     time.Duration `json:"p99_ns"`
	Max     time.Duration `json:"max_ns"`
	RanP99  time.Duration `json:"ran_p99_ns"`  // latency of every task that ran, late ones too
	RunMean time.Duration `json:"run_mean_ns"` // mean time a task that ran took (its sleep, as the machine kept it)

	PoolDropped int64         `json:"pool_dropped"` // the pool's own Stats.Dropped; -1 where it has none
	LagP99      time.Duration `json:"lag_p99_ns"`   // the generator's lateness behind the schedule
	LagMax      time.Duration `json:"lag_max_ns"`
}

// Ran is the requests whose task ran.
func (r Row) Ran() int { return r.Success + r.Late }

// Goodput is the successes a second over capacity.
func (r Row) Goodput(capacity float64) float64 {
	if r.Seconds <= 0 || capacity <= 0 {
		return 0
	}
	return float64(r.Success) / r.Seconds / capacity
}

// GoodputOfMeasured is the successes a second over the capacity the
// machine gave: workers each finishing a task of the row's mean time, which
// a late timer makes longer than the sleep asked for; 0 if no task ran.
func (r Row) GoodputOfMeasured(workers int) float64 {
	if r.RunMean <= 0 || r.Seconds <= 0 {
		return 0
	}
	return float64(r.Success) / r.Seconds / (float64(workers) / r.RunMean.Seconds())
}

// Wasted is the share of the tasks that ran which finished after their
// client's deadline: work nobody waited for.
func (r Row) Wasted() float64 {
	if r.Ran() == 0 {
		return 0
	}
	return float64(r.Late) / float64(r.Ran())
}

// OnsetGoodput is the onset's successes a second over capacity, or -1 if
// the row has no onset.
func (r Row) OnsetGoodput(capacity float64) float64 {
	if r.OnsetSeconds <= 0 || capacity <= 0 {
		return -1
	}
	return float64(r.OnsetSuccess) / r.OnsetSeconds / capacity
}

// Accounted reports whether every request is counted exactly once.
func (r Row) Accounted() bool {
	return r.Success+r.Late+r.Expired+r.Dropped+r.Refused == r.Offered
}

// RowFailure is a row that did not finish (a stall, a pool that would not
// start).
type RowFailure struct {
	Contender string `json:"contender"`
	Load      string `json:"load"`
	Error     string `json:"error"`
}

// Row returns the row of contender under load, if it ran.
func (f *File) Row(contender, load string) (Row, bool) {
	for _, r := range f.Rows {
		if r.Contender == contender && r.Load == load {
			return r, true
		}
	}
	return Row{}, false
}

// Describe fills in the machine, the toolchain and the checkout.
func (f *File) Describe(started time.Time) {
	f.Date = started.UTC().Format(time.DateOnly)
	f.Started = started.UTC().Truncate(time.Second)
	f.Machine = Machine{
		CPU:        study.ProcField("/proc/cpuinfo", "model name"),
		Cores:      runtime.NumCPU(),
		GOMAXPROCS: runtime.GOMAXPROCS(0),
		OS:         runtime.GOOS,
		Arch:       runtime.GOARCH,
	}
	f.Go = runtime.Version()
	f.Commit, f.Dirty = study.GitState()
	f.Load = study.LoadAverage()
}

// Machine describes the computer the study ran on.
type Machine = study.Machine

// Target is one bound the design aims at, and whether the run held it.
type Target = study.Target

// Write writes f as indented JSON to path, creating its directory.
func (f *File) Write(path string) error { return study.WriteJSON(path, f) }

// Newest returns the newest dir/*.json by name (names are dates), or "" if
// there is none or no such directory.
func Newest(dir string) (string, error) { return study.Newest(dir) }

// Read reads a file written by Write.
func Read(path string) (*File, error) {
	var f File
	if err := study.ReadJSON(path, &f); err != nil {
		return nil, err
	}
	if len(f.Contenders) == 0 || len(f.Loads) == 0 || f.Config.Workers <= 0 || f.Config.Task <= 0 {
		return nil, fmt.Errorf("%s: not an overload results file (no contenders, loads, workers or task)", path)
	}
	return &f, nil
}

// WriteSection writes the report's section: when and where, the set-up,
// a table per load, and the bounds the design aims at, each said to hold
// or not.
func WriteSection(out io.Writer, f *File) {
	c := f.Config
	capacity := c.Capacity()
	fmt.Fprintf(out, "%s\n\n", study.Stamp(f.Date, f.Started, f.Duration, f.Machine, f.Go, f.Commit, f.Dirty, f.Load))
	fmt.Fprintf(out, "%d workers, each request a task of `time.Sleep(%v)`: a capacity of %.0f requests a second. "+
		"Requests arrive open-loop (Poisson, seed %d), each on its own goroutine with a deadline of %v from its arrival in its context. "+
		"Every task skips its sleep if its context has ended when it starts, as `ants.Go` does for its own. "+
		"**Goodput**: requests finished by their deadline, a second, over capacity; in brackets, over the capacity the machine gave, workers / the mean time a task took (**task ran**: a sleep overshoots by what the timers lag). **p50 / p99**: latency of those, from arrival to finish. "+
		"**Wasted**: tasks that ran and finished after their deadline, of the tasks that ran. "+
		"**Expired**: accepted, never ran, the deadline passed while waiting. **Dropped**: dropped by the pool (`ErrQueueTimeout`). **Refused**: not accepted. "+
		"**Onset goodput**: the goodput of a sustained row's first part, the step from idle to the load, whose requests are in no other column.\n\n",
		c.Workers, c.Task, capacity, c.Seed, c.Deadline)
	for _, l := range f.Loads {
		fmt.Fprintf(out, "**%s**: %s\n\n", l.Name, l.Description)
		fmt.Fprintln(out, "| contender | offered | goodput | success | p50 / p99 | wasted | expired | dropped | refused | task ran | onset goodput |")
		fmt.Fprintln(out, "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
		for _, ct := range f.Contenders {
			r, ok := f.Row(ct.Name, l.Name)
			if !ok {
				fmt.Fprintf(out, "| %s | failed | | | | | | | | | |\n", ct.Name)
				continue
			}
			onset := "–"
			if g := r.OnsetGoodput(capacity); g >= 0 {
				onset = fmt.Sprintf("%.2f", g)
			}
			fmt.Fprintf(out, "| %s | %d | %.2f (%.2f) | %s | %s / %s | %s | %d | %d | %d | %s | %s |\n",
				ct.Name, r.Offered, r.Goodput(capacity), r.GoodputOfMeasured(c.Workers), pct(r.Success, r.Offered),
				ms(r.P50, r.Success), ms(r.P99, r.Success), pctf(r.Wasted()),
				r.Expired, r.Dropped, r.Refused, ms(r.RunMean, r.Ran()), onset)
		}
		fmt.Fprintln(out)
	}
	if len(f.Failures) > 0 {
		for _, x := range f.Failures {
			fmt.Fprintf(out, "- failed: %s under %s: %s\n", x.Contender, x.Load, x.Error)
		}
		fmt.Fprintln(out)
	}
	fmt.Fprintln(out, "Set-ups:")
	fmt.Fprintln(out)
	for _, ct := range f.Contenders {
		fmt.Fprintf(out, "- %s: %s\n", ct.Name, ct.Setup)
	}
	fmt.Fprintln(out)
	ours, ok := f.targeted()
	study.WriteBounds(out, ours, ok, Evaluate(f))
	if notes := Contrasts(f); len(notes) > 0 {
		fmt.Fprintln(out)
		for _, n := range notes {
			fmt.Fprintf(out, "- %s\n", n)
		}
	}
	fmt.Fprintln(out)
	fmt.Fprintf(out, "The load generator's lateness behind its schedule, p99 / max over every row: %s.\n", lagSpan(f))
}

// targeted returns the contender the targets are for: the first of
// RoleTarget.
func (f *File) targeted() (string, bool) {
	for _, c := range f.Contenders {
		if c.Role == RoleTarget {
			return c.Name, true
		}
	}
	return "", false
}

// Evaluate checks the targets for the first contender of RoleTarget (none
// if there is none): under every
// sustained load of 2× capacity or more, goodput at least 0.9, p99 of the
// successes at most 3×target + task, wasted work under 1%; in every burst,
// no request dropped or refused. A row that did not run misses its targets.
func Evaluate(f *File) []Target {
	c := f.Config
	ours, ok := f.targeted()
	if !ok {
		return nil
	}
	var out []Target
	for _, l := range f.Loads {
		r, ok := f.Row(ours, l.Name)
		switch {
		case l.Sustained && l.Multiple >= 2:
			if !ok {
				out = append(out, Target{Name: l.Name + ": goodput, p99, wasted work", Measured: "the row did not run"})
				continue
			}
			g := r.Goodput(c.Capacity())
			out = append(out,
				Target{Name: l.Name + ": goodput ≥ 0.90", Met: g >= 0.9,
					Measured: fmt.Sprintf("%.2f; %.2f of the capacity the machine gave, its tasks taking %s", g, r.GoodputOfMeasured(c.Workers), ms(r.RunMean, r.Ran()))},
				Target{Name: fmt.Sprintf("%s: p99 of successes ≤ 3×target + task = %v", l.Name, c.P99Target()),
					Met: r.Success > 0 && r.P99 <= c.P99Target(), Measured: ms(r.P99, r.Success)},
				Target{Name: l.Name + ": wasted work < 1%", Met: r.Wasted() < 0.01, Measured: pctf(r.Wasted())})
		case l.Burst:
			if !ok {
				out = append(out, Target{Name: l.Name + ": no drop", Measured: "the row did not run"})
				continue
			}
			out = append(out, Target{Name: l.Name + ": no request dropped or refused", Met: r.Dropped+r.Refused == 0,
				Measured: fmt.Sprintf("%d dropped, %d refused; %d expired of %d", r.Dropped, r.Refused, r.Expired, r.Offered)})
		}
	}
	return out
}

// Contrasts says where the alternatives fail as the study expects them to:
// the large FIFO buffer's p99 against the deadline under overload, and the
// small buffer's and the nonblocking pool's drops in the bursts: the
// contenders of RoleFIFO and RoleShed.
func Contrasts(f *File) []string {
	var out []string
	for _, ct := range f.Contenders {
		switch {
		case ct.Role == RoleFIFO:
			var parts []string
			for _, l := range f.Loads {
				if r, ok := f.Row(ct.Name, l.Name); ok && l.Sustained && l.Multiple >= 2 {
					succ := "no request finished by its deadline"
					if r.Success > 0 {
						succ = fmt.Sprintf("p99 of successes %s (%.0f%% of it)", ms(r.P99, r.Success), 100*float64(r.P99)/float64(f.Config.Deadline))
					}
					parts = append(parts, fmt.Sprintf("%s: p99 of the tasks it ran %s against the %v deadline, %s; goodput %.2f, wasted %s",
						l.Name, ms(r.RanP99, r.Ran()), f.Config.Deadline, succ, r.Goodput(f.Config.Capacity()), pctf(r.Wasted())))
				}
			}
			if len(parts) > 0 {
				out = append(out, ct.Name+" under overload: "+strings.Join(parts, "; "))
			}
		case ct.Role == RoleShed:
			var parts []string
			for _, l := range f.Loads {
				if r, ok := f.Row(ct.Name, l.Name); ok && l.Burst {
					parts = append(parts, fmt.Sprintf("%s: %d refused of %d", l.Name, r.Refused+r.Dropped, r.Offered))
				}
			}
			if len(parts) > 0 {
				out = append(out, ct.Name+" in the bursts: "+strings.Join(parts, "; "))
			}
		}
	}
	return out
}

func lagSpan(f *File) string {
	var p99, most time.Duration
	for _, r := range f.Rows {
		p99, most = max(p99, r.LagP99), max(most, r.LagMax)
	}
	return fmt.Sprintf("%s / %s", ms(p99, 1), ms(most, 1))
}

// ms formats d in milliseconds, or "–" where there was nothing to measure
// (n == 0).
func ms(d time.Duration, n int) string {
	if n == 0 {
		return "–"
	}
	v := float64(d) / float64(time.Millisecond)
	if v < 10 {
		return fmt.Sprintf("%.2f ms", v)
	}
	return fmt.Sprintf("%.1f ms", v)
}

func pct(n, of int) string {
	if of == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(of))
}

func pctf(v float64) string { return fmt.Sprintf("%.1f%%", 100*v) }
