package flowsfile

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

func TestWriteReadNewest(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "flows")
	if p, err := Newest(dir); p != "" || err != nil {
		t.Fatalf("Newest of a missing directory = %q, %v", p, err)
	}
	f := &File{Date: "2026-01-02", Go: "go1.99",
		Config:     Config{Workers: 2, Task: time.Millisecond, Lights: 3, Heavy: 3, Light: 0.3, HeavyFor: time.Second},
		Contenders: []Contender{{Name: "a", Role: RoleFlows}},
		Rows:       []Row{{Contender: "a", Offered: 5, Ran: 4, Refused: 1, LightP99Max: time.Millisecond}},
		Scenarios:  []Scenario{{Name: "s", Flows: []Flow{{Name: "x", Weight: 3}, {Name: "y", Weight: 1}}, Ratio: 3}},
		Shares:     []ShareRow{{Scenario: "s", Contender: "a", Started: []int{30, 10}, Ratio: 3, Jain: 1}},
	}
	for _, name := range []string{"2026-01-01.json", "2026-01-02.json"} {
		if err := f.Write(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	p, err := Newest(dir)
	if err != nil || filepath.Base(p) != "2026-01-02.json" {
		t.Fatalf("Newest = %q, %v", p, err)
	}
	g, err := Read(p)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f, g) {
		t.Errorf("read back %+v, wrote %+v", g, f)
	}
	if !g.Rows[0].Accounted() {
		t.Errorf("row %+v not accounted", g.Rows[0])
	}
	os.WriteFile(filepath.Join(dir, "2026-01-03.json"), []byte(`{"date": "x"}`), 0o644)
	if _, err := Read(filepath.Join(dir, "2026-01-03.json")); err == nil {
		t.Error("a file with no contenders read without error")
	}
}

func TestJain(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
	}{
		{nil, 0}, {[]float64{0, 0}, 0}, {[]float64{5}, 1}, {[]float64{2, 2, 2}, 1},
		{[]float64{1, 0, 0, 0}, 0.25}, {[]float64{3, 1}, 0.8},
	} {
		if got := Jain(c.xs); got < c.want-1e-12 || got > c.want+1e-12 {
			t.Errorf("Jain(%v) = %v, want %v", c.xs, got, c.want)
		}
	}
}
