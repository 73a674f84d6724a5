package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
	} {
		if got := median(tc.in); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// TestScheduleInterleavesRunsAcrossLibraries checks the round-robin order:
// every run of a workload visits every library once before the next run
// starts, and no library runs twice in a row.
func TestScheduleInterleavesRunsAcrossLibraries(t *testing.T) {
	libs := libraries()
	cases := workloads([]string{kindNoop}, scale{Tasks: 1})[:1]
	jobs := schedule(3, cases, libs)
	if len(jobs) != 3*len(libs) {
		t.Fatalf("%d jobs", len(jobs))
	}
	for r := 0; r < 3; r++ {
		seen := map[string]bool{}
		for _, j := range jobs[r*len(libs) : (r+1)*len(libs)] {
			if j.run != r || seen[j.lib.name()] {
				t.Fatalf("run %d: job %+v out of order", r, j)
			}
			seen[j.lib.name()] = true
		}
	}
	for i := 1; i < len(jobs); i++ {
		if jobs[i].lib.name() == jobs[i-1].lib.name() {
			t.Errorf("%s runs twice in a row at job %d", jobs[i].lib.name(), i)
		}
	}
}

// fakeFile is a results file of three runs of cases on libs, with made-up
// figures, and one failed run of ants in each workload.
func fakeFile(cases []workload, libs []library) *resultsFile {
	f := &resultsFile{Date: "2026-01-02", Go: "go1.99", Commit: "unknown", Settings: settings{Runs: 3}}
	for _, l := range libs {
		f.Libraries = append(f.Libraries, libInfo{Name: l.name(), Like: l.like()})
	}
	add := func(r result) { f.Runs = append(f.Runs, runRecord{Run: 1, result: r}) }
	for _, w := range cases {
		f.Workloads = append(f.Workloads, workloadInfo{Name: w.name, Kind: w.kind, Description: describe(w)})
		for _, ns := range []float64{100, 300, 200} {
			add(result{Lib: bufferedBaseline, Workload: w.name, Tasks: 10, NsPerTask: ns, MaxRSSKiB: 2048, P50Ns: ns, P99Ns: 3 * ns})
			add(result{Lib: unbufferedBaseline, Workload: w.name, Tasks: 10, NsPerTask: 4 * ns, MaxRSSKiB: 2048, P50Ns: ns, P99Ns: 2 * ns})
			add(result{Lib: "e62cffed/ants", Workload: w.name, Tasks: 10, NsPerTask: 2 * ns, HWMKiB: 1024, P50Ns: ns / 2, P99Ns: ns})
			add(result{Lib: "e62cffed/ants+queue", Workload: w.name, Tasks: 10, NsPerTask: ns, HWMKiB: 1024})
			add(result{Lib: "pond", Workload: w.name, Tasks: 10, NsPerTask: 3 * ns})
			add(result{Lib: "e62cffed/ants+unbounded", Workload: w.name, Tasks: 10, NsPerTask: 1.5 * ns})
		}
		f.Failures = append(f.Failures, failure{Run: 1, Workload: w.name, Lib: "ants", Error: "exit status 2"})
	}
	return f
}

// tables returns the tables of fake results for cases and the libraries
// named in list.
func tables(t *testing.T, cases []workload, list string) string {
	t.Helper()
	libs, err := selectLibraries(list)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	writeTables(&out, fakeFile(cases, libs))
	return out.String()
}

// checkContains fails t for every string of wants that got lacks.
func checkContains(t *testing.T, got string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(got, want) {
			t.Errorf("tables lack %q:\n%s", want, got)
		}
	}
}

