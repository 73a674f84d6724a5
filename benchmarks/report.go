package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// summary is the median of each metric over a (library, workload)'s runs,
// taken metric by metric, so a row need not come from a single run.
type summary struct {
	lib            string
	runs           int
	failed         int // runs whose child failed; they are not in the medians
	nsPerTask      float64
	allocsPerTask  float64
	bytesPerTask   float64
	maxRSSMiB      float64
	peakGoroutines float64
	idleInUseMiB   float64
	idleRSSMiB     float64
	idleGoroutines float64
	p50Ns          float64 // latency only
	p99Ns          float64 // latency only
}

// results collects the runs of every (workload, library) pair.
type results struct {
	runs   map[string]map[string][]result // workload -> library -> runs
	failed map[string]map[string]int
}

func newResults() *results {
	return &results{
		runs:   map[string]map[string][]result{},
		failed: map[string]map[string]int{},
	}
}

func (rs *results) add(r result) {
	if rs.runs[r.Workload] == nil {
		rs.runs[r.Workload] = map[string][]result{}
	}
	rs.runs[r.Workload][r.Lib] = append(rs.runs[r.Workload][r.Lib], r)
}

func (rs *results) addFailure(workload, lib string) {
	if rs.failed[workload] == nil {
		rs.failed[workload] = map[string]int{}
	}
	rs.failed[workload][lib]++
}

const mib = 1 << 20

// summarize returns the medians of lib's runs of workload.
func (rs *results) summarize(workload, lib string) summary {
	runs := rs.runs[workload][lib]
	m := func(f func(result) float64) float64 {
		v := make([]float64, len(runs))
		for i, r := range runs {
			v[i] = f(r)
		}
		return median(v)
	}
	return summary{
		lib:            lib,
		runs:           len(runs),
		failed:         rs.failed[workload][lib],
		nsPerTask:      m(func(r result) float64 { return r.NsPerTask }),
		allocsPerTask:  m(func(r result) float64 { return r.AllocsPerTask }),
		bytesPerTask:   m(func(r result) float64 { return r.BytesPerTask }),
		maxRSSMiB:      m(func(r result) float64 { return float64(r.peakRSSKiB()) / 1024 }),
		peakGoroutines: m(func(r result) float64 { return float64(r.PeakGoroutines) }),
		idleInUseMiB:   m(func(r result) float64 { return float64(r.IdleInUseBytes) / mib }),
		idleRSSMiB:     m(func(r result) float64 { return float64(r.IdleRSSBytes) / mib }),
		idleGoroutines: m(func(r result) float64 { return float64(r.IdleGoroutines) }),
		p50Ns:          m(func(r result) float64 { return r.P50Ns }),
		p99Ns:          m(func(r result) float64 { return r.P99Ns }),
	}
}

// median returns the median of v (the mean of the middle two for an even
// count), or 0 for no values. It sorts v.
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	sort.Float64s(v)
	mid := len(v) / 2
	if len(v)%2 == 1 {
		return v[mid]
	}
	return (v[mid-1] + v[mid]) / 2
}

// column is one column of a table: its heading, its markdown alignment, and
// its cell for a library's summary.
type column struct {
	head, align string
	cell        func(l libInfo, s summary) string
}

// num is a right-aligned column of one figure of the summary.
func num(head string, f func(summary) string) column {
	return column{head: head, align: "--:", cell: func(_ libInfo, s summary) string { return f(s) }}
}

// ratio formats s's ns/task over its channel pool's (l.Like) in workload,
// or "" if l has none or it did not run.
func ratio(rs *results, workload string, l libInfo, s summary) string {
	if l.Like == "" {
		return ""
	}
	base := rs.summarize(workload, l.Like)
	if base.runs == 0 || base.nsPerTask <= 0 {
		return ""
	}
	return fmt.Sprintf("%.2f×", s.nsPerTask/base.nsPerTask)
}

// costColumns are the columns of what a run cost beside its time.
func costColumns() []column {
	return []column{
		num("allocs/task", func(s summary) string { return fmt.Sprintf("%.2f", s.allocsPerTask) }),
		num("B/task", func(s summary) string { return formatFloat(s.bytesPerTask) }),
		num("peak RSS MiB", func(s summary) string { return fmt.Sprintf("%.1f", s.maxRSSMiB) }),
		num("peak goroutines", func(s summary) string { return fmt.Sprintf("%.0f", s.peakGoroutines) }),
	}
}

