package ants_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/e62cffed/ants"
)

// lineEncoder is the state one worker keeps across tasks: a buffer and a
// JSON encoder writing into it, made once per worker instead of once per
// record.
type lineEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

func newLineEncoder(id int) ants.Worker[any, string] {
	e := new(lineEncoder)
	e.enc = json.NewEncoder(&e.buf)
	return e
}

func (e *lineEncoder) Process(_ context.Context, v any) (string, error) {
	e.buf.Reset()
	if err := e.enc.Encode(v); err != nil {
		return "", err
	}
	return e.buf.String(), nil
}

func (e *lineEncoder) Close() {}

func ExampleWorkerPool() {
	p, err := ants.NewWorkerPool(2, newLineEncoder)
	if err != nil {
		panic(err)
	}
	defer p.ReleaseTimeout(time.Second)

	for _, v := range []any{map[string]int{"a": 1}, []string{"x", "y"}, 42} {
		line, err := p.Process(context.Background(), v)
		if err != nil {
			panic(err)
		}
		fmt.Print(line)
	}
	// Output:
	// {"a":1}
	// ["x","y"]
	// 42
}

// conn stands for a connection that each worker opens when it starts, uses
// for every task it runs, and closes when it exits.
type conn struct {
	id     int // the worker's id, in [0, Cap()): what a program indexes per-worker resources by
	closed *atomic.Int32
}

func (c *conn) Process(ctx context.Context, query string) (string, error) {
	return strings.ToUpper(query), nil
}

func (c *conn) Close() { c.closed.Add(1) }

func ExampleWorkerPool_Go() {
	var opened, closed atomic.Int32
	p, err := ants.NewWorkerPool(4, func(id int) ants.Worker[string, string] {
		opened.Add(1)
		return &conn{id: id, closed: &closed}
	})
	if err != nil {
		panic(err)
	}

	ctx := context.Background()
	var futures []*ants.Future[string]
	for _, q := range []string{"select 1", "select 2", "select 3"} {
		futures = append(futures, p.Go(ctx, q)) // waits only while the pool is full
	}
	for _, f := range futures {
		reply, err := f.Wait()
		if err != nil {
			panic(err)
		}
		fmt.Println(reply)
	}

	// ReleaseTimeout returns nil once every worker has exited and closed
	// its connection.
	if err := p.ReleaseTimeout(time.Second); err != nil {
		panic(err)
	}
	fmt.Println("every connection closed:", opened.Load() == closed.Load())
	// Output:
	// SELECT 1
	// SELECT 2
	// SELECT 3
	// every connection closed: true
}
