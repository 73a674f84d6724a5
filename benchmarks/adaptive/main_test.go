package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/e62cffed/ants/internal/loadtest"
	"go.uber.org/goleak"
)

// TestMain fails the run if any test leaves a goroutine behind.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// synthetic is a result as a run would leave it, without the wait: an
// adaptive pool that climbs to 20 and a fixed one, with a few tasks that
// finish at once.
func synthetic() *result {
	cfg := defaults()
	cfg.phase1, cfg.phase2 = time.Second, time.Second
	r := &result{cfg: cfg}
	for i, name := range []string{"adaptive 1-256", "fixed 16"} {
		pr := poolResult{name: name, rec: loadtest.NewRecorder(time.Now())}
		task := pr.rec.Task(loadtest.NewDownstream(0, 0))
		for j := 0; j < 10; j++ {
			task()
		}
		for d := time.Duration(0); d < 2*time.Second; d += 10 * time.Millisecond {
			c := 16
			if i == 0 {
				c = min(1+int(d/(50*time.Millisecond)), 20)
			}
			pr.caps = append(pr.caps, loadtest.Point{At: d, Value: c})
		}
		r.pools = append(r.pools, pr)
	}
	return r
}

func TestChart(t *testing.T) {
	for _, name := range []string{"adaptive.svg", "adaptive.png"} {
		t.Run("writes "+filepath.Ext(name), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name)
			if err := writeChart(path, synthetic()); err != nil {
				t.Fatal(err)
			}
			if b, err := os.ReadFile(path); err != nil || len(b) < 1000 {
				t.Fatalf("read %d bytes, %v", len(b), err)
			}
		})
	}
	t.Run("without any finished task", func(t *testing.T) {
		r := synthetic()
		for i := range r.pools {
			r.pools[i].rec = loadtest.NewRecorder(time.Now())
		}
		if err := writeChart(filepath.Join(t.TempDir(), "adaptive.svg"), r); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("an unwritable path is an error", func(t *testing.T) {
		if writeChart(filepath.Join(t.TempDir(), "missing", "adaptive.svg"), synthetic()) == nil {
			t.Fatal("no error")
		}
	})
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-callers", "0"}, {"-k2", "0"}, {"-bucket", "0s"}, {"-nosuchflag"}} {
		var out, errOut bytes.Buffer
		if run(args, &out, &errOut) == nil {
			t.Errorf("%v: no error", args)
		}
	}
}

// TestRun runs both phases for a second in all, with 2 ms of work, and
// checks the table and the chart. -short skips it, as CI does.
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("a real run, about a second")
	}
	svg := filepath.Join(t.TempDir(), "adaptive.svg")
	var out, errOut bytes.Buffer
	err := run([]string{"-work", "2ms", "-phase1", "600ms", "-phase2", "400ms", "-bucket", "100ms", "-svg", svg}, &out, &errOut)
	if err != nil {
		t.Fatal(err, errOut.String())
	}
	if lines := strings.Split(strings.TrimSpace(out.String()), "\n"); len(lines) != 2+2*(1+len(fixedSizes)) {
		t.Errorf("%d lines in the table:\n%s", len(lines), out.String())
	}
	if want := "| fixed 256 | 800ms-1s | 8 | 256 |"; !strings.Contains(out.String(), want) {
		t.Errorf("no %q in the table:\n%s", want, out.String())
	}
	if _, err := os.Stat(svg); err != nil {
		t.Error(err)
	}
}
