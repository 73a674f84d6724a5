package overloadfile

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

func TestWriteReadNewest(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "overload")
	if p, err := Newest(dir); p != "" || err != nil {
		t.Fatalf("Newest of a missing directory = %q, %v", p, err)
	}
	f := &File{Date: "2026-01-02", Go: "go1.99",
		Config:     Config{Workers: 2, Task: time.Millisecond, Deadline: 10 * time.Millisecond},
		Contenders: []Contender{{Name: "a", Role: RoleTarget}},
		Loads:      []LoadInfo{{Name: "2×", Sustained: true, Multiple: 2}},
		Rows:       []Row{{Contender: "a", Load: "2×", Seconds: 1, Offered: 5, Success: 2, Late: 1, Expired: 1, Refused: 1, P99: time.Millisecond}},
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
	if r := g.Rows[0]; !r.Accounted() || r.Ran() != 3 || r.Wasted() < 0.33 || r.Wasted() > 0.34 {
		t.Errorf("row %+v: accounted %v, ran %d, wasted %v", r, r.Accounted(), r.Ran(), r.Wasted())
	}
	os.WriteFile(filepath.Join(dir, "2026-01-03.json"), []byte(`{"date": "x"}`), 0o644)
	if _, err := Read(filepath.Join(dir, "2026-01-03.json")); err == nil {
		t.Error("a file with no contenders read without error")
	}
}
