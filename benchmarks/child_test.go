package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestRunChildPrintsOneResultLine(t *testing.T) {
	spec := `{"lib":"e62cffed/ants","workload":"noop/cap=1000/sub=8","scale":{"Tasks":500,"CPUIters":10,"Bursts":1}}`
	var out bytes.Buffer
	if err := runChild(spec, &out); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "\n"); n != 1 {
		t.Fatalf("child printed %d lines: %q", n, out.String())
	}
	var r result
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	if r.Lib != "e62cffed/ants" || r.Workload != "noop/cap=1000/sub=8" || r.Tasks != 500 {
		t.Errorf("result names %s %s %d tasks", r.Lib, r.Workload, r.Tasks)
	}
	if r.NsPerTask <= 0 || r.PeakGoroutines < 1 || r.PeakGoroutines > 1001 {
		t.Errorf("implausible result %+v", r)
	}
}

func TestRunChildRejectsUnknownNames(t *testing.T) {
	for _, spec := range []string{
		`{"lib":"nosuchpool","workload":"noop/cap=1000/sub=1","scale":{"Tasks":1}}`,
		`{"lib":"chanpool","workload":"nosuchworkload","scale":{"Tasks":1}}`,
		`not json`,
	} {
		if err := runChild(spec, new(bytes.Buffer)); err == nil {
			t.Errorf("runChild(%s) succeeded", spec)
		}
	}
}

// TestBurstyMeasuresIdleWorkersAfterTheGap runs a small bursty workload: the
// channel pool keeps its workers through the gap; ants-API pools, given a
// short expiry, have stopped theirs.
func TestBurstyMeasuresIdleWorkersAfterTheGap(t *testing.T) {
	w := workload{
		name:       "bursty-test",
		kind:       kindBursty,
		tasks:      2 * 50,
		submitters: 1,
		cfg:        poolConfig{capacity: 8, expiry: 10 * time.Millisecond},
		work:       func() { time.Sleep(time.Millisecond) },
		bursts:     2,
		gap:        300 * time.Millisecond, // ants stops idle workers within 2 expiries
	}
	for _, tc := range []struct {
		lib  library
		idle int
	}{
		{chanPoolLib{}, 8},
		{panjf2000Ants{}, 2}, // its purge and clock goroutines outlive the workers
	} {
		r, err := measure(tc.lib, w)
		if err != nil {
			t.Fatalf("%s: %v", tc.lib.name(), err)
		}
		if r.Tasks != 100 || r.NsPerTask <= 0 || r.IdleInUseBytes == 0 {
			t.Errorf("%s: implausible result %+v", tc.lib.name(), r)
		}
		if r.IdleGoroutines != tc.idle {
			t.Errorf("%s: %d goroutines after the idle gap, want %d", tc.lib.name(), r.IdleGoroutines, tc.idle)
		}
		if r.PeakGoroutines < 1 || r.PeakGoroutines > 8+2 {
			t.Errorf("%s: peak of %d goroutines at capacity 8", tc.lib.name(), r.PeakGoroutines)
		}
	}
}

// TestLatencyReportsPercentilesOfEveryTask runs a small latency workload on
// a pool that starts workers on demand and on both channel pools: every
// task is counted once, and the percentiles are ordered and plausible.
func TestLatencyReportsPercentilesOfEveryTask(t *testing.T) {
	for _, lib := range []library{e62cffedAnts{}, chanPoolLib{}, chanPoolLib{buffered: true}} {
		w := workload{
			name:       "latency-test",
			kind:       kindLatency,
			tasks:      100, // not a multiple of the burst: the last burst is short
			submitters: 1,
			cfg:        poolConfig{capacity: 16},
			work:       func() {},
			burst:      8,
		}
		r, err := measure(lib, w)
		if err != nil {
			t.Fatalf("%s: %v", lib.name(), err)
		}
		if r.Tasks != 100 || r.NsPerTask <= 0 {
			t.Errorf("%s: implausible result %+v", lib.name(), r)
		}
		if r.P50Ns <= 0 || r.P99Ns < r.P50Ns || r.P99Ns > float64(burstTimeout) {
			t.Errorf("%s: p50 %v ns, p99 %v ns", lib.name(), r.P50Ns, r.P99Ns)
		}
		if r.PeakGoroutines < 8 || r.PeakGoroutines > 16+1 {
			t.Errorf("%s: peak of %d goroutines for bursts of 8 at capacity 16", lib.name(), r.PeakGoroutines)
		}
	}
}

// TestLatencyFailsABurstThatCannotStart gives the latency workload a pool
// of 2 workers and bursts of 3: the third task can start only once one of
// the first two finishes, which waits for the third to start. The run must
// fail after burstTimeout, not hang, and leave no task behind.
func TestLatencyFailsABurstThatCannotStart(t *testing.T) {
	defer func(d time.Duration) { burstTimeout = d }(burstTimeout)
	burstTimeout = 100 * time.Millisecond
	w := workload{
		name:       "latency-stuck",
		kind:       kindLatency,
		tasks:      3,
		submitters: 1,
		cfg:        poolConfig{capacity: 2},
		work:       func() {},
		burst:      3,
	}
	// The buffered channel pool takes the third task into its buffer
	// without blocking the submitter, so only the gate can time out.
	_, err := measure(chanPoolLib{buffered: true}, w)
	if err == nil || !strings.Contains(err.Error(), "2 of 3 tasks started") {
		t.Errorf("err = %v, want a timeout after 2 of 3 tasks", err)
	}
}

func TestCPUTaskCalibratesToAPositiveCount(t *testing.T) {
	if n := calibrateCPU(cpuTaskTarget); n < 1 {
		t.Errorf("calibrateCPU = %d", n)
	}
}
