package main

import (
	"fmt"
	"io"
	"strings"
)

// writeReport prints the reports side by side as a markdown table, then
// every check of every run.
func writeReport(w io.Writer, reports []*report) {
	if len(reports) == 0 {
		return
	}
	c := reports[0].Config
	fmt.Fprintf(w, "%s per variant, %d requests/s offered, work %v, pool tuned %v every %v (capacity %.0f down to %.0f requests/s), task buffer %d, side pool of %d released and rebooted every %v, warm-up %v.\n\n",
		c.Duration, c.Rate, c.Work, c.tuneSizes()[:3], c.TuneEvery, c.capacity(c.PoolSize), c.capacity(c.tuneSizes()[2]),
		c.Queue, c.SideSize, c.ChurnEvery, c.WarmUp)

	row := func(name string, cell func(r *report) string) {
		cells := make([]string, len(reports))
		for i, r := range reports {
			cells[i] = cell(r)
		}
		fmt.Fprintf(w, "| %s | %s |\n", name, strings.Join(cells, " | "))
	}
	header := make([]string, len(reports))
	for i, r := range reports {
		header[i] = r.Config.Variant
	}
	fmt.Fprintf(w, "| | %s |\n|---|%s\n", strings.Join(header, " | "), strings.Repeat("---:|", len(reports)))
	secs := func(r *report) float64 { return r.Config.Duration.Seconds() }
	row("requests sent", func(r *report) string { return fmt.Sprintf("%d", r.Sent) })
	row("accepted (200) per s", func(r *report) string { return fmt.Sprintf("%.0f", float64(r.Accepted.N)/secs(r)) })
	row("shed (503) per s", func(r *report) string { return fmt.Sprintf("%.0f", float64(r.Shed.N)/secs(r)) })
	row("failed requests", func(r *report) string { return fmt.Sprintf("%d", r.Errors) })
	row("accepted latency p50 / p99 / max, ms", func(r *report) string {
		return fmt.Sprintf("%.1f / %.1f / %.0f", r.Accepted.P50ms, r.Accepted.P99ms, r.Accepted.Maxms)
	})
	row("shed latency p50 / p99 / max, ms", func(r *report) string {
		if r.Shed.N == 0 {
			return "none shed"
		}
		return fmt.Sprintf("%.2f / %.2f / %.0f", r.Shed.P50ms, r.Shed.P99ms, r.Shed.Maxms)
	})
	row("RSS MiB: after warm-up → end (peak)", func(r *report) string {
		return fmt.Sprintf("%.1f → %.1f (%.1f)", r.Warm.RSSMiB, r.End.RSSMiB, r.Peak.RSSMiB)
	})
	row("heap MiB: after warm-up → end (peak)", func(r *report) string {
		return fmt.Sprintf("%.1f → %.1f (%.1f)", r.Warm.HeapMiB, r.End.HeapMiB, r.Peak.HeapMiB)
	})
	row("goroutines: after warm-up → end (peak)", func(r *report) string {
		return fmt.Sprintf("%.0f → %.0f (%.0f)", r.Warm.Goroutines, r.End.Goroutines, r.Peak.Goroutines)
	})
	row("Tunes / side-pool release+reboot cycles", func(r *report) string { return fmt.Sprintf("%d / %d", r.Tunes, r.SideCycles) })
	levels := 0
	for _, r := range reports {
		levels = max(levels, len(r.Levels))
	}
	for l := 0; l < levels; l++ {
		row(fmt.Sprintf("priority %d: accepted, p50 / p99 ms", l), func(r *report) string {
			if l >= len(r.Levels) {
				return "-"
			}
			return fmt.Sprintf("%d, %.1f / %.1f", r.Levels[l].N, r.Levels[l].P50ms, r.Levels[l].P99ms)
		})
	}
	if levels > 0 {
		row("Pause/Resume windows / SetRateLimit changes", func(r *report) string {
			return fmt.Sprintf("%d / %d", r.Pauses, r.RateChanges)
		})
		row("ReleaseTimeout at the end: accepted = finished", func(r *report) string {
			f := r.FinalRelease
			if !f.Done {
				return "-"
			}
			return fmt.Sprintf("%q: %d = %d", f.Err, f.Accepted, f.Finished)
		})
	}
	row("goroutines left after shutdown", func(r *report) string { return fmt.Sprintf("%d", r.LeftoverGoroutines) })
	row("checks", func(r *report) string {
		var failed []string
		for _, c := range r.Checks {
			if !c.OK {
				failed = append(failed, c.Name)
			}
		}
		if len(failed) == 0 {
			return fmt.Sprintf("all %d pass", len(r.Checks))
		}
		return "FAILED: " + strings.Join(failed, "; ")
	})
	fmt.Fprintln(w)
	for _, r := range reports {
		fmt.Fprintf(w, "%s (%s):\n\n", r.Config.Variant, r.Note)
		for _, c := range r.Checks {
			mark := "pass"
			if !c.OK {
				mark = "FAIL"
			}
			fmt.Fprintf(w, "- %s: %s — %s\n", mark, c.Name, c.Detail)
		}
		for _, e := range r.ErrorText {
			fmt.Fprintf(w, "- a failed request: %s\n", e)
		}
		fmt.Fprintln(w)
	}
}
