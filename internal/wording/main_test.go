package main

import (
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// TestCheckFindsTheMakingOfTheRepository feeds check the phrasings it must
// flag, each taken from text the repository once had.
func TestCheckFindsTheMakingOfTheRepository(t *testing.T) {
	for _, text := range []string{
		"Run against the previous engine in the same session",
		"This session's engines side by side (issues 22-26)",
		"## Targets (issues 4 and 8)",
		"from the package doc and from `Subpool`'s doc (issue 23) so that",
		"### Issue 25's targets",
		"// BenchmarkSubmitLevels is issue 24's cost of levels",
		"// benchCaps are the capacities of ants' issue 4 targets",
		"see issue #31",
		"One run at the end, after every helper had stopped (load",
		"while the other helpers were running",
		"the engine helper measured it",
		"the floor of the card's shape",
		"The previous engine is commit bf97c96 (the engine of",
		"950c4d0, the last engine with the `sync.Cond`",
		"| before (950c4d0) | after (f4a90cd) |",
		"quotes it as not met from the targets",
		"Targets not met: the p99",
		"No 16-core machine was lent, so the table",
		"no device machine was lent to this run",
	} {
		if got := check(text); len(got) == 0 {
			t.Errorf("check(%q) found nothing", text)
		}
	}
}

// TestCheckKeepsTheLibrarysOwnWords feeds check legitimate text that
// looks like a finding: upstream issues, helper functions and goroutines,
// the owner's name, numbers, addresses and a link to a commit.
func TestCheckKeepsTheLibrarysOwnWords(t *testing.T) {
	for _, text := range []string{
		"trips goleak ([#244], [#212], [#323])",
		"https://github.com/panjf2000/ants/issues/237",
		"ants issue #237 and Go issue 12345 describe it",
		"// assertStats is a test helper: it fails t with the stats",
		"// The helpers every test file shares: the bounds of every wait",
		"ants keeps its two helper goroutines, e62cffed/ants none",
		"# ants (e62cffed) — a goroutine pool",
		"import \"github.com/e62cffed/ants\"",
		"1000000 tasks of 10 ms; 0x9e3779b97f4a7c15 is the golden ratio",
		"| commit | [`f8bf99971ec5`](https://github.com/e62cffed/ants/commit/f8bf99971ec5084dee4b5ea25566edb43dd63ca3) |",
		"sha256 in go.sum; deadbeef; 12345678",
		"the issue is that the caller waits",
		"a card game; the cardinality of the set",
	} {
		if got := check(text); len(got) > 0 {
			t.Errorf("check(%q) = %q, want nothing", text, got)
		}
	}
}

// TestGoFilesAreCheckedInTheirCommentsOnly: a string or identifier of Go
// code is not prose.
func TestGoFilesAreCheckedInTheirCommentsOnly(t *testing.T) {
	src := "package p\n\n// Pool is fine.\nvar session = \"issue 24\" // but this issue 25 is not\n\n/*\nnor this session\n*/\n"
	var out strings.Builder
	if n := report(&out, "p.go", []byte(src)); n != 2 {
		t.Fatalf("%d findings, want 2:\n%s", n, out.String())
	}
	for _, want := range []string{"p.go:4: this project's issue number", "p.go:7: a working session"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("findings lack %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if n := report(&out, "README.md", []byte("# Title\n\nsee issue 24\n")); n != 1 || !strings.HasPrefix(out.String(), "README.md:3: ") {
		t.Errorf("Markdown: %d findings:\n%s", n, out.String())
	}
}
