// Package study holds what the benchmarks module's commands share around
// their measurements: where they ran (Machine, GitState, LoadAverage), their
// results files (WriteJSON, ReadJSON, Newest), the line that stamps a
// section of the report (Stamp), the bounds a study checks (Target,
// WriteBounds), a wait that fails rather than hangs (Within), and the
// nearest-rank quantile (Quantile).
package study

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Machine describes the computer a study ran on.
type Machine struct {
	CPU        string `json:"cpu"`
	Cores      int    `json:"cores"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	OS         string `json:"os"`
	Arch       string `json:"arch"`
}

// WriteJSON writes v as indented JSON to path, creating its directory.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// ReadJSON reads into v a file written by WriteJSON.
func ReadJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// Newest returns the newest dir/*.json by name (names are dates), or "" if
// there is none or no such directory.
func Newest(dir string) (string, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(names) == 0 {
		return "", err
	}
	slices.Sort(names)
	return names[len(names)-1], nil
}

// repoURL is the repository's address, for links to a commit.
const repoURL = "https://github.com/e62cffed/ants"

// Stamp is the sentence that opens a study's section: when and where it
// ran, on which commit, and how loaded the machine was.
func Stamp(date string, started time.Time, duration string, m Machine, goVersion, commit string, dirty bool, load string) string {
	if len(commit) == 40 {
		commit = fmt.Sprintf("[`%s`](%s/commit/%s)", commit[:12], repoURL, commit)
	}
	if dirty {
		commit += ", with uncommitted changes"
	}
	return fmt.Sprintf("Measured on %s (%s UTC, %s in all) on a %d-core %s (GOMAXPROCS %d, %s, %s/%s), commit %s; load average before the run %s.",
		date, started.Format("15:04"), duration, m.Cores, m.CPU, m.GOMAXPROCS, goVersion, m.OS, m.Arch, commit, load)
}

// Target is one bound the design aims at, and whether a run held it.
type Target struct {
	Name     string
	Met      bool
	Measured string
}

// WriteBounds writes the bounds of the contender ours (none if ok is
// false), each said to hold or not, with what was measured.
func WriteBounds(out io.Writer, ours string, ok bool, ts []Target) {
	if ok {
		fmt.Fprintf(out, "The bounds the design aims at, for %s, as this run measured them:\n\n", ours)
	}
	for _, t := range ts {
		verdict := "holds"
		if !t.Met {
			verdict = "**does not hold**"
		}
		fmt.Fprintf(out, "- %s: %s (%s)\n", t.Name, verdict, t.Measured)
	}
}

// ErrStalled is the error of a wait that ran out (Within).
var ErrStalled = errors.New("stalled")

// Within runs f and returns its error, or ErrStalled if it has not
// returned after d; f then goes on in the background.
func Within(d time.Duration, f func() error) error {
	done := make(chan error, 1)
	go func() { done <- f() }()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		return fmt.Errorf("%w after %v", ErrStalled, d)
	}
}

// Quantile is the q-quantile of sorted s (nearest rank), or 0 if empty.
func Quantile(s []time.Duration, q float64) time.Duration {
	if len(s) == 0 {
		return 0
	}
	i := int(q*float64(len(s))+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// LoadAverage returns the 1-minute load average, where /proc/loadavg has
// it, else "unknown": on a shared machine it says how much the others ran.
func LoadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if fs := strings.Fields(string(b)); err == nil && len(fs) > 0 {
		return fs[0]
	}
	return "unknown"
}

// GitState returns the commit checked out in the working directory's
// repository and whether anything but the results directory differs from
// it; ("unknown", false) where git or the repository is missing.
func GitState() (commit string, dirty bool) {
	out, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		return "unknown", false
	}
	commit = strings.TrimSpace(string(out))
	out, err = exec.Command("git", "status", "--porcelain", "--", ":/", ":(exclude,top)benchmarks/results").Output()
	if err != nil {
		return commit, false
	}
	return commit, len(strings.TrimSpace(string(out))) > 0
}

// ProcField returns the value of the first "key: value" line of a /proc
// file whose key is key, or "unknown".
func ProcField(path, key string) string {
	fh, err := os.Open(path)
	if err != nil {
		return "unknown"
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
