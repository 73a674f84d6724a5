// Command antsbench runs ants' own benchmark file, ants_benchmark_test.go of
// github.com/panjf2000/ants/v2 at the version the benchmarks module
// requires, against ants and, unchanged but for its import path, against
// this package; it runs the two builds interleaved, each run its own
// process, and prints benchstat's comparison (ants first).
//
// Run it from the benchmarks module:
//
//	go run ./antsbench                      # 6 runs each, every benchmark of the file using ants
//	go run ./antsbench -count 10 -bench 'AntsPool(Throughput)?$'
//
// It takes the file from the module cache (go mod download), builds the
// two test binaries in temporary modules (this package through a replace
// directive pointing at -repo), and runs benchstat with go run, so it needs
// the Go module proxy or a warm module cache. The raw results are kept in
// -out if set.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

const (
	antsModule  = "github.com/panjf2000/ants/v2"
	antsVersion = "v2.12.1"
	thisModule  = "github.com/e62cffed/ants"
	benchFile   = "ants_benchmark_test.go"
	benchstat   = "golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da"
)

func main() {
	count := flag.Int("count", 6, "runs of each build")
	bench := flag.String("bench", "Ants", "benchmarks to run (the -test.bench regexp)")
	benchtime := flag.String("benchtime", "1x", "the -test.benchtime of each run")
	repo := flag.String("repo", "..", "the root of this package's repository")
	out := flag.String("out", "", "directory to keep ants.txt and this.txt in (default: a temporary one)")
	flag.Parse()
	if err := run(*count, *bench, *benchtime, *repo, *out); err != nil {
		fmt.Fprintln(os.Stderr, "antsbench:", err)
		os.Exit(1)
	}
}

func run(count int, bench, benchtime, repo, out string) error {
	if count < 1 {
		return fmt.Errorf("-count %d: need at least 1", count)
	}
	root, err := filepath.Abs(repo)
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(root, "pool.go")); err != nil {
		return fmt.Errorf("-repo %s is not the package's root: %v", root, err)
	}
	src, err := antsBenchFile()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "antsbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if out == "" {
		out = tmp
	} else if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}

	builds := []struct{ name, require, replace string }{
		{"ants", antsModule + " " + antsVersion, ""},
		{"this", thisModule + " v0.0.0", thisModule + " => " + root},
	}
	bins := make([]string, len(builds))
	for i, b := range builds {
		dir := filepath.Join(tmp, b.name)
		code := src
		if b.name == "this" {
			code = bytes.ReplaceAll(src, []byte(`"`+antsModule+`"`), []byte(`ants "`+thisModule+`"`))
		}
		if err := writeModule(dir, b.require, b.replace, code); err != nil {
			return err
		}
		bins[i] = filepath.Join(tmp, b.name+".test")
		fmt.Fprintf(os.Stderr, "building %s\n", b.name)
		if err := goCmd(dir, nil, "test", "-c", "-o", bins[i], "."); err != nil {
			return err
		}
	}

	results := make([]*os.File, len(builds))
	for i, b := range builds {
		f, err := os.Create(filepath.Join(out, b.name+".txt"))
		if err != nil {
			return err
		}
		defer f.Close()
		results[i] = f
	}
	for r := 0; r < count; r++ {
		for k := range builds {
			i := k
			if r%2 == 1 { // alternate which build goes first
				i = len(builds) - 1 - k
			}
			fmt.Fprintf(os.Stderr, "run %d/%d: %s\n", r+1, count, builds[i].name)
			cmd := exec.Command(bins[i], "-test.run", "^$", "-test.bench", bench,
				"-test.benchtime", benchtime, "-test.benchmem")
			cmd.Stderr = os.Stderr
			res, err := cmd.Output()
			if err != nil {
				return fmt.Errorf("%s: %v\n%s", builds[i].name, err, res)
			}
			if _, err := results[i].Write(res); err != nil {
				return err
			}
		}
	}
	for _, f := range results {
		if err := f.Sync(); err != nil {
			return err
		}
	}
	cmd := exec.Command("go", "run", benchstat, "ants.txt", "this.txt")
	cmd.Dir = out
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	return cmd.Run()
}

// antsBenchFile returns ants' benchmark file, from the module cache.
func antsBenchFile() ([]byte, error) {
	cmd := exec.Command("go", "mod", "download", "-json", antsModule+"@"+antsVersion)
	cmd.Stderr = os.Stderr
	res, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go mod download: %v", err)
	}
	var mod struct{ Dir, Error string }
	if err := json.Unmarshal(res, &mod); err != nil {
		return nil, err
	}
	if mod.Error != "" {
		return nil, fmt.Errorf("go mod download: %s", mod.Error)
	}
	return os.ReadFile(filepath.Join(mod.Dir, benchFile))
}

// writeModule writes a module in dir holding the benchmark file code, which
// requires require, with replace if not empty, and resolves the rest of
// its requirements (go mod tidy).
func writeModule(dir, require, replace string, code []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	gomod := "module antsbench\n\ngo 1.22\n\nrequire " + require + "\n"
	if replace != "" {
		gomod += "\nreplace " + replace + "\n"
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, benchFile), code, 0o644); err != nil {
		return err
	}
	return goCmd(dir, nil, "mod", "tidy")
}

// goCmd runs the go command in dir, its output going to stderr.
func goCmd(dir string, env []string, args ...string) error {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go %s in %s: %v", strings.Join(args, " "), dir, err)
	}
	return nil
}
