// Command antsdoc checks that this package's reference documentation, as
// go doc shows it, lists everything an ants user calls: every exported
// function of github.com/panjf2000/ants/v2 v2.12.1, and every exported
// method of each of its exported types under the type of the same name
// here. go doc leaves out the methods a type gets from an exported
// embedded type (PoolWithFunc's from PoolWithFuncGeneric[any], say), so a
// method can be in the method set, and pass apidiff, and still be missing
// from the type's page; this check catches that.
//
//	go run ./internal/antsdoc [-ref DIR] [-pkg PKG]
//
// -ref is the directory of ants' source; by default it is the one that
// "go mod download -json github.com/panjf2000/ants/v2@v2.12.1" names.
// -pkg is the package to check, as go doc takes it (default ".", run from
// the repository root). It reads ants' non-test files with go/parser and
// this package's listing with "go doc -short PKG TYPE", prints one line
// for each thing missing, and exits 1 if there is any.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
)

// antsRef is the module and version whose API the documentation must list.
const antsRef = "github.com/panjf2000/ants/v2@v2.12.1"

func main() {
	ref := flag.String("ref", "", "directory of the reference package's source (default: "+antsRef+" from the module cache)")
	pkg := flag.String("pkg", ".", "package to check, as go doc takes it")
	flag.Parse()
	if err := run(*ref, *pkg); err != nil {
		fmt.Fprintln(os.Stderr, "antsdoc:", err)
		os.Exit(1)
	}
}

// run checks pkg's documentation against the package in dir (antsRef's if
// dir is empty) and returns an error that lists what is missing.
func run(dir, pkg string) error {
	if dir == "" {
		var err error
		if dir, err = moduleDir(antsRef); err != nil {
			return err
		}
	}
	ref, err := readAPI(dir)
	if err != nil {
		return err
	}
	missing := check(ref, goDoc(pkg))
	if len(missing) > 0 {
		for _, m := range missing {
			fmt.Println(m)
		}
		return fmt.Errorf("%d of the reference API's names missing from go doc's listing of %s: "+
			"declare the method on the type itself (a thin method that calls the embedded one) "+
			"so that go doc lists it", len(missing), pkg)
	}
	n := len(ref.funcs)
	for _, ms := range ref.methods {
		n += len(ms)
	}
	fmt.Printf("go doc lists all %d functions and methods of %s's %d types and package\n", n, dir, len(ref.methods))
	return nil
}

// moduleDir returns the directory of module@version in the module cache,
// downloading it if need be.
func moduleDir(modver string) (string, error) {
	out, err := exec.Command("go", "mod", "download", "-json", modver).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = fmt.Errorf("%v: %s%s", err, ee.Stderr, out)
		}
		return "", fmt.Errorf("go mod download %s: %w", modver, err)
	}
	var m struct{ Dir string }
	if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" {
		return "", fmt.Errorf("go mod download %s: no directory in %q", modver, out)
	}
	return m.Dir, nil
}

// api is the exported API of a package that go doc lists: its functions,
// and for each exported type the names of its exported methods.
type api struct {
	funcs   []string
	methods map[string][]string
}

// readAPI reads the exported functions, types and methods declared in the
// non-test Go files of dir, one package.
func readAPI(dir string) (*api, error) {
	fset := token.NewFileSet()
	notTest := func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }
	pkgs, err := parser.ParseDir(fset, dir, notTest, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	if len(pkgs) != 1 {
		return nil, fmt.Errorf("%s: want one package, found %d", dir, len(pkgs))
	}
	a := &api{methods: map[string][]string{}}
	for _, p := range pkgs {
		for _, f := range p.Files {
			for _, d := range f.Decls {
				a.add(d)
			}
		}
	}
	sort.Strings(a.funcs)
	for _, ms := range a.methods {
		sort.Strings(ms)
	}
	return a, nil
}

