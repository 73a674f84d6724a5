package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFillSectionsReplacesOnlyBetweenMarkers(t *testing.T) {
	doc := "# Title\n\nprose\n<!-- results:begin a -->\nold a\n<!-- results:end a -->\nmiddle\n<!-- results:begin b -->\n<!-- results:end b -->\nend\n"
	got, err := fillSections([]byte(doc), map[string]string{"a": "new a\n", "b": "| b |\n"})
	if err != nil {
		t.Fatal(err)
	}
	want := "# Title\n\nprose\n<!-- results:begin a -->\nnew a\n<!-- results:end a -->\nmiddle\n<!-- results:begin b -->\n| b |\n<!-- results:end b -->\nend\n"
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestFillSectionsRefusesMissingUnknownAndMismatchedMarkers(t *testing.T) {
	for name, doc := range map[string]string{
		"missing":    "<!-- results:begin a -->\n<!-- results:end a -->\n",
		"unknown":    "<!-- results:begin a -->\n<!-- results:end a -->\n<!-- results:begin b -->\n<!-- results:end b -->\n<!-- results:begin c -->\n<!-- results:end c -->\n",
		"mismatched": "<!-- results:begin a -->\n<!-- results:end b -->\n<!-- results:begin b -->\n<!-- results:end b -->\n",
		"twice":      "<!-- results:begin a -->\n<!-- results:end a -->\n<!-- results:begin a -->\n<!-- results:end a -->\n<!-- results:begin b -->\n<!-- results:end b -->\n",
	} {
		if _, err := fillSections([]byte(doc), map[string]string{"a": "x\n", "b": "y\n"}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestResultsFileRoundTrips writes a results file and reads it back: the
// tables made from both are the same.
func TestResultsFileRoundTrips(t *testing.T) {
	cases := workloads([]string{kindNoop, kindLatency}, scale{Tasks: 100})
	f := fakeFile(cases, libraries())
	path := filepath.Join(t.TempDir(), "results", "2026-01-02.json")
	if err := f.write(path); err != nil {
		t.Fatal(err)
	}
	g, err := readResultsFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var a, b strings.Builder
	writeTables(&a, f)
	writeTables(&b, g)
	if a.String() != b.String() || len(g.Runs) != len(f.Runs) {
		t.Errorf("tables differ after a round trip:\n%s\n%s", a.String(), b.String())
	}
}

// TestReportWritesThenChecks runs the report subcommand on a results file:
// it fills the sections and writes the chart, -check then passes, and
// fails once a generated line is edited by hand.
func TestReportWritesThenChecks(t *testing.T) {
	dir := t.TempDir()
	cases := workloads([]string{kindNoop, kindCPU}, scale{Tasks: 100, CPUIters: 1})
	results := filepath.Join(dir, "r.json")
	f := fakeFile(cases, libraries())
	f.Machine = machine{CPU: "Test CPU", Cores: 2, GOMAXPROCS: 2, OS: "linux", Arch: "amd64"}
	for _, w := range cases {
		f.Runs = append(f.Runs, runRecord{Run: 2, result: result{Lib: "ants", Workload: w.name, Tasks: 10, NsPerTask: 1000}})
	}
	if err := f.write(results); err != nil {
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
	os.WriteFile(bench, []byte(sections("run", "summary", "tables")), 0o644)
	os.WriteFile(readme, []byte(sections("readme-claim", "readme-table")), 0o644)
	args := []string{"-svg", svg, "-benchmarks", bench, "-readme", readme}

	if err := reportMain(append(args, "-check", results)); err == nil {
		t.Fatal("-check passed before the report was made")
	}
	if err := reportMain(append(args, results)); err != nil {
		t.Fatal(err)
	}
	if err := reportMain(append(args, "-check", results)); err != nil {
		t.Fatalf("-check after the report: %v", err)
	}
	b, _ := os.ReadFile(readme)
	for _, want := range []string{
		"Measured on 2026-01-02 on a 2-core Test CPU (go1.99, linux/amd64): a no-op task on a pool of 1000 workers costs 400 ns from 1 to 64 submitters, 0.40× what ants v2.12.1 costs and 0.50× a pool of 1000 goroutines",
		"| noop/cap=1000/sub=8 | **400** (0.50×) | 800 | 1000 |",
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("README lacks %q:\n%s", want, b)
		}
	}
	os.WriteFile(bench, []byte(strings.Replace(mustRead(t, bench), "| e62cffed/ants |", "| e62cffed/ants (edited) |", 1)), 0o644)
	if err := reportMain(append(args, "-check", results)); err == nil || !strings.Contains(err.Error(), "B.md") {
		t.Errorf("-check after a hand edit: %v", err)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
