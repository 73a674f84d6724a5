package antsotel_test

import (
	"context"
	"errors"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// newMeter returns a meter of the real SDK and the ManualReader that
// collects from it. The provider is shut down when the test ends.
func newMeter(t testing.TB) (metric.Meter, *sdkmetric.ManualReader) {
	t.Helper()
	r := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(r))
	t.Cleanup(func() {
		if err := mp.Shutdown(context.Background()); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	})
	return mp.Meter("github.com/e62cffed/ants/otel/test"), r
}

// collect takes one collection and returns its metrics by name.
func collect(t *testing.T, r *sdkmetric.ManualReader) map[string]metricdata.Metrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	ms := map[string]metricdata.Metrics{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			ms[m.Name] = m
		}
	}
	return ms
}

// poolName returns the ants.pool.name of a point's attributes, or "" and
// false if it has none.
func poolName(s attribute.Set) (string, bool) {
	v, ok := s.Value("ants.pool.name")
	return v.AsString(), ok
}

// sumPoint returns the point of pool in a Sum, failing the test if m is
// not an int64 Sum or has no such point.
func sumPoint(t *testing.T, m metricdata.Metrics, pool string) (metricdata.Sum[int64], metricdata.DataPoint[int64]) {
	t.Helper()
	s, ok := m.Data.(metricdata.Sum[int64])
	if !ok {
		t.Fatalf("%s is a %T; want an int64 Sum", m.Name, m.Data)
	}
	for _, p := range s.DataPoints {
		if name, _ := poolName(p.Attributes); name == pool {
			return s, p
		}
	}
	t.Fatalf("%s has no point for pool %q", m.Name, pool)
	return s, metricdata.DataPoint[int64]{}
}

// floatSumPoint returns the point of pool in the float64 Sum named name in
// ms, failing the test if there is none.
func floatSumPoint(t *testing.T, ms map[string]metricdata.Metrics, name, pool string) (metricdata.Metrics, metricdata.Sum[float64], metricdata.DataPoint[float64]) {
	t.Helper()
	m, ok := ms[name]
	if !ok {
		t.Fatalf("no %s collected", name)
	}
	s, ok := m.Data.(metricdata.Sum[float64])
	if !ok {
		t.Fatalf("%s is a %T; want a float64 Sum", m.Name, m.Data)
	}
	for _, p := range s.DataPoints {
		if name, _ := poolName(p.Attributes); name == pool {
			return m, s, p
		}
	}
	t.Fatalf("%s has no point for pool %q", m.Name, pool)
	return m, s, metricdata.DataPoint[float64]{}
}

// histogramPoint returns the point of pool in the float64 Histogram named
// name in ms.
func histogramPoint(t *testing.T, ms map[string]metricdata.Metrics, name, pool string) metricdata.HistogramDataPoint[float64] {
	t.Helper()
	m, ok := ms[name]
	if !ok {
		t.Fatalf("no %s collected: nothing was recorded", name)
	}
	h, ok := m.Data.(metricdata.Histogram[float64])
	if !ok {
		t.Fatalf("%s is a %T; want a float64 Histogram", m.Name, m.Data)
	}
	for _, p := range h.DataPoints {
		if name, _ := poolName(p.Attributes); name == pool {
			return p
		}
	}
	t.Fatalf("%s has no point for pool %q", m.Name, pool)
	return metricdata.HistogramDataPoint[float64]{}
}

// refusingMeter is a meter that refuses to create the instrument named
// refuse, to test how its errors are passed on; it creates the others.
type refusingMeter struct {
	metric.Meter
	refuse string
}

var errRefused = errors.New("instrument refused")

func (m refusingMeter) Int64ObservableCounter(name string, opts ...metric.Int64ObservableCounterOption) (metric.Int64ObservableCounter, error) {
	if name == m.refuse {
		return nil, errRefused
	}
	return m.Meter.Int64ObservableCounter(name, opts...)
}

func (m refusingMeter) Float64ObservableUpDownCounter(name string, opts ...metric.Float64ObservableUpDownCounterOption) (metric.Float64ObservableUpDownCounter, error) {
	if name == m.refuse {
		return nil, errRefused
	}
	return m.Meter.Float64ObservableUpDownCounter(name, opts...)
}

func (m refusingMeter) Float64Histogram(name string, opts ...metric.Float64HistogramOption) (metric.Float64Histogram, error) {
	if name == m.refuse {
		return nil, errRefused
	}
	return m.Meter.Float64Histogram(name, opts...)
}

func (m refusingMeter) Int64Counter(name string, opts ...metric.Int64CounterOption) (metric.Int64Counter, error) {
	if name == m.refuse {
		return nil, errRefused
	}
	return m.Meter.Int64Counter(name, opts...)
}