// add records d if it declares exported types, functions or methods.
func (a *api) add(d ast.Decl) {
	switch d := d.(type) {
	case *ast.GenDecl:
		for _, s := range d.Specs {
			if ts, ok := s.(*ast.TypeSpec); ok && ts.Name.IsExported() {
				if _, ok := a.methods[ts.Name.Name]; !ok {
					a.methods[ts.Name.Name] = nil
				}
			}
		}
	case *ast.FuncDecl:
		if !d.Name.IsExported() {
			return
		}
		if d.Recv == nil {
			a.funcs = append(a.funcs, d.Name.Name)
			return
		}
		if t := recvType(d.Recv.List[0].Type); ast.IsExported(t) {
			a.methods[t] = append(a.methods[t], d.Name.Name)
		}
	}
}

// recvType returns the name of the type of a receiver: T, *T, T[P], *T[P].
func recvType(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// goDoc returns a function that runs "go doc -short pkg sym" (sym "" for
// the package itself) and returns its output.
func goDoc(pkg string) func(sym string) (string, error) {
	return func(sym string) (string, error) {
		args := []string{"doc", "-short", pkg}
		if sym != "" {
			args = append(args, sym)
		}
		out, err := exec.Command("go", args...).CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("go %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
		}
		return string(out), nil
	}
}

var (
	// methodLine matches a method in go doc's listing: its receiver's type
	// (without type parameters) and its name.
	methodLine = regexp.MustCompile(`^func \([^)]*?\*?([A-Za-z_][A-Za-z0-9_]*)(?:\[[^\]]*\])?\) ([A-Za-z_][A-Za-z0-9_]*)[\[(]`)
	// funcLine matches a function in go doc's listing.
	funcLine = regexp.MustCompile(`^func ([A-Za-z_][A-Za-z0-9_]*)[\[(]`)
)

// listing is what one go doc output lists: functions, and methods by the
// name of their receiver's type.
type listing struct {
	funcs   map[string]bool
	methods map[string]map[string]bool
}

// parseListing reads the func lines of go doc's output.
func parseListing(out string) listing {
	l := listing{funcs: map[string]bool{}, methods: map[string]map[string]bool{}}
	for _, line := range strings.Split(out, "\n") {
		if m := methodLine.FindStringSubmatch(line); m != nil {
			if l.methods[m[1]] == nil {
				l.methods[m[1]] = map[string]bool{}
			}
			l.methods[m[1]][m[2]] = true
		} else if m := funcLine.FindStringSubmatch(line); m != nil {
			l.funcs[m[1]] = true
		}
	}
	return l
}

// check returns a line for each function or method of ref that doc's
// listings leave out: a method must be listed by doc(T) under its type T,
// a function by doc("") or doc(T) of a type of ref, or else be found by
// doc(F) itself.
func check(ref *api, doc func(sym string) (string, error)) []string {
	var missing []string
	funcs := map[string]bool{}
	types := make([]string, 0, len(ref.methods))
	for t := range ref.methods {
		types = append(types, t)
	}
	sort.Strings(types)
	if out, err := doc(""); err != nil {
		missing = append(missing, fmt.Sprintf("package: %v", err))
	} else {
		for f := range parseListing(out).funcs {
			funcs[f] = true
		}
	}
	for _, t := range types {
		out, err := doc(t)
		if err != nil {
			missing = append(missing, fmt.Sprintf("type %s: %v", t, err))
			continue
		}
		l := parseListing(out)
		for f := range l.funcs {
			funcs[f] = true
		}
		for _, m := range ref.methods[t] {
			if !l.methods[t][m] {
				missing = append(missing, fmt.Sprintf("method %s.%s: not listed by go doc %s", t, m, t))
			}
		}
	}
	for _, f := range ref.funcs {
		if funcs[f] {
			continue
		}
		if out, err := doc(f); err != nil || !parseListing(out).funcs[f] {
			missing = append(missing, fmt.Sprintf("func %s: not listed by go doc", f))
		}
	}
	return missing
}
