package main

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// root is the package whose documentation the tests check, as go doc
// takes it.
const root = "github.com/e62cffed/ants"

func TestReadAPI(t *testing.T) {
	a, err := readAPI("testdata/ref")
	if err != nil {
		t.Fatal(err)
	}
	wantFuncs := []string{"NewPool", "Release", "ReleaseContext", "WithPreAlloc"}
	if !reflect.DeepEqual(a.funcs, wantFuncs) {
		t.Errorf("funcs = %v, want %v", a.funcs, wantFuncs)
	}
	wantMethods := map[string][]string{
		"Pool":                {"Frobnicate", "Submit", "Tune"},
		"PoolWithFunc":        {"Invoke"},
		"PoolWithFuncGeneric": {"Invoke"},
		"Option":              nil,
		"Options":             nil,
	}
	if !reflect.DeepEqual(a.methods, wantMethods) {
		t.Errorf("methods = %v, want %v", a.methods, wantMethods)
	}
}

func TestParseListing(t *testing.T) {
	out := `type PoolWithFuncGeneric[T any] struct {
	*poolCore[T]
}
func NewPoolWithFuncGeneric[T any](size int, pf func(T), options ...Option) (*PoolWithFuncGeneric[T], error)
func (p PoolWithFuncGeneric) Cap() int
func (p *PoolWithFuncGeneric[T]) Invoke(arg T) error
func (p *WorkerPool[T, R]) Go(ctx context.Context, arg T) *Future[R]
func Map[T, R any](ctx context.Context, s Submitter, window int, seq func(yield func(T) bool), ...) func(yield func(R, error) bool)
    func (p Pool) Cap() int
`
	l := parseListing(out)
	wantFuncs := map[string]bool{"NewPoolWithFuncGeneric": true, "Map": true}
	if !reflect.DeepEqual(l.funcs, wantFuncs) {
		t.Errorf("funcs = %v, want %v", l.funcs, wantFuncs)
	}
	wantMethods := map[string]map[string]bool{
		"PoolWithFuncGeneric": {"Cap": true, "Invoke": true},
		"WorkerPool":          {"Go": true},
	}
	if !reflect.DeepEqual(l.methods, wantMethods) {
		t.Errorf("methods = %v, want %v", l.methods, wantMethods)
	}
}

// fakeDoc is a go doc whose listings are given.
func fakeDoc(listings map[string]string) func(string) (string, error) {
	return func(sym string) (string, error) {
		out, ok := listings[sym]
		if !ok {
			return "", errors.New("no symbol " + sym)
		}
		return out, nil
	}
}

func TestCheck(t *testing.T) {
	ref := &api{
		funcs: []string{"NewPool", "Release", "WithPreAlloc"},
		methods: map[string][]string{
			"Pool":         {"Submit", "Tune"},
			"PoolWithFunc": {"Cap", "Invoke"},
			"Options":      nil,
		},
	}
	complete := map[string]string{
		"":             "func Release()\n",
		"Pool":         "type Pool struct{}\nfunc NewPool(size int) (*Pool, error)\nfunc (p *Pool) Submit(task func()) error\nfunc (p Pool) Tune(size int)\n",
		"PoolWithFunc": "type PoolWithFunc struct{}\nfunc (p PoolWithFunc) Cap() int\nfunc (p *PoolWithFunc) Invoke(arg any) error\n",
		"Options":      "type Options struct{}\n",
		"WithPreAlloc": "func WithPreAlloc(preAlloc bool) Option\n",
	}
	if got := check(ref, fakeDoc(complete)); len(got) != 0 {
		t.Errorf("complete listing: check = %q, want nothing", got)
	}

	// go doc's listing of PoolWithFunc without the methods of an exported
	// embedded type, a type missing, and a function go doc cannot find.
	broken := map[string]string{
		"":             "func Release()\n",
		"Pool":         complete["Pool"],
		"PoolWithFunc": "type PoolWithFunc struct{ PoolWithFuncGeneric[any] }\nfunc (p PoolWithFunc) Cap() int\n",
	}
	want := []string{
		"type Options: no symbol Options",
		"method PoolWithFunc.Invoke: not listed by go doc PoolWithFunc",
		"func WithPreAlloc: not listed by go doc",
	}
	if got := check(ref, fakeDoc(broken)); !reflect.DeepEqual(got, want) {
		t.Errorf("broken listing: check =\n%q\nwant\n%q", got, want)
	}

	// A method listed under another type does not count.
	moved := map[string]string{}
	for k, v := range complete {
		moved[k] = v
	}
	moved["PoolWithFunc"] = "type PoolWithFunc struct{}\nfunc (p PoolWithFunc) Cap() int\nfunc (p *PoolWithFuncGeneric[T]) Invoke(arg T) error\n"
	want = []string{"method PoolWithFunc.Invoke: not listed by go doc PoolWithFunc"}
	if got := check(ref, fakeDoc(moved)); !reflect.DeepEqual(got, want) {
		t.Errorf("method under another type: check = %q, want %q", got, want)
	}
}

// TestRoot runs the check with the real go doc on the root package, against
// testdata/ref: everything there but Pool.Frobnicate is listed.
func TestRoot(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go doc")
	}
	ref, err := readAPI("testdata/ref")
	if err != nil {
		t.Fatal(err)
	}
	got := check(ref, goDoc(root))
	want := []string{"method Pool.Frobnicate: not listed by go doc Pool"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("check = %q, want %q", got, want)
	}

	err = run("testdata/ref", root)
	if err == nil || !strings.Contains(err.Error(), "1 of the reference API's names missing") {
		t.Errorf("run = %v, want the one name missing", err)
	}
}
