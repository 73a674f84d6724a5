package antsotel_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/e62cffed/ants"
	antsotel "github.com/e62cffed/ants/otel"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

// scrape prints the lines of url's metrics page that start with prefix and
// contain every one of parts.
func scrape(url, prefix string, parts ...string) {
	resp, err := http.Get(url)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
lines:
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		for _, part := range parts {
			if !strings.Contains(line, part) {
				continue lines
			}
		}
		fmt.Println(line)
	}
}

// A service that exports with OpenTelemetry registers the pool's Stats on
// its meter. Here the meter provider reads through the Prometheus exporter,
// served at /metrics; an OTLP exporter (otlpmetricgrpc, otlpmetrichttp)
// behind a PeriodicReader takes its place the same way. The pool runs ten
// tasks and is released; the scrape then shows what they did.
func ExampleRegister() {
	reg := prometheus.NewRegistry()
	exporter, err := otelprom.New(otelprom.WithRegisterer(reg),
		otelprom.WithoutScopeInfo(), otelprom.WithoutTargetInfo())
	if err != nil {
		fmt.Println(err)
		return
	}
	provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exporter))
	defer provider.Shutdown(context.Background())
	meter := provider.Meter("github.com/e62cffed/ants/otel")

	p, _ := ants.NewPool(4)
	registration, err := antsotel.Register(meter, "work", p)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer registration.Unregister()

	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	defer srv.Close()

	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		wg.Add(1)
		_ = p.Submit(wg.Done)
	}
	wg.Wait()
	_ = p.ReleaseContext(context.Background()) // waits for the workers to exit
	_ = p.Submit(func() {})                    // rejected: ErrPoolClosed

	scrape(srv.URL, "ants_pool_")
	// Output:
	// ants_pool_capacity{ants_pool_name="work"} 4
	// ants_pool_idle{ants_pool_name="work"} 0
	// ants_pool_paused{ants_pool_name="work"} 0
	// ants_pool_queued{ants_pool_name="work"} 0
	// ants_pool_rate_limit_burst{ants_pool_name="work"} +Inf
	// ants_pool_rate_limit_rate_per_second{ants_pool_name="work"} +Inf
	// ants_pool_tasks_completed_total{ants_pool_name="work"} 10
	// ants_pool_tasks_dropped_total{ants_pool_name="work"} 0
	// ants_pool_tasks_panicked_total{ants_pool_name="work"} 0
	// ants_pool_tasks_rejected_total{ants_pool_name="work"} 1
	// ants_pool_tasks_submitted_total{ants_pool_name="work"} 10
	// ants_pool_waiting{ants_pool_name="work"} 0
	// ants_pool_workers{ants_pool_name="work"} 0
}

// A TaskObserver is given to the pool; its two histograms, in seconds,
// reach Prometheus as ants_pool_task_wait_duration_seconds and
// ants_pool_task_run_duration_seconds. Here ten tasks ran, so each
// histogram counts ten.
func ExampleNewTaskObserver() {
	reg := prometheus.NewRegistry()
	exporter, err := otelprom.New(otelprom.WithRegisterer(reg),
		otelprom.WithoutScopeInfo(), otelprom.WithoutTargetInfo())
	if err != nil {
		fmt.Println(err)
		return
	}
	provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exporter))
	defer provider.Shutdown(context.Background())
	meter := provider.Meter("github.com/e62cffed/ants/otel")

	obs, err := antsotel.NewTaskObserver(meter, "work")
	if err != nil {
		fmt.Println(err)
		return
	}
	p, _ := ants.NewPool(4, ants.WithObserver(obs))
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	defer srv.Close()

	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		wg.Add(1)
		_ = p.Submit(wg.Done)
	}
	wg.Wait()
	_ = p.ReleaseContext(context.Background()) // the workers have exited: every task is recorded

	scrape(srv.URL, "ants_pool_task_", "_count")
	// Output:
	// ants_pool_task_run_duration_seconds_count{ants_pool_name="work"} 10
	// ants_pool_task_wait_duration_seconds_count{ants_pool_name="work"} 10
}
