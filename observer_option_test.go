package ants_test

import (
	"testing"
	"time"

	"github.com/e62cffed/ants"
)

// namedObserver is an Observer that does nothing, told apart by its name.
type namedObserver string

func (namedObserver) TaskDone(wait, run time.Duration, panicked bool) {}

func TestWithObserverOption(t *testing.T) {
	apply := func(options ...ants.Option) ants.Options {
		var opts ants.Options
		for _, o := range options {
			o(&opts)
		}
		return opts
	}
	a, b := namedObserver("a"), namedObserver("b")

	t.Run("it sets Options.Observer", func(t *testing.T) {
		if got := apply(ants.WithObserver(a)).Observer; got != a {
			t.Fatalf("Observer %v; want %v", got, a)
		}
	})
	t.Run("a later WithObserver replaces an earlier one", func(t *testing.T) {
		if got := apply(ants.WithObserver(a), ants.WithObserver(b)).Observer; got != b {
			t.Fatalf("Observer %v; want %v", got, b)
		}
		if got := apply(ants.WithObserver(a), ants.WithObserver(nil)).Observer; got != nil {
			t.Fatalf("Observer %v after WithObserver(nil); want nil", got)
		}
	})
	t.Run("WithOptions carries it and replaces it", func(t *testing.T) {
		if got := apply(ants.WithOptions(ants.Options{Observer: a})).Observer; got != a {
			t.Fatalf("Observer %v; want %v", got, a)
		}
		if got := apply(ants.WithObserver(a), ants.WithOptions(ants.Options{})).Observer; got != nil {
			t.Fatalf("Observer %v after WithOptions without one; want nil", got)
		}
	})
	t.Run("every pool kind accepts it", func(t *testing.T) {
		opt := ants.WithObserver(a)
		p, err := ants.NewPool(1, opt)
		if err != nil {
			t.Fatal(err)
		}
		p.Release()
		pf, err := ants.NewPoolWithFunc(1, func(any) {}, opt)
		if err != nil {
			t.Fatal(err)
		}
		pf.Release()
		mp, err := ants.NewMultiPool(2, 1, ants.RoundRobin, opt)
		if err != nil {
			t.Fatal(err)
		}
		if err := mp.ReleaseTimeout(10 * time.Second); err != nil {
			t.Fatal(err)
		}
	})
}
