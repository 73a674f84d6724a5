package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/e62cffed/ants/benchmarks/internal/study"
)

// resultsFile is what one run of the suite writes: where and when it ran,
// with what settings, and every child run's raw measurements. The report
// (the chart, the tables of BENCHMARKS.md, the README's table) is made from
// it alone, so that a committed file and the documents it feeds always
// agree.
type resultsFile struct {
	Date     string    `json:"date"` // YYYY-MM-DD, UTC, the day the run started
	Started  time.Time `json:"started"`
	Duration string    `json:"duration"`
	Machine  machine   `json:"machine"`
	Go       string    `json:"go"`      // runtime.Version of the children
	Commit   string    `json:"commit"`  // the repository's HEAD, or "unknown"
	Dirty    bool      `json:"dirty"`   // uncommitted changes outside benchmarks/results
	Modules  []module  `json:"modules"` // the compared libraries' versions
	Settings settings  `json:"settings"`

	Libraries []libInfo      `json:"libraries"` // in table order
	Workloads []workloadInfo `json:"workloads"` // in table order
	Runs      []runRecord    `json:"runs"`      // every child run that succeeded, in the order run
	Failures  []failure      `json:"failures,omitempty"`
}

// machine describes the computer the suite ran on.
type machine struct {
	CPU        string `json:"cpu"`   // model name, or "unknown"
	Cores      int    `json:"cores"` // runtime.NumCPU
	GOMAXPROCS int    `json:"gomaxprocs"`
	MemoryMiB  int64  `json:"memory_mib"` // MemTotal; 0 if unknown
	OS         string `json:"os"`
	Arch       string `json:"arch"`
}

// module is one compared library's module path and version ("local" for
// this repository's, which the benchmarks module replaces with its parent
// directory).
type module struct {
	Path    string `json:"path"`
	Version string `json:"version"`
}

// settings are the command's sizes, the same for every child of a run.
type settings struct {
	Runs  int   `json:"runs"`
	Quick bool  `json:"quick"`
	Scale scale `json:"scale"`
}

// libInfo is one library as the tables need it: its name and the channel
// pool with the same semantics (see library.like).
type libInfo struct {
	Name string `json:"name"`
	Like string `json:"like,omitempty"`
}

// workloadInfo is one workload as the tables need it.
type workloadInfo struct {
	Name        string `json:"name"`
	Kind        string `json:"kind"`
	Description string `json:"description"`
}

// runRecord is one child's result and which round of the run it was (from 1).
type runRecord struct {
	Run int `json:"run"`
	result
}

// failure is a child run that failed; it is in no median.
type failure struct {
	Run      int    `json:"run"`
	Workload string `json:"workload"`
	Lib      string `json:"lib"`
	Error    string `json:"error"`
}

// newResultsFile describes this machine, toolchain and checkout, and the
// run about to start.
func newResultsFile(started time.Time, cfg config, cases []workload, libs []library) *resultsFile {
	f := &resultsFile{
		Date:    started.UTC().Format(time.DateOnly),
		Started: started.UTC().Truncate(time.Second),
		Machine: machine{
			CPU:        cpuModel(),
			Cores:      runtime.NumCPU(),
			GOMAXPROCS: runtime.GOMAXPROCS(0),
			MemoryMiB:  memTotalMiB(),
			OS:         runtime.GOOS,
			Arch:       runtime.GOARCH,
		},
		Go:       runtime.Version(),
		Modules:  comparedModules(),
		Settings: settings{Runs: cfg.runs, Quick: cfg.quick, Scale: cfg.scale},
	}
	f.Commit, f.Dirty = study.GitState()
	for _, l := range libs {
		f.Libraries = append(f.Libraries, libInfo{Name: l.name(), Like: l.like()})
	}
	for _, w := range cases {
		f.Workloads = append(f.Workloads, workloadInfo{Name: w.name, Kind: w.kind, Description: describe(w)})
	}
	return f
}

// results gathers the file's runs by workload and library.
func (f *resultsFile) results() *results {
	rs := newResults()
	for _, r := range f.Runs {
		rs.add(r.result)
	}
	for _, x := range f.Failures {
		rs.addFailure(x.Workload, x.Lib)
	}
	return rs
}

// write writes f as indented JSON to path, creating its directory.
func (f *resultsFile) write(path string) error { return study.WriteJSON(path, f) }

// readResultsFile reads a file written by write.
func readResultsFile(path string) (*resultsFile, error) {
	var f resultsFile
	if err := study.ReadJSON(path, &f); err != nil {
		return nil, err
	}
	if len(f.Libraries) == 0 || len(f.Workloads) == 0 {
		return nil, fmt.Errorf("%s: no libraries or no workloads", path)
	}
	return &f, nil
}

// resultsDir is where the suite writes its results files by default, one
// per day: results/YYYY-MM-DD.json.
const resultsDir = "results"

// latestResults returns the newest results/*.json by name (names are
// dates), or an error if there is none.
func latestResults() (string, error) {
	name, err := study.Newest(resultsDir)
	if err == nil && name == "" {
		err = fmt.Errorf("no results file in %s/: run the suite first (go run .)", resultsDir)
	}
	return name, err
}

// comparedModules returns the versions of the compared libraries this
// binary was built with.
func comparedModules() []module {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return nil
	}
	var mods []module
	for _, d := range info.Deps {
		if isCompared(d.Path) {
			v := d.Version
			if d.Replace != nil {
				v = "local"
			}
			mods = append(mods, module{Path: d.Path, Version: v})
		}
	}
	return mods
}

// isCompared reports whether a module is one of the compared libraries.
func isCompared(path string) bool {
	switch path {
	case "github.com/e62cffed/ants", "github.com/panjf2000/ants/v2", "github.com/alitto/pond/v2",
		"github.com/sourcegraph/conc", "golang.org/x/sync":
		return true
	}
	return false
}

// cpuModel returns the first "model name" of /proc/cpuinfo, or "unknown".
func cpuModel() string {
	return study.ProcField("/proc/cpuinfo", "model name")
}

// memTotalMiB returns the machine's memory from /proc/meminfo, or 0.
func memTotalMiB() int64 {
	f := strings.Fields(study.ProcField("/proc/meminfo", "MemTotal")) // "16384000 kB"
	if len(f) == 0 {
		return 0
	}
	kib, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		return 0
	}
	return kib / 1024
}
