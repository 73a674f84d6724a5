package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/e62cffed/ants/benchmarks/internal/flowsfile"
)

// fakeFlows is a flows results file as the command would write it: the
// pool with flows meeting its targets but the light flows' wait, a FIFO
// pool whose light flows wait behind the heavy flow, a partition whose
// run failed.
func fakeFlows() *flowsfile.File {
	f := &flowsfile.File{
		Date: "2026-01-04", Started: time.Date(2026, 1, 4, 11, 15, 0, 0, time.UTC), Duration: "1m5s",
		Machine: flowsfile.Machine{CPU: "Test CPU", Cores: 2, GOMAXPROCS: 2, OS: "linux", Arch: "amd64"},
		Go:      "go1.99", Commit: "unknown", Load: "0.20",
		Config: flowsfile.Config{Workers: 20, Task: 5 * time.Millisecond, Buffer: 4096, Lights: 50, Heavy: 3, Light: 0.3,
			HeavyFor: 3 * time.Second, Tail: time.Second, Slot: 100 * time.Millisecond, Seed: 1,
			HeavyShare: 14, LightShare: 1, Window: 2 * time.Second, Warmup: 500 * time.Millisecond},
		Contenders: []flowsfile.Contender{
			{Name: "e62cffed/ants flows", Role: flowsfile.RoleFlows, Setup: "flows"},
			{Name: "one FIFO pool", Role: flowsfile.RoleFIFO, Setup: "no flows"},
			{Name: "Subpool per tenant", Role: flowsfile.RolePartition, Setup: "sub-pools"},
		},
		Rows: []flowsfile.Row{
			{Contender: "e62cffed/ants flows", Offered: 42000, Heavy: 36000, Ran: 42000, LightRuns: 6000,
				LightP99Max: 12 * time.Millisecond, LightP99Worst: "light-07", LightP99Median: 4 * time.Millisecond, LightP99MaxFromArrival: 13 * time.Millisecond,
				LightP99Heavy: 5 * time.Millisecond, LightP99Tail: 3 * time.Millisecond, LightMax: 20 * time.Millisecond,
				HeavyRate: 2600, HeavyP50: time.Second, HeavyDrained: 8 * time.Second,
				Jain: 1, JainMin: 1, Backlogged: 1, Slots: 30, UtilHeavy: 0.99, UtilTail: 0.995, RunMean: 5200 * time.Microsecond},
			{Contender: "one FIFO pool", Offered: 42000, Heavy: 36000, Ran: 42000, LightRuns: 6000,
				LightP99Max: 6 * time.Second, LightP99Worst: "light-01", LightP99Median: 5 * time.Second, LightP99MaxFromArrival: 6 * time.Second,
				HeavyRate: 3500, Jain: 0.03, JainMin: 0.02, Backlogged: 48, Slots: 30, UtilHeavy: 1, UtilTail: 1, RunMean: 5200 * time.Microsecond},
		},
		Scenarios: []flowsfile.Scenario{
			{Name: "unequal backlogs, weights 1", Description: "four flows.",
				Flows: []flowsfile.Flow{{Name: "a", Weight: 1, Outstanding: 40, Share: 10}, {Name: "b", Weight: 1, Outstanding: 80, Share: 10}}},
			{Name: "weights 3:1", Description: "two flows.", Ratio: 3,
				Flows: []flowsfile.Flow{{Name: "x", Weight: 3, Outstanding: 80, Share: 15}, {Name: "y", Weight: 1, Outstanding: 80, Share: 5}}},
		},
		Shares: []flowsfile.ShareRow{
			{Scenario: "unequal backlogs, weights 1", Contender: "e62cffed/ants flows", Started: []int{3000, 3000}, Seconds: 1.5, Jain: 1},
			{Scenario: "unequal backlogs, weights 1", Contender: "one FIFO pool", Started: []int{2000, 4000}, Seconds: 1.5, Jain: 0.9},
			{Scenario: "weights 3:1", Contender: "e62cffed/ants flows", Started: []int{4410, 1500}, Seconds: 1.5, Jain: 1, Ratio: 2.94},
			{Scenario: "weights 3:1", Contender: "one FIFO pool", Started: []int{3000, 3000}, Seconds: 1.5, Jain: 0.8, Ratio: 1},
		},
		Failures: []flowsfile.Failure{{Contender: "Subpool per tenant", Scenario: "mixed workload", Error: "stalled"}},
	}
	return f
}

