package antsprom_test

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/e62cffed/ants"
	antsprom "github.com/e62cffed/ants/prometheus"
)

// readmeWatch is the README's block on antsprom's TaskObserver, here so
// that it compiles; the root module's TestReadmeCodeCompiles checks that
// the README shows it as written.
func readmeWatch() {
	obs := antsprom.NewTaskObserver("work")
	p, _ := ants.NewPool(64, ants.WithQueueSize(256), ants.WithObserver(obs))
	prometheus.MustRegister(antsprom.NewCollector("work", p), obs)
	// ants_pool_task_wait_seconds{pool="work"}: submit call to start
	// ants_pool_task_run_seconds{pool="work"}:  running time, panics included
}

var _ = readmeWatch
