package ants

import "time"

// WokenSamples returns how many samples the pool's wokenRun has taken.
func (p *poolCore[T]) WokenSamples() uint64 {
	p.lock.Lock()
	defer p.lock.Unlock()
	return p.wokenSamples
}

// NoteWokenRun adds a sample of run to the pool's wokenRun, as a worker
// does after a timed task, and reports whether the pool then takes its
// tasks to block.
func (p *poolCore[T]) NoteWokenRun(run time.Duration) (blocking bool) {
	p.lock.Lock()
	defer p.lock.Unlock()
	p.noteWokenRunLocked(int64(run))
	return p.blocking.Load()
}

// MaxWokenRun and RecoverySamples are maxWokenRun and recoverySamples.
const (
	MaxWokenRun     = maxWokenRun
	RecoverySamples = recoverySamples
)

// LockYieldsGoroutine reports whether every waiter of the pool's lock
// yields its goroutine from the start (spinLock.goroutineYield).
func (p *poolCore[T]) LockYieldsGoroutine() bool { return p.lock.goroutineYield.Load() }

// LargePoolPerProc is largePoolPerProc.
const LargePoolPerProc = largePoolPerProc