// TestReportFillsTheFlowsSection runs the report subcommand with a flows
// results file beside the suite's: BENCHMARKS.md's flows section gets its
// tables, stamped with its own date and machine, and the bounds the design
// aims at, each said to hold or not; -check then passes. Without the section the report fails, as
// for any section the generator fills.
func TestReportFillsTheFlowsSection(t *testing.T) {
	dir := t.TempDir()
	cases := workloads([]string{kindNoop}, scale{Tasks: 100})
	results := filepath.Join(dir, "2026-01-02.json")
	if err := fakeFile(cases, libraries()).write(results); err != nil {
		t.Fatal(err)
	}
	if err := fakeFlows().Write(filepath.Join(dir, "flows", "2026-01-04.json")); err != nil {
		t.Fatal(err)
	}
	bench, readme, svg := filepath.Join(dir, "B.md"), filepath.Join(dir, "R.md"), filepath.Join(dir, "c.svg")
	sections := func(names ...string) string {
		var s strings.Builder
		for _, n := range names {
			s.WriteString("text\n<!-- results:begin " + n + " -->\n<!-- results:end " + n + " -->\n")
		}
		return s.String()
	}
	os.WriteFile(readme, []byte(sections("readme-claim", "readme-table")), 0o644)
	args := []string{"-svg", svg, "-benchmarks", bench, "-readme", readme}

	os.WriteFile(bench, []byte(sections("run", "summary", "tables")), 0o644)
	if err := reportMain(append(args, results)); err == nil || !strings.Contains(err.Error(), `"flows"`) {
		t.Errorf("a flows file and no flows section: %v, want an error naming the section", err)
	}

	os.WriteFile(bench, []byte(sections("run", "summary", "tables", "flows")), 0o644)
	if err := reportMain(append(args, results)); err != nil {
		t.Fatal(err)
	}
	if err := reportMain(append(args, "-check", results)); err != nil {
		t.Fatalf("-check after the report: %v", err)
	}
	b := mustRead(t, bench)
	for _, want := range []string{
		"Measured on 2026-01-04 (11:15 UTC, 1m5s in all) on a 2-core Test CPU (GOMAXPROCS 2, go1.99, linux/amd64)",
		"| e62cffed/ants flows | 42000 | 12.0 ms (4.00 ms) | 5.00 ms / 3.00 ms | 20.0 ms | 0.65 | 1.00 s | 8.00 s | 1.000 (1.000; 1.0) | 0.990 / 0.995 | 5.20 ms |",
		"| Subpool per tenant | failed |",
		"| e62cffed/ants flows | 4410 (74.6%) | 1500 (25.4%) | 1.000 | 2.940 | 3940 (0.98× capacity) |",
		"- mixed workload: every light flow's p99 wait ≤ 2 × task = 10ms: **does not hold** (worst flow 12.0 ms (light-07)",
		"the FIFO pool's worst flow: 6.00 s",
		"- mixed workload: Jain's index over backlogged flows ≥ 0.95: holds",
		"- unequal backlogs, weights 1: Jain's index ≥ 0.95: holds (1.000)",
		"- weights 3:1: service ratio within ±5% of 3:1: holds (2.940:1, -2.0%)",
		"- mixed workload: utilisation while the heavy flow runs ≥ 0.98 × the FIFO pool's: holds (0.990 against 1.000: 0.990×)",
		"- failed: Subpool per tenant in mixed workload: stalled",
	} {
		if !strings.Contains(b, want) {
			t.Errorf("BENCHMARKS.md lacks %q:\n%s", want, b)
		}
	}
	if err := reportMain(append(args, "-flows", "none", "-check", results)); err == nil {
		t.Error("-flows none with a flows section: no error")
	}
}

// TestFlowsTargetsMissedAreSaidSo: a figure past its bound does not hold, and
// so is a run that did not finish.
func TestFlowsTargetsMissedAreSaidSo(t *testing.T) {
	f := fakeFlows()
	f.Rows[0].LightP99Max = 9 * time.Millisecond
	f.Rows[0].UtilTail = 0.9
	f.Shares[2].Ratio = 2.8
	f.Shares = f.Shares[1:] // the flows pool's unequal-backlogs run did not finish
	got := map[string]bool{}
	for _, tg := range flowsfile.Evaluate(f) {
		got[tg.Name] = tg.Met
	}
	for name, met := range map[string]bool{
		"mixed workload: every light flow's p99 wait ≤ 2 × task = 10ms":                  true,
		"mixed workload: Jain's index over backlogged flows ≥ 0.95":                      true,
		"unequal backlogs, weights 1: Jain's index ≥ 0.95":                               false,
		"weights 3:1: service ratio within ±5% of 3:1":                                   false,
		"mixed workload: utilisation while the heavy flow runs ≥ 0.98 × the FIFO pool's": true,
		"mixed workload: utilisation after it stops ≥ 0.98 × the FIFO pool's":            false,
	} {
		if m, ok := got[name]; !ok || m != met {
			t.Errorf("%s: met %v (evaluated: %v), want %v", name, m, ok, met)
		}
	}
}
