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
		r := measure(tc.lib, w)
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

func TestCPUTaskCalibratesToAPositiveCount(t *testing.T) {
	if n := calibrateCPU(cpuTaskTarget); n < 1 {
		t.Errorf("calibrateCPU = %d", n)
	}
}