func TestTablesShowMediansRatiosAndFailures(t *testing.T) {
	cases := workloads([]string{kindCPU, kindBursty}, scale{Tasks: 100, CPUIters: 1, Bursts: 2, Gap: 1})
	got := tables(t, cases, "e62cffed/ants,e62cffed/ants+queue,e62cffed/ants+unbounded,ants,chanpool,chanpool-unbuf")
	checkContains(t, got,
		"#### cpu/cap=",
		"| library | ns/task | vs its channel pool | allocs/task | B/task | peak RSS MiB | peak goroutines |\n",
		// Each mode against the channel pool with its semantics.
		"| e62cffed/ants | 400 | 0.50× | 0.00 | 0.00 | 1.0 | 0 |\n",
		"| e62cffed/ants+queue | 200 | 1.00× | 0.00 | 0.00 | 1.0 | 0 |\n",
		"| e62cffed/ants+unbounded | 300 | – | 0.00 | 0.00 | 0.0 | 0 |\n",
		"| chanpool-unbuf | 800 | 1.00× | 0.00 | 0.00 | 2.0 | 0 |\n",
		"| ants | failed | | | | | |\n",
		"goroutines after idle |",
	)
}

// TestNoopWorkloadsShareATableBySubmitters: the six noop workloads make two
// tables, one per capacity, a column per submitter count.
func TestNoopWorkloadsShareATableBySubmitters(t *testing.T) {
	cases := workloads([]string{kindNoop}, scale{Tasks: 100})
	got := tables(t, cases, "e62cffed/ants,ants,pond,chanpool-unbuf")
	checkContains(t, got,
		"#### noop/cap=1000: ns/task (vs its channel pool) by submitters; costs the largest of the three\n",
		"| library | 1 sub | 8 sub | 64 sub | allocs/task | B/task | peak RSS MiB | peak goroutines |\n",
		"| e62cffed/ants | 400 (0.50×) | 400 (0.50×) | 400 (0.50×) | 0.00 | 0.00 | 1.0 | 0 |\n",
		"| pond | 600 | 600 | 600 | 0.00 | 0.00 | 0.0 | 0 |\n",
		"| ants | failed | | | | | | |\n", // no run of any of the three
	)
	if n := strings.Count(got, "####"); n != 2 {
		t.Errorf("%d tables for the noop workloads, want 2:\n%s", n, got)
	}
}

func TestLatencyTablesAreOneTableOfPercentiles(t *testing.T) {
	cases := workloads([]string{kindLatency}, scale{Tasks: 100})
	got := tables(t, cases, "e62cffed/ants,ants,chanpool")
	checkContains(t, got,
		"#### latency/cap=1000: p50 / p99 ns from the submit call to the task's start\n",
		"| library | burst of 1 | burst of 8 | burst of 64 | peak goroutines |\n",
		"| e62cffed/ants | 100 / 200 | 100 / 200 | 100 / 200 | 0 |\n",
		"| chanpool | 200 / 600 | 200 / 600 | 200 / 600 | 0 |\n",
		"| ants | failed | | | |\n",
	)
	if strings.Count(got, "####") != 1 || strings.Contains(got, "vs chanpool") {
		t.Errorf("latency tables are not one table without ratios:\n%s", got)
	}
}

func TestChartIsAnSVGAndTheSameEachTime(t *testing.T) {
	cases := workloads([]string{kindNoop, kindCPU, kindLatency}, scale{Tasks: 100, CPUIters: 1})
	f := fakeFile(cases, libraries())
	b, err := chartSVG(f)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "<svg") || !strings.Contains(string(b), "noop/cap=1000/sub=64") ||
		!strings.Contains(string(b), "latency/cap=1000/burst=8") {
		t.Errorf("chart is not the expected SVG: %.200s", b)
	}
	again, err := chartSVG(f)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, again) {
		t.Error("two charts of one results file differ")
	}
}

func TestParseKinds(t *testing.T) {
	if k, err := parseKinds("sleep,cpu"); err != nil || strings.Join(k, ",") != "sleep,cpu" {
		t.Errorf("parseKinds = %v, %v", k, err)
	}
	if _, err := parseKinds("noop,nosuch"); err == nil {
		t.Error("an unknown workload was accepted")
	}
}