// columns returns the columns of w's table after the library's name:
// ns/task and its ratio to the channel pool with the library's semantics
// (library.like), the cost columns, and for bursty the state after the
// idle gaps.
func columns(rs *results, w workloadInfo) []column {
	cols := []column{
		num("ns/task", func(s summary) string { return formatFloat(s.nsPerTask) }),
		{head: "vs its channel pool", align: "--:", cell: func(l libInfo, s summary) string {
			if r := ratio(rs, w.Name, l, s); r != "" {
				return r
			}
			return "–"
		}},
	}
	cols = append(cols, costColumns()...)
	if w.Kind == kindBursty {
		cols = append(cols,
			num("in use after idle MiB", func(s summary) string { return fmt.Sprintf("%.1f", s.idleInUseMiB) }),
			num("RSS after idle MiB", func(s summary) string { return fmt.Sprintf("%.1f", s.idleRSSMiB) }),
			num("goroutines after idle", func(s summary) string { return fmt.Sprintf("%.0f", s.idleGoroutines) }))
	}
	return cols
}

// group returns the name that w shares with the other workloads of its
// table, and w's own part of it: "noop/cap=1000" and "8" for
// noop/cap=1000/sub=8, "latency/cap=1000" and "8" for
// latency/cap=1000/burst=8. Other workloads have a table of their own
// (ok false).
func group(w workloadInfo) (name, member string, ok bool) {
	for _, sep := range []string{"/sub=", "/burst="} {
		if name, member, ok = strings.Cut(w.Name, sep); ok {
			return name, member, true
		}
	}
	return w.Name, "", false
}

// writeTables writes the tables of f's workloads, rows in the order of f's
// libraries: one table for the workloads that differ only in their
// submitters (noop) or their burst size (latency), where the first of
// them would be, and one for each other workload. The workload's name says
// what it is; the description, in the results file, is for a reader of
// the file.
func writeTables(out io.Writer, f *resultsFile) {
	rs := f.results()
	groups := map[string][]workloadInfo{}
	for _, w := range f.Workloads {
		if g, _, ok := group(w); ok {
			groups[g] = append(groups[g], w)
		}
	}
	for _, w := range f.Workloads {
		g, _, ok := group(w)
		switch {
		case !ok:
			fmt.Fprintf(out, "#### %s\n\n", w.Name)
			writeTable(out, f.Libraries, columns(rs, w), func(lib string) summary { return rs.summarize(w.Name, lib) })
		case groups[g][0].Name != w.Name:
			// Written with the first of its group.
		case w.Kind == kindLatency:
			writeLatencyTable(out, rs, f.Libraries, g, groups[g])
		default:
			writeGroupTable(out, rs, f.Libraries, g, groups[g])
		}
	}
}

// writeTable writes a table of cols, a row per library, with the summary
// of each that sum gives.
func writeTable(out io.Writer, libs []libInfo, cols []column, sum func(lib string) summary) {
	head, align := []string{"library"}, []string{"---"}
	for _, c := range cols {
		head, align = append(head, c.head), append(align, c.align)
	}
	fmt.Fprintf(out, "| %s |\n|%s|\n", strings.Join(head, " | "), strings.Join(align, "|"))
	for _, l := range libs {
		s := sum(l.Name)
		if s.runs == 0 {
			fmt.Fprintf(out, "| %s | failed |%s\n", l.Name, strings.Repeat(" |", len(cols)-1))
			continue
		}
		cells := []string{l.Name}
		if s.failed > 0 {
			cells[0] += fmt.Sprintf(" (%d failed)", s.failed)
		}
		for _, c := range cols {
			cells = append(cells, c.cell(l, s))
		}
		fmt.Fprintf(out, "| %s |\n", strings.Join(cells, " | "))
	}
	fmt.Fprintln(out)
}

