package main

import (
	"context"
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run if any test leaves a goroutine behind.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestRun(t *testing.T) {
	t.Run("a bad flag is an error", func(t *testing.T) {
		if err := run(context.Background(), []string{"-pool", "many"}); err == nil {
			t.Fatal("run accepted -pool many")
		}
	})
	t.Run("it serves until its context is done and stops cleanly", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := run(ctx, []string{"-addr", "127.0.0.1:0", "-pool", "2"}); err != nil {
			t.Fatalf("run: %v", err)
		}
	})
	t.Run("an address it cannot listen on is an error", func(t *testing.T) {
		if err := run(context.Background(), []string{"-addr", "256.0.0.1:1"}); err == nil {
			t.Fatal("run listened on 256.0.0.1")
		}
	})
}
