package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/e62cffed/ants/benchmarks/internal/overloadfile"
)

// fakeOverload is an overload results file as the command would write it:
// the pool with a queue target meeting its targets but one, a FIFO buffer
// near the deadline, a small buffer refusing in the burst.
func fakeOverload() *overloadfile.File {
	f := &overloadfile.File{
		Date: "2026-01-03", Started: time.Date(2026, 1, 3, 10, 30, 0, 0, time.UTC), Duration: "1m0s",
		Machine: overloadfile.Machine{CPU: "Test CPU", Cores: 2, GOMAXPROCS: 2, OS: "linux", Arch: "amd64"},
		Go:      "go1.99", Commit: "unknown", Load: "0.10",
		Config: overloadfile.Config{Workers: 20, Task: 5 * time.Millisecond, Deadline: 50 * time.Millisecond,
			Target: 5 * time.Millisecond, Interval: 100 * time.Millisecond, Buffer: 4096, Seed: 1},
		Contenders: []overloadfile.Contender{
			{Name: "e62cffed/ants target", Role: overloadfile.RoleTarget, Setup: "a queue target"},
			{Name: "large FIFO buffer", Role: overloadfile.RoleFIFO, Setup: "a big buffer"},
			{Name: "small buffer, TrySubmit", Role: overloadfile.RoleShed, Setup: "a small buffer"},
		},
		Loads: []overloadfile.LoadInfo{
			{Name: "2× sustained", Description: "twice capacity.", Sustained: true, Multiple: 2},
			{Name: "burst on idle", Description: "a burst.", Burst: true},
		},
	}
	row := func(c, l string, offered, success, late, expired, dropped, refused int, p99 time.Duration) overloadfile.Row {
		return overloadfile.Row{Contender: c, Load: l, Seconds: 2, Offered: offered, Success: success, Late: late,
			Expired: expired, Dropped: dropped, Refused: refused, P50: p99 / 2, P99: p99, Max: p99, RanP99: p99 + 4*time.Millisecond, RunMean: 5 * time.Millisecond}
	}
	f.Rows = []overloadfile.Row{
		row("e62cffed/ants target", "2× sustained", 16000, 7600, 40, 0, 8360, 0, 14*time.Millisecond),
		row("large FIFO buffer", "2× sustained", 16000, 300, 7500, 8200, 0, 0, 48*time.Millisecond),
		row("small buffer, TrySubmit", "2× sustained", 16000, 7000, 0, 0, 0, 9000, 11*time.Millisecond),
		row("e62cffed/ants target", "burst on idle", 400, 400, 0, 0, 0, 0, 40*time.Millisecond),
		row("large FIFO buffer", "burst on idle", 400, 400, 0, 0, 0, 0, 40*time.Millisecond),
		// the small buffer's row failed
	}
	f.Failures = []overloadfile.RowFailure{{Contender: "small buffer, TrySubmit", Load: "burst on idle", Error: "stalled"}}
	return f
}

// TestReportFillsTheOverloadSection runs the report subcommand with an
// overload results file beside the suite's: BENCHMARKS.md's overload
// section gets its tables, stamped with its own date and machine, and the
// bounds the design aims at, each said to hold or not; -check then passes. Without the file the
// section is unknown, as any section the generator does not fill.
func TestReportFillsTheOverloadSection(t *testing.T) {
	dir := t.TempDir()
	cases := workloads([]string{kindNoop}, scale{Tasks: 100})
	results := filepath.Join(dir, "2026-01-02.json")
	if err := fakeFile(cases, libraries()).write(results); err != nil {
		t.Fatal(err)
	}
	if err := fakeOverload().Write(filepath.Join(dir, "overload", "2026-01-03.json")); err != nil {
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
	if err := reportMain(append(args, results)); err == nil || !strings.Contains(err.Error(), `"overload"`) {
		t.Errorf("an overload file and no overload section: %v, want an error naming the section", err)
	}

	os.WriteFile(bench, []byte(sections("run", "summary", "tables", "overload")), 0o644)
	if err := reportMain(append(args, results)); err != nil {
		t.Fatal(err)
	}
	if err := reportMain(append(args, "-check", results)); err != nil {
		t.Fatalf("-check after the report: %v", err)
	}
	b := mustRead(t, bench)
	for _, want := range []string{
		"Measured on 2026-01-03 (10:30 UTC, 1m0s in all) on a 2-core Test CPU (GOMAXPROCS 2, go1.99, linux/amd64)",
		"| e62cffed/ants target | 16000 | 0.95 (0.95) | 47.5% | 7.00 ms / 14.0 ms | 0.5% | 0 | 8360 | 0 | 5.00 ms | – |",
		"| small buffer, TrySubmit | failed |",
		"- 2× sustained: goodput ≥ 0.90: holds (0.95; 0.95 of the capacity the machine gave, its tasks taking 5.00 ms)",
		"- 2× sustained: p99 of successes ≤ 3×target + task = 20ms: holds (14.0 ms)",
		"- 2× sustained: wasted work < 1%: holds (0.5%)",
		"- burst on idle: no request dropped or refused: holds",
		"large FIFO buffer under overload: 2× sustained: p99 of the tasks it ran 52.0 ms against the 50ms deadline, p99 of successes 48.0 ms (96% of it)",
		"- failed: small buffer, TrySubmit under burst on idle: stalled",
	} {
		if !strings.Contains(b, want) {
			t.Errorf("BENCHMARKS.md lacks %q:\n%s", want, b)
		}
	}
	if err := reportMain(append(args, "-overload", "none", "-check", results)); err == nil {
		t.Error("-overload none with an overload section: no error")
	}
}

// TestOverloadTargetsMissedAreSaidSo: a row over a bound does not hold, and
// so is a row that did not run.
func TestOverloadTargetsMissedAreSaidSo(t *testing.T) {
	f := fakeOverload()
	f.Rows[0].P99 = 30 * time.Millisecond
	f.Rows[0].Late = 400
	f.Rows[3].Dropped, f.Rows[3].Success = 5, 395
	f.Rows = append(f.Rows[:1], f.Rows[3:]...)
	got := map[string]bool{}
	for _, tg := range overloadfile.Evaluate(f) {
		got[tg.Name] = tg.Met
	}
	for name, met := range map[string]bool{
		"2× sustained: goodput ≥ 0.90":                            true,
		"2× sustained: p99 of successes ≤ 3×target + task = 20ms": false,
		"2× sustained: wasted work < 1%":                          false,
		"burst on idle: no request dropped or refused":            false,
	} {
		if m, ok := got[name]; !ok || m != met {
			t.Errorf("%s: met %v (evaluated: %v), want %v", name, m, ok, met)
		}
	}
}
