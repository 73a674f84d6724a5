// Command wording fails on text that speaks of how the repository was
// made rather than of the library: in Markdown files and in Go comments,
// words about working sessions, this project's own issue numbers, helpers
// in the sense of people or agents at work, "the card", and commit hashes
// standing alone as names of things a reader cannot see.
//
//	go run ./internal/wording $(git ls-files '*.md' '*.go')
//
// Upstream references stay: "ants #237", a link to
// github.com/panjf2000/ants/issues/237, "Go issue 12345", a Markdown link
// whose target is a commit's page. A helper function or a helper goroutine
// is a helper of the code, and stays too. It prints each finding as
// file:line: text, and exits 1 if there is any.
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"go/scanner"
	"go/token"
	"io"
	"os"
	"regexp"
	"strings"
)

func main() {
	n := 0
	for _, path := range os.Args[1:] {
		src, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "wording:", err)
			os.Exit(2)
		}
		n += report(os.Stdout, path, src)
	}
	if n > 0 {
		fmt.Fprintf(os.Stderr, "wording: %d finding(s): say it of the library, or drop it\n", n)
		os.Exit(1)
	}
}

// report prints the findings in one file and returns how many there were.
// Go files are checked in their comments only; other files in full.
func report(w io.Writer, path string, src []byte) int {
	var lines []line
	if strings.HasSuffix(path, ".go") {
		lines = goComments(src)
	} else {
		lines = textLines(src)
	}
	n := 0
	for _, l := range lines {
		for _, f := range check(l.text) {
			fmt.Fprintf(w, "%s:%d: %s: %s\n", path, l.num, f, strings.TrimSpace(l.text))
			n++
		}
	}
	return n
}

// line is a line of text to check and its number in its file.
type line struct {
	num  int
	text string
}

// textLines returns every line of src.
func textLines(src []byte) []line {
	var out []line
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		out = append(out, line{n, sc.Text()})
	}
	return out
}

// goComments returns the lines of every comment of a Go source file.
func goComments(src []byte) []line {
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(src))
	var s scanner.Scanner
	s.Init(file, src, nil, scanner.ScanComments)
	var out []line
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return out
		}
		if tok != token.COMMENT {
			continue
		}
		first := file.Line(pos)
		for i, text := range strings.Split(lit, "\n") {
			out = append(out, line{first + i, text})
		}
	}
}

// A rule is a pattern that must not match, and what its match means.
type rule struct {
	what string
	re   *regexp.Regexp
}

var rules = []rule{
	{"a working session", regexp.MustCompile(`(?i)\bsessions?\b`)},
	// The word issue followed by a number, with or without '#', singular
	// or plural, any case; not when a project's name stands before it
	// (see upstream).
	{issueNumber, regexp.MustCompile(`(?i)\bissues?\s+#?\d+`)},
	// The word helper for a person at work (a quantifier or a role before
	// it, or a verb of work after it); not a helper function, goroutine or
	// method.
	{"a helper at work", regexp.MustCompile(`(?i)\b(?:every|other|another|each|all|engine|map|modules|report|wrappers|release)\s+helpers?\b(?:\s+(?:had|have|has|was|were|is|are|stopped|ran|measured))?`)},
	{"a helper at work", regexp.MustCompile(`(?i)\bhelpers?(?:'s|s')?\s+(?:had|have|has|was|were)\s+(?:stopped|running|measuring|working|benchmarking|finished|done)\b`)},
	{"the card", regexp.MustCompile(`(?i)\bthe card\b`)},
	// The targets of a task of work, reported as the work went: a report
	// states what was measured, and a target it misses as a figure.
	{"a task's targets", regexp.MustCompile(`(?i)\bnot met\b[^.\n]{0,40}\btargets?\b|\btargets?\b[^.\n]{0,40}\bnot met\b`)},
	// A machine lent for a while: the work's circumstances, not the
	// library's.
	{"a machine lent to the work", regexp.MustCompile(`(?i)\b(?:no|a|the)\s+(?:[\w-]+\s+){0,4}(?:machine|device)s?\s+(?:[\w-]+\s+){0,2}(?:was|were|is)\s+lent\b`)},
}

const issueNumber = "this project's issue number"

// upstream matches the end of the text before an issue number that makes
// it another project's: ants, pond, Go and the other names below.
var upstream = regexp.MustCompile(`(?i)\b(?:ants|pond|conc|go|golang|upstream|nats|prometheus|opentelemetry)\s+$`)

// hexName is a commit hash standing alone: 7 to 40 hexadecimal digits with
// at least one digit and one letter, not part of a longer word, path,
// number or address.
var hexName = regexp.MustCompile(`(?:^|[^\w/@.#:-])([0-9a-f]{7,40})(?:$|[^\w/-])`)

// commitLink is a Markdown link to a commit's page, whose text may be the
// hash.
var commitLink = regexp.MustCompile(`\[[^\]]*\]\([^)]*/commit/[0-9a-f]+\)`)

// notHashes are hexadecimal words that name something else.
var notHashes = map[string]bool{
	"e62cffed": true, // the repository's owner
}

// check returns what each rule finds in text.
func check(text string) []string {
	var found []string
	for _, r := range rules {
		for _, m := range r.re.FindAllStringIndex(text, -1) {
			if r.what == issueNumber && upstream.MatchString(text[:m[0]]) {
				continue
			}
			found = append(found, fmt.Sprintf("%s (%q)", r.what, strings.TrimSpace(text[m[0]:m[1]])))
		}
	}
	plain := commitLink.ReplaceAllString(text, "")
	for _, m := range hexName.FindAllStringSubmatch(plain, -1) {
		h := m[1]
		if notHashes[h] || !strings.ContainsAny(h, "0123456789") || !strings.ContainsAny(h, "abcdef") {
			continue
		}
		found = append(found, fmt.Sprintf("a commit hash as a name (%q)", h))
	}
	return found
}
