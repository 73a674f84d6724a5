package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/e62cffed/ants"
)

// TestMain makes the test binary a child when the parent under test runs
// it as one, and fails the run if a test leaves a goroutine behind.
func TestMain(m *testing.M) {
	if sp, ok := os.LookupEnv(childEnv); ok {
		if err := runChild(sp, os.Stdout); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

// TestRunPrintsEveryRow is the command at a few thousand values: every
// way measured in a child process of its own, with the same checksum, a
// row per set, window and capacity in both tables.
func TestRunPrintsEveryRow(t *testing.T) {
	var out, errs bytes.Buffer
	args := []string{"-n", "2000", "-ncpu", "200", "-work", "1us", "-rounds", "1", "-windows", "4,P", "-caps", "P,50"}
	if err := run(args, &out, &errs); err != nil {
		t.Fatalf("run: %v\n%s", err, errs.String())
	}
	var rows []string
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(line, "| 2,000 no-op |") || strings.HasPrefix(line, "| 200 no-op |") || strings.HasPrefix(line, "| 200 × 1µs CPU |") {
			rows = append(rows, line)
		}
	}
	if len(rows) != 2*3*2*2 {
		t.Fatalf("%d rows, want 24:\n%s", len(rows), out.String())
	}
	for _, r := range rows {
		if strings.Contains(r, "|  |") || strings.Count(r, "|") < 10 {
			t.Errorf("row with an empty cell: %s", r)
		}
	}
	if !strings.Contains(out.String(), "Map 0.") {
		t.Errorf("no allocation count for Map:\n%s", out.String())
	}
}

// TestMeasureChecksOrder: a way that yields out of order is caught.
func TestMeasureChecksOrder(t *testing.T) {
	ways = append(ways, way{name: "reversed", ordered: true, run: runReversed})
	defer func() { ways = ways[:len(ways)-1] }()
	if _, err := measure(spec{Lib: "reversed", Values: 10, Window: 2}); err == nil || !strings.Contains(err.Error(), "out of order") {
		t.Errorf("measure of a reversed way: %v", err)
	}
	if _, err := measure(spec{Lib: "nosuchway", Values: 10, Window: 2}); err == nil {
		t.Error("measure of an unknown way succeeded")
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-windows", "0"},
		{"-caps", "many"},
		{"-ways", "rill"},
		{"-n", "5"},
	} {
		var out, errs bytes.Buffer
		if err := run(args, &out, &errs); err == nil {
			t.Errorf("run %q: no error", args)
		}
	}
}

// runReversed uses the results last first.
func runReversed(_ *ants.Pool, _ int, seq func(func(int) bool), fn mapFn, use func(int)) error {
	var rs []int
	for v := range seq {
		r, _ := fn(context.Background(), v)
		rs = append(rs, r)
	}
	for i := len(rs) - 1; i >= 0; i-- {
		use(rs[i])
	}
	return nil
}
