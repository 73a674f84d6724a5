// Command modproxy writes a file-based Go module proxy that serves modules
// of this repository's working tree at one version, the way the public
// proxy will serve them once they are tagged: .ci/run points GOPROXY at it
// (file://DIR) to install each module as a user does.
//
// Usage, from the repository root (the tool is a module of its own):
//
//	go -C .ci/modproxy run . -repo "$PWD" -version v1.0.0 -out DIR . prometheus otel
//
// Each argument is a module's directory in the repository; "." is the root
// module. A nested
// module's path must be the root's path followed by its directory, so that
// its tag is DIR/VERSION (prometheus/v1.0.0). The files are those git
// would commit (tracked or untracked, not ignored), so build outputs stay
// out; golang.org/x/mod/zip then leaves out what the public proxy leaves
// out: nested modules, vendor directories, files it does not allow. The
// tags to push are printed, one a line.
//
// DIR gets the proxy protocol's layout:
//
//	DIR/<escaped module path>/@v/list
//	DIR/<escaped module path>/@v/<escaped version>.info, .mod, .zip
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

func main() {
	version := flag.String("version", "", "the version to serve every module at, such as v1.0.0")
	out := flag.String("out", "", "the proxy directory to write (created if missing)")
	repo := flag.String("repo", ".", "the repository root: the root module's directory")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: modproxy -version vX.Y.Z -out DIR [-repo ROOT] MODULEDIR...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *version == "" || *out == "" || flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	tags, err := build(*repo, *out, *version, flag.Args(), time.Now().UTC().Truncate(time.Second))
	if err != nil {
		fmt.Fprintln(os.Stderr, "modproxy:", err)
		os.Exit(1)
	}
	for _, t := range tags {
		fmt.Println(t)
	}
}

// build writes the proxy for the modules in dirs (relative to repo) at
// version into out and returns their tags.
func build(repo, out, version string, dirs []string, now time.Time) ([]string, error) {
	rootPath, err := modulePath(filepath.Join(repo, "go.mod"))
	if err != nil {
		return nil, err
	}
	files, err := gitFiles(repo)
	if err != nil {
		return nil, err
	}
	var tags []string
	for _, dir := range dirs {
		dir = path.Clean(filepath.ToSlash(dir))
		modPath, err := modulePath(filepath.Join(repo, filepath.FromSlash(dir), "go.mod"))
		if err != nil {
			return nil, err
		}
		tag := version
		if dir != "." {
			if want := rootPath + "/" + dir; modPath != want {
				return nil, fmt.Errorf("%s/go.mod: module %s, want %s (a nested module's path is the root's path and its directory)", dir, modPath, want)
			}
			tag = dir + "/" + version
		}
		m := module.Version{Path: modPath, Version: version}
		if err := module.Check(m.Path, m.Version); err != nil {
			return nil, err
		}
		if err := writeModule(out, repo, dir, m, files, now); err != nil {
			return nil, err
		}
		tags = append(tags, tag)
	}
	return tags, nil
}

func modulePath(gomod string) (string, error) {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	p := modfile.ModulePath(data)
	if p == "" {
		return "", fmt.Errorf("%s: no module line", gomod)
	}
	return p, nil
}

// gitFiles lists the files git would commit from the working tree under
// repo, relative to it, with slashes: tracked files that still exist and
// untracked files that are not ignored.
func gitFiles(repo string) ([]string, error) {
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = repo
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	listing, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files in %s: %v: %s", repo, err, strings.TrimSpace(stderr.String()))
	}
	var files []string
	seen := make(map[string]bool)
	for _, name := range strings.Split(string(listing), "\x00") {
		if name == "" || seen[name] {
			continue
		}
		seen[name] = true
		if _, err := os.Lstat(filepath.Join(repo, filepath.FromSlash(name))); errors.Is(err, fs.ErrNotExist) {
			continue // deleted in the working tree, not yet in the index
		}
		files = append(files, name)
	}
	return files, nil
}

// treeFile is a file of the working tree as golang.org/x/mod/zip wants it.
type treeFile struct {
	rel  string // path inside the module, with slashes
	abs  string
	info fs.FileInfo
}

func (f treeFile) Path() string                 { return f.rel }
func (f treeFile) Lstat() (fs.FileInfo, error)  { return f.info, nil }
func (f treeFile) Open() (io.ReadCloser, error) { return os.Open(f.abs) }

// writeModule writes m's list, .info, .mod and .zip into out, from the
// files of repo (as gitFiles lists them) under dir.
func writeModule(out, repo, dir string, m module.Version, files []string, now time.Time) error {
	var zfiles []zip.File
	prefix := ""
	if dir != "." {
		prefix = dir + "/"
	}
	for _, name := range files {
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		abs := filepath.Join(repo, filepath.FromSlash(name))
		info, err := os.Lstat(abs)
		if err != nil {
			return err
		}
		zfiles = append(zfiles, treeFile{rel: strings.TrimPrefix(name, prefix), abs: abs, info: info})
	}

	escPath, err := module.EscapePath(m.Path)
	if err != nil {
		return err
	}
	escVersion, err := module.EscapeVersion(m.Version)
	if err != nil {
		return err
	}
	vdir := filepath.Join(out, filepath.FromSlash(escPath), "@v")
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		return err
	}
	base := filepath.Join(vdir, escVersion)

	var zbuf bytes.Buffer
	if err := zip.Create(&zbuf, m, zfiles); err != nil {
		return fmt.Errorf("%s: %w", m, err)
	}
	gomod, err := os.ReadFile(filepath.Join(repo, filepath.FromSlash(dir), "go.mod"))
	if err != nil {
		return err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{m.Version, now})
	if err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		data []byte
	}{
		{base + ".zip", zbuf.Bytes()},
		{base + ".mod", gomod},
		{base + ".info", info},
	} {
		if err := os.WriteFile(f.name, f.data, 0o644); err != nil {
			return err
		}
	}
	return addToList(filepath.Join(vdir, "list"), m.Version)
}

// addToList adds version to the proxy's version list if it is not there.
func addToList(list, version string) error {
	data, err := os.ReadFile(list)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, v := range strings.Fields(string(data)) {
		if v == version {
			return nil
		}
	}
	return os.WriteFile(list, append(data, version+"\n"...), 0o644)
}
