package main

import (
	"strings"
	"testing"
	"time"
)

// testConfig is the short soak CI runs: about 25 s. Its largest pool serves
// 8 / 40 ms = 200 requests a second and 300 are offered.
func testConfig() config {
	return config{
		Variant:    "e62cffed/ants",
		Duration:   25 * time.Second,
		WarmUp:     8 * time.Second,
		Rate:       300,
		PoolSize:   8,
		Queue:      8,
		Work:       40 * time.Millisecond,
		TuneEvery:  time.Second,
		ChurnEvery: 100 * time.Millisecond,
		SideSize:   4,
		Workers:    64,
		Timeout:    10 * time.Second,
	}
}

// TestSoak drives the example service at a rate above its pool's capacity
// while the pool is tuned and a side pool released and rebooted, and holds
// the run to every check of check.go: each accepted request's task ran
// exactly once, sheds were fast, no goroutine was left after shutdown, and
// RSS and goroutines at the end are within the stated margins of their
// level after warm-up.
func TestSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("the soak takes about 25 s; CI runs it in a step of its own")
	}
	rep := runChecked(t, testConfig())
	if rep.Shed.N == 0 || rep.Tunes == 0 || rep.SideCycles == 0 {
		t.Errorf("the soak did not do what it is for: %d shed, %d tunes, %d side-pool cycles", rep.Shed.N, rep.Tunes, rep.SideCycles)
	}
}

// runChecked runs the soak of cfg, logs its report, fails the test if a
// check of check.go failed, and returns the report.
func runChecked(t *testing.T, cfg config) *report {
	t.Helper()
	rep, err := soak(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	ok := evaluate(rep)
	var b strings.Builder
	writeReport(&b, []*report{rep})
	t.Log("\n" + b.String())
	if !ok {
		t.Error("a check failed; see the report above")
	}
	return rep
}

// TestSoakEveryFeature is TestSoak for the every-feature variant, with its
// periods shortened to fit: requests at three priority levels, a
// maintenance window of a second every 6 s, a new rate limit every 3 s,
// the tuner, the side pool's releases raced by a new limit, and the
// ReleaseTimeout at the end checked against the tasks accepted.
func TestSoakEveryFeature(t *testing.T) {
	if testing.Short() {
		t.Skip("the soak takes about 25 s; CI runs it in a step of its own")
	}
	cfg := testConfig()
	cfg.Variant = everyFeature
	cfg.Levels, cfg.PauseEvery, cfg.PauseFor, cfg.RateEvery = 3, 6*time.Second, time.Second, 3*time.Second
	rep := runChecked(t, cfg)
	if rep.Shed.N == 0 || rep.Tunes == 0 || rep.SideCycles == 0 || rep.Pauses == 0 || rep.RateChanges == 0 ||
		!rep.FinalRelease.Done || len(rep.Levels) != 3 {
		t.Errorf("the soak did not do what it is for: %d shed, %d tunes, %d side-pool cycles, %d pauses, "+
			"%d rate changes, final release %+v, %d levels",
			rep.Shed.N, rep.Tunes, rep.SideCycles, rep.Pauses, rep.RateChanges, rep.FinalRelease, len(rep.Levels))
	}
	for l, lat := range rep.Levels {
		if lat.N == 0 {
			t.Errorf("no request of priority %d was accepted", l)
		}
	}
}
