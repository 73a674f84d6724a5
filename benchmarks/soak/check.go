package main

import "fmt"

// The soak's margins for "no growth over time": the level of the last
// window may exceed the level just after warm-up by growthFactor plus a
// slack. The slack absorbs what moves without growing: RSS by the heap's
// size between two GCs and the tuner's cycle (a quarter to all of -pool
// workers, and the requests they hold); goroutines by HTTP connections,
// which a stall of the machine makes vegeta open and their idle timeout
// closes again: up to one per worker, three goroutines each (the client's
// read and write loops and the server's). A leak of one goroutine, or a
// few hundred bytes, per request exceeds them within seconds at the
// soak's rates; a slower leak needs a longer run.
const (
	growthFactor      = 1.25
	rssSlackMiB       = 8.0
	goroutinesPerConn = 3
)

// A shed is fast if its p99 latency, as the client sees it, is below the
// duration of the work: it never waited for a worker.
const shedFastFractionP99 = 1.0

// check is one pass/fail verdict of a soak run.
type check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
}

// evaluate fills in rep.Checks and reports whether all passed.
func evaluate(rep *report) bool {
	v := rep.Violations
	work := ms(rep.Config.Work)
	goroutineSlack := float64(goroutinesPerConn * rep.Config.Workers)
	checks := []check{
		{
			Name: "every accepted request's task ran exactly once",
			OK:   rep.Accepted.N > 0 && v.broken() == 0 && rep.Errors == 0,
			Detail: fmt.Sprintf("%d accepted; %d ran twice, %d never ran, %d shed yet ran, %d ran unanswered, %d bad ids; %d requests failed",
				rep.Accepted.N, v.DoubleRuns, v.MissingRuns, v.ShedRan, v.Unmatched, v.UnknownIDs, rep.Errors),
		},
		{
			Name: "shed requests got 503 fast",
			OK:   rep.Shed.N == 0 || rep.Shed.P99ms < shedFastFractionP99*work,
			Detail: fmt.Sprintf("%d shed; p50 %.2f ms, p99 %.2f ms (limit %.0f ms, the work's duration), max %.1f ms",
				rep.Shed.N, rep.Shed.P50ms, rep.Shed.P99ms, shedFastFractionP99*work, rep.Shed.Maxms),
		},
		{
			Name:   "no goroutine left after shutdown",
			OK:     rep.LeftoverGoroutines == 0 && rep.ServeErr == "",
			Detail: fmt.Sprintf("%d left beyond those before the run; shutdown error: %q", rep.LeftoverGoroutines, rep.ServeErr),
		},
		{
			Name: "RSS flat after warm-up",
			OK:   rep.Window > 0 && (rep.End.RSSMiB == 0 || rep.End.RSSMiB <= growthFactor*rep.Warm.RSSMiB+rssSlackMiB),
			Detail: fmt.Sprintf("median of %d s: %.1f MiB after warm-up, %.1f MiB at the end (limit %.2fx + %.0f MiB = %.1f)",
				rep.Window, rep.Warm.RSSMiB, rep.End.RSSMiB, growthFactor, rssSlackMiB, growthFactor*rep.Warm.RSSMiB+rssSlackMiB),
		},
		{
			Name: "goroutines flat after warm-up",
			OK:   rep.Window > 0 && rep.End.Goroutines <= growthFactor*rep.Warm.Goroutines+goroutineSlack,
			Detail: fmt.Sprintf("median of %d s: %.0f after warm-up, %.0f at the end (limit %.2fx + %.0f for %d connections = %.0f)",
				rep.Window, rep.Warm.Goroutines, rep.End.Goroutines, growthFactor, goroutineSlack, rep.Config.Workers,
				growthFactor*rep.Warm.Goroutines+goroutineSlack),
		},
		{
			Name:   "every task the side pool accepted ran",
			OK:     rep.SideAccepted == rep.SideRan,
			Detail: fmt.Sprintf("%d release/reboot cycles; %d accepted, %d ran", rep.SideCycles, rep.SideAccepted, rep.SideRan),
		},
		{
			Name:   "every /metrics scrape served the pool's series",
			OK:     rep.ScrapeErrors == 0,
			Detail: fmt.Sprintf("%d scrapes, %d failed", rep.Scrapes, rep.ScrapeErrors),
		},
	}
	if rep.FinalRelease.Done || rep.Config.Variant == everyFeature {
		f := rep.FinalRelease
		checks = append(checks,
			check{
				Name: "ReleaseTimeout at the end returned nil with every accepted task run",
				OK:   f.ok(),
				Detail: fmt.Sprintf("returned %q; %d tasks accepted, %d finished when it returned",
					f.Err, f.Accepted, f.Finished),
			},
			check{
				Name: "every side-pool release that returned nil had run every accepted task",
				OK:   rep.SideBroken == 0,
				Detail: fmt.Sprintf("%d returned nil too early; %d Pause/Resume windows, %d rate-limit changes",
					rep.SideBroken, rep.Pauses, rep.RateChanges),
			})
	}
	rep.Checks = checks
	ok := true
	for _, c := range checks {
		ok = ok && c.OK
	}
	return ok
}
