package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// TestMain fails the run if any test leaves a goroutine behind.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// TestRunPrintsEveryLevel is the command at a tenth of a second of
// arrivals: a row per mode, d and level, highest level first.
func TestRunPrintsEveryLevel(t *testing.T) {
	var out, errs bytes.Buffer
	args := []string{"-capacity", "4", "-duration", "100ms", "-levels", "3", "-aging", "0,20ms"}
	if err := run(args, &out, &errs); err != nil {
		t.Fatalf("run: %v\n%s", err, errs.String())
	}
	var rows []string
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(line, "| blocked") || strings.HasPrefix(line, "| buffered") {
			rows = append(rows, line)
		}
	}
	if len(rows) != 2*2*3 {
		t.Fatalf("%d rows, want 12:\n%s", len(rows), out.String())
	}
	if !strings.HasPrefix(rows[0], "| blocked | strict | 2 |") || !strings.HasPrefix(rows[11], "| buffered | 20ms | 0 |") {
		t.Errorf("rows out of order:\n%s", out.String())
	}
}

// TestStrictLevelsServeTheTopFirst checks the measurement itself: overloaded
// twice over with strict levels, the top level's median wait is below the
// bottom one's, which waits for the arrivals to stop.
func TestStrictLevelsServeTheTopFirst(t *testing.T) {
	cfg := defaults()
	cfg.capacity, cfg.levels, cfg.duration = 4, 2, 100*time.Millisecond
	rate := 2 * float64(cfg.capacity) / cfg.task.Seconds()
	for _, mode := range []string{modeBlocked, modeBuffered} {
		res, err := measure(cfg, mode, 0, rate)
		if err != nil {
			t.Fatal(err)
		}
		low, high := res.levels[0], res.levels[1]
		if len(low.waits) == 0 || len(high.waits) == 0 {
			t.Fatalf("%s: no waits: %+v", mode, res)
		}
		if l, h := low.waits[len(low.waits)/2], high.waits[len(high.waits)/2]; h >= l {
			t.Errorf("%s: median wait of level 1 %v, of level 0 %v", mode, h, l)
		}
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-aging", "-1s"},
		{"-aging", "soon"},
		{"-modes", "queued"},
		{"-capacity", "0"},
	} {
		var out, errs bytes.Buffer
		if err := run(args, &out, &errs); err == nil {
			t.Errorf("run %q: no error", args)
		}
	}
}