// memberCell is the column of one workload of a group: what cell gives
// for the library's summary of it, or "failed".
func memberCell(rs *results, head, workload string, cell func(l libInfo, s summary) string) column {
	return column{head: head, align: "--:", cell: func(l libInfo, _ summary) string {
		s := rs.summarize(workload, l.Name)
		if s.runs == 0 {
			return "failed"
		}
		return cell(l, s)
	}}
}

// worstOf is the summary a group's table shows beside its members'
// columns: for each cost, the largest over the group's workloads with runs.
func worstOf(rs *results, ws []workloadInfo, lib string) summary {
	var w summary
	for _, x := range ws {
		s := rs.summarize(x.Name, lib)
		if s.runs == 0 {
			w.failed++
			continue
		}
		w.runs += s.runs
		w.allocsPerTask = max(w.allocsPerTask, s.allocsPerTask)
		w.bytesPerTask = max(w.bytesPerTask, s.bytesPerTask)
		w.maxRSSMiB = max(w.maxRSSMiB, s.maxRSSMiB)
		w.peakGoroutines = max(w.peakGoroutines, s.peakGoroutines)
	}
	w.failed = 0 // a failed member shows in its own column
	return w
}

// writeGroupTable writes the workloads ws, which differ only in their
// submitters, as one table: ns/task from each number of submitters with
// its ratio to the library's channel pool, and the largest of each cost.
func writeGroupTable(out io.Writer, rs *results, libs []libInfo, name string, ws []workloadInfo) {
	fmt.Fprintf(out, "#### %s: ns/task (vs its channel pool) by submitters; costs the largest of the three\n\n", name)
	var cols []column
	for _, w := range ws {
		_, m, _ := group(w)
		cols = append(cols, memberCell(rs, m+" sub", w.Name, func(l libInfo, s summary) string {
			c := formatFloat(s.nsPerTask)
			if r := ratio(rs, w.Name, l, s); r != "" {
				c += " (" + r + ")"
			}
			return c
		}))
	}
	cols = append(cols, costColumns()...)
	writeTable(out, libs, cols, func(lib string) summary { return worstOf(rs, ws, lib) })
}

// writeLatencyTable writes the latency workloads ws as one table: for
// each, the p50 and p99 from the submit call to the task's start, and the
// most goroutines any of them had at once.
func writeLatencyTable(out io.Writer, rs *results, libs []libInfo, name string, ws []workloadInfo) {
	fmt.Fprintf(out, "#### %s: p50 / p99 ns from the submit call to the task's start\n\n", name)
	var cols []column
	for _, w := range ws {
		_, m, _ := group(w)
		cols = append(cols, memberCell(rs, "burst of "+m, w.Name, func(_ libInfo, s summary) string {
			return formatFloat(s.p50Ns) + " / " + formatFloat(s.p99Ns)
		}))
	}
	cols = append(cols, num("peak goroutines", func(s summary) string { return fmt.Sprintf("%.0f", s.peakGoroutines) }))
	writeTable(out, libs, cols, func(lib string) summary { return worstOf(rs, ws, lib) })
}

// describe says in one line what a workload does.
func describe(w workload) string {
	switch w.kind {
	case kindNoop:
		return fmt.Sprintf("%d no-op tasks from %d submitter(s), capacity %d.", w.tasks, w.submitters, w.cfg.capacity)
	case kindSleep:
		return fmt.Sprintf("%d tasks of time.Sleep(%v), capacity %d.", w.tasks, sleepTask, w.cfg.capacity)
	case kindCPU:
		return fmt.Sprintf("%d tasks of ~%v arithmetic, capacity %d (GOMAXPROCS).", w.tasks, cpuTaskTarget, w.cfg.capacity)
	case kindBursty:
		return fmt.Sprintf("%d bursts of %d tasks of time.Sleep(%v), each followed by %v idle; capacity %d, ants expiry %v. ns/task counts burst time only.",
			w.bursts, w.tasks/w.bursts, burstyTask, w.gap, w.cfg.capacity, w.cfg.expiry)
	case kindLatency:
		return fmt.Sprintf("%d tasks in bursts of %d from 1 submitter, capacity %d (idle workers always exist): time from the submit call to the task's start. Each task stays busy until its whole burst has started.",
			w.tasks, w.burst, w.cfg.capacity)
	}
	return ""
}

// formatFloat prints a value with three significant digits or more.
func formatFloat(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}
