package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/e62cffed/ants/benchmarks/internal/flowsfile"
	"github.com/e62cffed/ants/benchmarks/internal/overloadfile"
)

// reportMain is the report subcommand: it reads a results file and writes
// the chart and the generated parts of BENCHMARKS.md and README.md, or with
// -check reports whether they differ from what the file gives.
func reportMain(args []string) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	svg := fs.String("svg", "benchmarks.svg", "the chart to write")
	bench := fs.String("benchmarks", "../BENCHMARKS.md", "the report whose results sections to rewrite")
	readme := fs.String("readme", "../README.md", "the README whose results sections to rewrite")
	check := fs.Bool("check", false, "write nothing; fail if any of the three files differs from what the results file gives")
	overload := fs.String("overload", "", "the overload study's results file, for BENCHMARKS.md's \"overload\" section (default: the newest overload/*.json in the results file's directory, if any); \"none\" for none")
	flows := fs.String("flows", "", "the flows study's results file, for BENCHMARKS.md's \"flows\" section (default: the newest flows/*.json in the results file's directory, if any); \"none\" for none")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: go run . report [flags] [results file]\n\n"+
			"Makes the chart, and the parts of BENCHMARKS.md and README.md between\n"+
			"<!-- results:begin NAME --> and <!-- results:end NAME --> markers, from a\n"+
			"results file (default: the newest %s/*.json).\n\n", resultsDir)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	var path string
	switch fs.NArg() {
	case 0:
		p, err := latestResults()
		if err != nil {
			return err
		}
		path = p
	case 1:
		path = fs.Arg(0)
	default:
		fs.Usage()
		return errors.New("more than one results file")
	}
	f, err := readResultsFile(path)
	if err != nil {
		return err
	}

	ov, err := overloadResults(*overload, path)
	if err != nil {
		return err
	}
	fl, err := flowsResults(*flows, path)
	if err != nil {
		return err
	}

	chart, err := chartSVG(f)
	if err != nil {
		return fmt.Errorf("chart: %w", err)
	}
	outputs := []struct {
		path     string
		generate func(old []byte) ([]byte, error)
	}{
		{*svg, func([]byte) ([]byte, error) { return chart, nil }},
		{*bench, func(old []byte) ([]byte, error) {
			sections := benchmarkSections(f)
			if ov != nil {
				sections[overloadSection] = overloadText(ov)
			}
			if fl != nil {
				sections[flowsSection] = flowsText(fl)
			}
			return fillSections(old, sections)
		}},
		{*readme, func(old []byte) ([]byte, error) { return fillSections(old, readmeSections(f)) }},
	}
	var stale []string
	for _, o := range outputs {
		old, err := os.ReadFile(o.path)
		if err != nil && !(errors.Is(err, os.ErrNotExist) && o.path == *svg) {
			return err
		}
		b, err := o.generate(old)
		if err != nil {
			return fmt.Errorf("%s: %w", o.path, err)
		}
		if bytes.Equal(b, old) {
			continue
		}
		if *check {
			stale = append(stale, o.path)
			continue
		}
		if err := os.WriteFile(o.path, b, 0o644); err != nil {
			return err
		}
		fmt.Fprintln(os.Stderr, "wrote", o.path)
	}
	if len(stale) > 0 {
		return fmt.Errorf("%s not what %s gives; run: cd benchmarks && go run . report %s",
			strings.Join(stale, ", "), path, path)
	}
	if *check {
		fmt.Fprintf(os.Stderr, "the chart, BENCHMARKS.md and README.md agree with %s\n", path)
	}
	return nil
}

// sectionRE matches one generated section: the begin marker line, the
// lines up to the end marker with the same name, and that line.
var sectionRE = regexp.MustCompile(`(?ms)^<!-- results:begin ([a-z0-9-]+) -->\n.*?^<!-- results:end ([a-z0-9-]+) -->\n`)

// fillSections replaces the body of every marked section of doc with the
// text sections gives for its name. Every name of sections must have
// exactly one section in doc, and every section of doc a name in
// sections, so that a lost marker fails rather than leaving stale text.
func fillSections(doc []byte, sections map[string]string) ([]byte, error) {
	seen := map[string]bool{}
	var bad error
	out := sectionRE.ReplaceAllFunc(doc, func(m []byte) []byte {
		sub := sectionRE.FindSubmatch(m)
		name, end := string(sub[1]), string(sub[2])
		body, ok := sections[name]
		switch {
		case name != end:
			bad = fmt.Errorf("section %q ends with the marker of %q", name, end)
		case !ok:
			bad = fmt.Errorf("unknown section %q", name)
		case seen[name]:
			bad = fmt.Errorf("section %q twice", name)
		}
		seen[name] = true
		return []byte("<!-- results:begin " + name + " -->\n" + body + "<!-- results:end " + name + " -->\n")
	})
	if bad != nil {
		return nil, bad
	}
	for name := range sections {
		if !seen[name] {
			return nil, fmt.Errorf("no section %q (<!-- results:begin %s --> ... <!-- results:end %s -->)", name, name, name)
		}
	}
	return out, nil
}

