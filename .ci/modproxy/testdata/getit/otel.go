// What a user of github.com/e62cffed/ants/otel builds first: a pool whose
// Stats are registered on an OpenTelemetry meter, and a collection that
// counts its tasks.
package main

import (
	"context"
	"fmt"
	"sync"

	"github.com/e62cffed/ants"
	antsotel "github.com/e62cffed/ants/otel"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

func main() {
	ctx := context.Background()
	reader := sdkmetric.NewManualReader()
	provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer provider.Shutdown(ctx)

	p, err := ants.NewPool(4)
	if err != nil {
		panic(err)
	}
	reg, err := antsotel.Register(provider.Meter("getit"), "work", p)
	if err != nil {
		panic(err)
	}
	defer reg.Unregister()
	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		wg.Add(1)
		if err := p.Submit(wg.Done); err != nil {
			panic(err)
		}
	}
	wg.Wait()
	if err := p.ReleaseContext(ctx); err != nil {
		panic(err)
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		panic(err)
	}
	completed := int64(-1)
	n := 0
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			n++
			if sum, ok := m.Data.(metricdata.Sum[int64]); ok && m.Name == "ants.pool.tasks.completed" {
				completed = sum.DataPoints[0].Value
			}
		}
	}
	if completed != 10 {
		panic(fmt.Sprintf("ants.pool.tasks.completed is %d, want 10", completed))
	}
	fmt.Println("antsotel:", n, "instruments, 10 tasks completed")
}
