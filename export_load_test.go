package ants

import "time"

// PinWokenRun sets the pool's average time from a worker's wake-up to the
// end of its task (wokenRun) to d, as if every sample so far had been d, so
// that the wake rule and the yield to a woken caller take their decisions
// on d rather than on what the clock measured. It also makes the next six
// wake-ups of every idle worker untimed (wakes is set to one past a
// multiple of eight), so that no sample moves the average before those
// decisions are taken. It reports false, and changes nothing, unless every
// worker of the pool is idle.
func (p *poolCore[T]) PinWokenRun(d time.Duration) bool {
	p.lock.Lock()
	defer p.lock.Unlock()
	if p.busy != 0 || int(p.running.Load()) != p.workers.len() {
		return false
	}
	p.wokenRun = int64(d)
	p.blocking.Store(d > blockingRun)
	// The idle queue has no iterator: detach every worker and insert them
	// back in the order that rebuilds the queue as it was (a stack detaches
	// the newest first, the ring the oldest).
	var idle []*goWorker[T]
	for w := p.workers.detach(); w != nil; w = p.workers.detach() {
		idle = append(idle, w)
	}
	if _, stack := p.workers.(*workerStack[T]); stack {
		for i, j := 0, len(idle)-1; i < j; i, j = i+1, j-1 {
			idle[i], idle[j] = idle[j], idle[i]
		}
	}
	for _, w := range idle {
		w.wakes = w.wakes - w.wakes%8 + 1
		p.workers.insert(w)
	}
	return true
}
