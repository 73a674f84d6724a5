package antsprom_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/e62cffed/ants"
	antsprom "github.com/e62cffed/ants/prometheus"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// A service registers one collector per pool and serves /metrics with
// promhttp. Here the pool runs ten tasks and is released; the scrape then
// shows what they did.
func ExampleNewCollector() {
	p, _ := ants.NewPool(4)

	reg := prometheus.NewRegistry()
	reg.MustRegister(antsprom.NewCollector("work", p))
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		wg.Add(1)
		_ = p.Submit(wg.Done)
	}
	wg.Wait()
	_ = p.ReleaseContext(context.Background()) // waits for the workers to exit
	_ = p.Submit(func() {})                    // rejected: ErrPoolClosed

	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if line := sc.Text(); strings.HasPrefix(line, "ants_pool_") {
			fmt.Println(line)
		}
	}
	// Output:
	// ants_pool_capacity_workers{pool="work"} 4
	// ants_pool_completed_tasks_total{pool="work"} 10
	// ants_pool_dropped_tasks_total{pool="work"} 0
	// ants_pool_idle_workers{pool="work"} 0
	// ants_pool_panicked_tasks_total{pool="work"} 0
	// ants_pool_paused{pool="work"} 0
	// ants_pool_queued_tasks{pool="work"} 0
	// ants_pool_rate_limit_burst_tasks{pool="work"} +Inf
	// ants_pool_rate_limit_tasks_per_second{pool="work"} +Inf
	// ants_pool_rejected_tasks_total{pool="work"} 1
	// ants_pool_running_workers{pool="work"} 0
	// ants_pool_submitted_tasks_total{pool="work"} 10
	// ants_pool_waiting_callers{pool="work"} 0
}

// A TaskObserver is given to the pool and registered beside its collector;
// the scrape then has the wait and run time of every task. Here ten tasks
// ran, so each histogram counts ten.
func ExampleNewTaskObserver() {
	obs := antsprom.NewTaskObserver("work")
	p, _ := ants.NewPool(4, ants.WithObserver(obs))

	reg := prometheus.NewRegistry()
	reg.MustRegister(antsprom.NewCollector("work", p), obs)
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		wg.Add(1)
		_ = p.Submit(wg.Done)
	}
	wg.Wait()
	_ = p.ReleaseContext(context.Background()) // the workers have exited: every task is observed

	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if line := sc.Text(); strings.HasPrefix(line, "ants_pool_task_") && strings.Contains(line, "_count") {
			fmt.Println(line)
		}
	}
	// Output:
	// ants_pool_task_drop_wait_seconds_count{pool="work"} 0
	// ants_pool_task_run_seconds_count{pool="work"} 10
	// ants_pool_task_wait_seconds_count{pool="work"} 10
}