// benchmarkSections are the generated parts of BENCHMARKS.md.
func benchmarkSections(f *resultsFile) map[string]string {
	var header, summary, tables strings.Builder
	writeHeader(&header, f)
	writeSummary(&summary, f, summaryLibs)
	writeTables(&tables, f)
	return map[string]string{
		"run":     header.String(),
		"summary": summary.String(),
		"tables":  strings.TrimSuffix(tables.String(), "\n"),
	}
}

// overloadSection is the name of BENCHMARKS.md's section of the overload
// study (go run ./overload), filled only when a results file of it exists.
const overloadSection = "overload"

// overloadResults reads the overload study's results file: flag's, if it
// names one ("none": none), else the newest overload/*.json in the
// directory of the suite's results file, if there is one. A file found
// requires the section in BENCHMARKS.md, as every other section is.
func overloadResults(flag, resultsPath string) (*overloadfile.File, error) {
	switch flag {
	case "none":
		return nil, nil
	case "":
		p, err := overloadfile.Newest(filepath.Join(filepath.Dir(resultsPath), filepath.Base(overloadfile.Dir)))
		if err != nil || p == "" {
			return nil, err
		}
		flag = p
	}
	return overloadfile.Read(flag)
}

// overloadText is the body of the overload section.
func overloadText(f *overloadfile.File) string {
	var b strings.Builder
	overloadfile.WriteSection(&b, f)
	return b.String()
}

// flowsSection is the name of BENCHMARKS.md's section of the flows study
// (go run ./flows), filled only when a results file of it exists.
const flowsSection = "flows"

// flowsResults reads the flows study's results file: flag's, if it names
// one ("none": none), else the newest flows/*.json in the directory of the
// suite's results file, if there is one. A file found requires the section
// in BENCHMARKS.md, as every other section is.
func flowsResults(flag, resultsPath string) (*flowsfile.File, error) {
	switch flag {
	case "none":
		return nil, nil
	case "":
		p, err := flowsfile.Newest(filepath.Join(filepath.Dir(resultsPath), filepath.Base(flowsfile.Dir)))
		if err != nil || p == "" {
			return nil, err
		}
		flag = p
	}
	return flowsfile.Read(flag)
}

// flowsText is the body of the flows section.
func flowsText(f *flowsfile.File) string {
	var b strings.Builder
	flowsfile.WriteSection(&b, f)
	return b.String()
}

// readmeSections are the generated parts of README.md.
func readmeSections(f *resultsFile) map[string]string {
	var table strings.Builder
	writeSummary(&table, f, readmeLibs)
	return map[string]string{
		"readme-claim": claim(f) + "\n",
		"readme-table": table.String(),
	}
}

// repoURL is the repository's address, for links to a commit.
const repoURL = "https://github.com/e62cffed/ants"

// writeHeader says when, where and on what the run measured, and with
// which settings, so that its tables can be read on their own.
func writeHeader(out io.Writer, f *resultsFile) {
	m := f.Machine
	mem := "memory unknown"
	if m.MemoryMiB > 0 {
		mem = fmt.Sprintf("%.1f GiB of memory", float64(m.MemoryMiB)/1024)
	}
	fmt.Fprintf(out, "| | |\n|---|---|\n")
	fmt.Fprintf(out, "| date | %s (%s, UTC), %s in all |\n", f.Date, f.Started.Format("15:04"), f.Duration)
	fmt.Fprintf(out, "| machine | %s, %d cores (GOMAXPROCS %d), %s, %s/%s |\n", m.CPU, m.Cores, m.GOMAXPROCS, mem, m.OS, m.Arch)
	fmt.Fprintf(out, "| Go | %s |\n", f.Go)
	commit := f.Commit
	if len(commit) == 40 {
		commit = fmt.Sprintf("[`%s`](%s/commit/%s)", commit[:12], repoURL, commit)
	}
	if f.Dirty {
		commit += ", with uncommitted changes"
	}
	fmt.Fprintf(out, "| commit | %s |\n", commit)
	var mods []string
	for _, mod := range f.Modules {
		mods = append(mods, mod.Path+" "+mod.Version)
	}
	fmt.Fprintf(out, "| modules | %s |\n", strings.Join(mods, ", "))
	s := f.Settings
	fmt.Fprintf(out, "| settings | %d runs of every (library, workload), interleaved; tables show medians. %d tasks a run of noop, sleep and cpu; a cpu task is %d loop iterations (about %v); bursty: %d bursts, %v idle after each |\n",
		s.Runs, s.Scale.Tasks, s.Scale.CPUIters, cpuTaskTarget, s.Scale.Bursts, s.Scale.Gap)
	if s.Quick {
		fmt.Fprintf(out, "| quick | a -quick run: every case once, with tiny counts; its figures are not comparable |\n")
	}
	if n := len(f.Failures); n > 0 {
		fmt.Fprintf(out, "| failed | %d of %d child runs, in no median |\n", n, n+len(f.Runs))
	}
}

