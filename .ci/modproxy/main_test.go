package main

import (
	"archive/zip"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// writeTree writes files (path: contents) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// zipNames lists the files of a module zip, without the path@version/ prefix.
func zipNames(t *testing.T, name string) []string {
	t.Helper()
	r, err := zip.OpenReader(name)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var names []string
	for _, f := range r.File {
		i := strings.Index(f.Name, "@v1.2.3/")
		if i < 0 {
			t.Fatalf("zip entry %q lacks the module@version/ prefix", f.Name)
		}
		names = append(names, f.Name[i+len("@v1.2.3/"):])
	}
	slices.Sort(names)
	return names
}

// newRepo makes a git repository with a root module, a nested module, a
// vendor directory, an ignored file, an untracked file and a tracked file
// deleted from the working tree.
func newRepo(t *testing.T) string {
	t.Helper()
	repo := t.TempDir()
	git(t, repo, "init", "-q")
	writeTree(t, repo, map[string]string{
		"go.mod":           "module example.com/Repo\n\ngo 1.22\n",
		".gitignore":       "*.test\n",
		"a.go":             "package repo\n",
		"gone.go":          "package repo\n",
		"vendor/v/v.go":    "package v\n",
		"sub/go.mod":       "module example.com/Repo/sub\n\ngo 1.22\n\nrequire example.com/Repo v1.2.3\n",
		"sub/b.go":         "package sub\n",
		"sub/deep/c.go":    "package deep\n",
		"other/go.mod":     "module example.com/elsewhere\n\ngo 1.22\n",
		"internal/x/x.go":  "package x\n",
		"internal/x/x.txt": "data\n",
	})
	git(t, repo, "add", ".")
	if err := os.Remove(filepath.Join(repo, "gone.go")); err != nil {
		t.Fatal(err)
	}
	writeTree(t, repo, map[string]string{
		"new.go":   "package repo\n",   // untracked, not ignored: in the zip
		"pkg.test": "a build output\n", // ignored: not in the zip
	})
	return repo
}

func TestBuild(t *testing.T) {
	repo := newRepo(t)
	out := t.TempDir()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tags, err := build(repo, out, "v1.2.3", []string{".", "sub"}, now)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"v1.2.3", "sub/v1.2.3"}; !slices.Equal(tags, want) {
		t.Errorf("tags %q, want %q", tags, want)
	}

	// Upper-case letters are escaped in the proxy's paths (!repo).
	root := filepath.Join(out, "example.com", "!repo", "@v")
	got := zipNames(t, filepath.Join(root, "v1.2.3.zip"))
	want := []string{".gitignore", "a.go", "go.mod", "internal/x/x.go", "internal/x/x.txt", "new.go"}
	if !slices.Equal(got, want) {
		t.Errorf("root zip has %q, want %q (no nested module, vendor, ignored or deleted file)", got, want)
	}
	got = zipNames(t, filepath.Join(out, "example.com", "!repo", "sub", "@v", "v1.2.3.zip"))
	if want := []string{"b.go", "deep/c.go", "go.mod"}; !slices.Equal(got, want) {
		t.Errorf("sub zip has %q, want %q", got, want)
	}

	mod, err := os.ReadFile(filepath.Join(out, "example.com", "!repo", "sub", "@v", "v1.2.3.mod"))
	if err != nil || !strings.Contains(string(mod), "require example.com/Repo v1.2.3") {
		t.Errorf("sub .mod is %q, %v; want sub/go.mod", mod, err)
	}
	var info struct {
		Version string
		Time    time.Time
	}
	data, err := os.ReadFile(filepath.Join(root, "v1.2.3.info"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &info); err != nil || info.Version != "v1.2.3" || !info.Time.Equal(now) {
		t.Errorf(".info is %s (%v), want version v1.2.3 at %v", data, err, now)
	}

	// A second version is added to the list; the same one again is not.
	for _, v := range []string{"v1.3.0", "v1.3.0"} {
		if _, err := build(repo, out, v, []string{"."}, now); err != nil {
			t.Fatal(err)
		}
	}
	list, err := os.ReadFile(filepath.Join(root, "list"))
	if err != nil || string(list) != "v1.2.3\nv1.3.0\n" {
		t.Errorf("list is %q, %v; want v1.2.3 and v1.3.0", list, err)
	}
}

func TestBuildRejects(t *testing.T) {
	repo := newRepo(t)
	for _, tc := range []struct {
		name, version string
		dirs          []string
		want          string
	}{
		{"nested module path not the root's and its directory", "v1.2.3", []string{"other"}, "want example.com/Repo/other"},
		{"major version without the /v2 suffix", "v2.0.0", []string{"."}, "v2"},
		{"not a version", "1.2.3", []string{"."}, "1.2.3"},
		{"no go.mod", "v1.2.3", []string{"internal"}, "go.mod"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := build(repo, t.TempDir(), tc.version, tc.dirs, time.Now())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("build(%s, %q) = %v, want an error about %q", tc.version, tc.dirs, err, tc.want)
			}
		})
	}
}
