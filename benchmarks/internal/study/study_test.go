package study

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestQuantile(t *testing.T) {
	var s []time.Duration
	for i := 1; i <= 100; i++ {
		s = append(s, time.Duration(i))
	}
	for q, want := range map[float64]time.Duration{0.5: 50, 0.99: 99, 1: 100, 0: 1} {
		if got := Quantile(s, q); got != want {
			t.Errorf("Quantile(1..100, %v) = %v, want %v", q, got, want)
		}
	}
	if got := Quantile(nil, 0.5); got != 0 {
		t.Errorf("Quantile(nil) = %v", got)
	}
}

func TestWithin(t *testing.T) {
	want := errors.New("f's")
	if err := Within(time.Minute, func() error { return want }); err != want {
		t.Errorf("Within returned %v, want f's error", err)
	}
	release := make(chan struct{})
	defer close(release)
	if err := Within(time.Millisecond, func() error { <-release; return nil }); !errors.Is(err, ErrStalled) {
		t.Errorf("Within of a stalled f returned %v", err)
	}
}

func TestJSONAndNewest(t *testing.T) {
	dir := t.TempDir()
	type doc struct{ A int }
	for i, name := range []string{"2026-01-01.json", "2026-01-02.json"} {
		if err := WriteJSON(filepath.Join(dir, "r", name), doc{i}); err != nil {
			t.Fatal(err)
		}
	}
	p, err := Newest(filepath.Join(dir, "r"))
	if err != nil || filepath.Base(p) != "2026-01-02.json" {
		t.Fatalf("Newest = %q, %v", p, err)
	}
	var got doc
	if err := ReadJSON(p, &got); err != nil || !reflect.DeepEqual(got, doc{1}) {
		t.Errorf("ReadJSON = %+v, %v", got, err)
	}
	if p, err := Newest(filepath.Join(dir, "none")); p != "" || err != nil {
		t.Errorf("Newest of no directory = %q, %v", p, err)
	}
}

func TestStampAndBounds(t *testing.T) {
	commit := strings.Repeat("a", 40)
	s := Stamp("2026-01-02", time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC), "1m", Machine{CPU: "C", Cores: 2, GOMAXPROCS: 2, OS: "linux", Arch: "amd64"}, "go1.99", commit, true, "0.5")
	for _, want := range []string{"2026-01-02 (03:04 UTC, 1m in all)", "2-core C", "[`aaaaaaaaaaaa`]", "with uncommitted changes", "load average before the run 0.5"} {
		if !strings.Contains(s, want) {
			t.Errorf("Stamp lacks %q: %s", want, s)
		}
	}
	var b strings.Builder
	WriteBounds(&b, "x", true, []Target{{Name: "a", Met: true, Measured: "1"}, {Name: "b", Measured: "2"}})
	want := "The bounds the design aims at, for x, as this run measured them:\n\n- a: holds (1)\n- b: **does not hold** (2)\n"
	if b.String() != want {
		t.Errorf("WriteBounds wrote %q, want %q", b.String(), want)
	}
}