// summaryLibs are the columns of BENCHMARKS.md's summary table, and
// readmeLibs of the README's: this library in each mode beside the peer
// with the same semantics. A library the results file lacks is left out.
var (
	summaryLibs = []string{
		"e62cffed/ants", unbufferedBaseline, "ants", "conc", "errgroup",
		"e62cffed/ants+queue", bufferedBaseline,
		"e62cffed/ants+queue64", chanPool64Name,
		"e62cffed/ants+unbounded", "pond",
	}
	readmeLibs = []string{
		"e62cffed/ants", unbufferedBaseline, "ants",
		"e62cffed/ants+queue", bufferedBaseline,
		"e62cffed/ants+queue64", chanPool64Name,
		"e62cffed/ants+unbounded", "pond",
	}
)

// peerOf is the library each mode of this library is measured against in
// the summary tables' ratios: the channel pool with its semantics, or for
// the unbounded buffer pond, whose queue is unbounded too.
func peerOf(l libInfo) string {
	if l.Name == "e62cffed/ants+unbounded" {
		return "pond"
	}
	if strings.HasPrefix(l.Name, "e62cffed/ants") {
		return l.Like
	}
	return ""
}

// writeSummary writes one table of median ns/task: a row per throughput
// workload (noop and cpu), a column per library of names that f has; each
// mode of this library with its ratio to peerOf.
func writeSummary(out io.Writer, f *resultsFile, names []string) {
	rs := f.results()
	var libs []libInfo
	for _, n := range names {
		for _, l := range f.Libraries {
			if l.Name == n {
				libs = append(libs, l)
			}
		}
	}
	head, align := []string{"ns per task (median)"}, []string{"---"}
	for _, l := range libs {
		head, align = append(head, l.Name), append(align, "--:")
	}
	fmt.Fprintf(out, "| %s |\n|%s|\n", strings.Join(head, " | "), strings.Join(align, "|"))
	for _, w := range f.Workloads {
		if w.Kind != kindNoop && w.Kind != kindCPU {
			continue
		}
		cells := []string{w.Name}
		for _, l := range libs {
			s := rs.summarize(w.Name, l.Name)
			if s.runs == 0 {
				cells = append(cells, "failed")
				continue
			}
			c := formatFloat(s.nsPerTask)
			if p := rs.summarize(w.Name, peerOf(l)); peerOf(l) != "" && p.runs > 0 && p.nsPerTask > 0 {
				c = fmt.Sprintf("**%s** (%.2f×)", c, s.nsPerTask/p.nsPerTask)
			}
			cells = append(cells, c)
		}
		fmt.Fprintf(out, "| %s |\n", strings.Join(cells, " | "))
	}
}

// claim is the README's one-sentence performance claim, with its date and
// machine: the range of ns/task and of ratios to ants and to the
// unbuffered channel pool over the noop workloads at capacity 1000.
func claim(f *resultsFile) string {
	rs := f.results()
	var ns, vsAnts, vsChan []float64
	var cap1000 []string
	for _, w := range f.Workloads {
		if w.Kind != kindNoop || !strings.HasPrefix(w.Name, "noop/cap=1000/") {
			continue
		}
		ours, a, c := rs.summarize(w.Name, "e62cffed/ants"), rs.summarize(w.Name, "ants"), rs.summarize(w.Name, unbufferedBaseline)
		if ours.runs == 0 || a.runs == 0 || c.runs == 0 {
			continue
		}
		cap1000 = append(cap1000, w.Name)
		ns = append(ns, ours.nsPerTask)
		vsAnts = append(vsAnts, ours.nsPerTask/a.nsPerTask)
		vsChan = append(vsChan, ours.nsPerTask/c.nsPerTask)
	}
	m := f.Machine
	when := fmt.Sprintf("Measured on %s on a %d-core %s (%s, %s/%s)", f.Date, m.Cores, m.CPU, f.Go, m.OS, m.Arch)
	if len(cap1000) == 0 {
		return when + ": see the [benchmark report](BENCHMARKS.md)."
	}
	return fmt.Sprintf("%s: a no-op task on a pool of 1000 workers costs %s ns from %s submitters, "+
		"%s× what ants v2.12.1 costs and %s× a pool of 1000 goroutines on an unbuffered channel "+
		"(medians of %d interleaved runs; [the report](BENCHMARKS.md) has every workload, peer and caveat).",
		when, span(ns, "%.0f"), submitterSpan(cap1000), span(vsAnts, "%.2f"), span(vsChan, "%.2f"), f.Settings.Runs)
}

// span formats the smallest and largest of v as "a–b", or "a" if equal.
func span(v []float64, format string) string {
	lo, hi := v[0], v[0]
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
	}
	a, b := fmt.Sprintf(format, lo), fmt.Sprintf(format, hi)
	if a == b {
		return a
	}
	return a + "–" + b
}

// submitterSpan returns "1 to 64" for noop workloads named .../sub=1 to
// .../sub=64.
func submitterSpan(names []string) string {
	var subs []string
	for _, n := range names {
		if _, s, ok := strings.Cut(n, "/sub="); ok {
			subs = append(subs, s)
		}
	}
	if len(subs) == 0 {
		return "several"
	}
	if len(subs) == 1 {
		return subs[0]
	}
	return subs[0] + " to " + subs[len(subs)-1]
}
