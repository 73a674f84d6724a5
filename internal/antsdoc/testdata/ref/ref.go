// Package ants is a small reference API for the tests of antsdoc: names
// of the real package, and one method it does not have.
package ants

import "context"

type Pool struct{}

func NewPool(size int, options ...Option) (*Pool, error) { return nil, nil }

func (p *Pool) Submit(task func()) error { return nil }

func (p Pool) Tune(size int) {}

// Frobnicate is a method the real Pool does not have.
func (p *Pool) Frobnicate() {}

type PoolWithFunc struct{}

func (p *PoolWithFunc) Invoke(arg any) error { return nil }

type PoolWithFuncGeneric[T any] struct{}

func (p *PoolWithFuncGeneric[T]) Invoke(arg T) error { return nil }

type Option func(*Options)

type Options struct{}

func WithPreAlloc(preAlloc bool) Option { return nil }

func Release() {}

func ReleaseContext(ctx context.Context) error { return nil }

func unexported() {}

func (p *Pool) unexported() {}
