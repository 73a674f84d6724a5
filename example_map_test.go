//go:build go1.23

package ants_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/e62cffed/ants"
)

// lines is the sequence of the lines of r, such as an *os.File, read as
// the range asks for them.
func lines(r io.Reader) func(yield func(string) bool) {
	return func(yield func(string) bool) {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			if !yield(sc.Text()) {
				return
			}
		}
	}
}

// Parse a file's lines on the pool, at most 8 at once, and use the
// results in the file's order. The first error stops the loop: Map takes
// no more lines, and the loop statement returns once the calls in flight
// have returned.
func ExampleMap() {
	p, _ := ants.NewPool(100)
	defer p.Release()

	file := strings.NewReader("1\n2\n3\nfour\n5\n")
	parse := func(_ context.Context, line string) (int, error) { return strconv.Atoi(line) }

	sum := 0
	for n, err := range ants.Map(context.Background(), p, 8, lines(file), parse) {
		if err != nil {
			fmt.Println("error:", err)
			break
		}
		sum += n
		fmt.Println(n, "sum", sum)
	}
	// Output:
	// 1 sum 1
	// 2 sum 3
	// 3 sum 6
	// error: strconv.Atoi: parsing "four": invalid syntax
}

// Fetch sizes in the order they come, at most 4 at once: MapUnordered
// yields each result as soon as its call returns.
func ExampleMapUnordered() {
	p, _ := ants.NewPool(100)
	defer p.Release()

	names := []string{"go.mod", "README.md", "LICENSE", "ants.go"}
	size := func(_ context.Context, name string) (int, error) { return len(name), nil } // a stand-in for a fetch

	var sizes []int
	for n, err := range ants.MapUnordered(context.Background(), p, 4, slices.Values(names), size) {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		sizes = append(sizes, n)
	}
	slices.Sort(sizes) // in the order the calls returned until here
	fmt.Println(sizes)
	// Output:
	// [6 7 7 9]
}
