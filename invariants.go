package ants

import "fmt"

// checkInvariantsLocked returns an error naming the first invariant on
// poolCore's fields that does not hold, or nil. It requires p.lock held, and
// holds at every point where the lock is released; the fuzz and stress tests
// call it after every step, so that a change that breaks one fails there.
//
// The goroutine bound, running+stopping <= capacity, is not checked: it may
// be exceeded after a shrinking Tune, which the fields do not record. The
// tests check it from outside, with runtime.NumGoroutine.
func (p *poolCore[T]) checkInvariantsLocked() error {
	c := int(p.capacity.Load())
	running := int(p.running.Load())
	idle := p.workers.len()
	buffered := p.tasks.size - p.reserved
	purge := 0
	if p.purgeAlive {
		purge = 1
	}
	switch {
	case p.busy < 0 || p.reserved < 0 || p.searching < 0 || p.stopping < 0:
		return fmt.Errorf("negative count: busy %d, reserved %d, searching %d, stopping %d",
			p.busy, p.reserved, p.searching, p.stopping)
	case buffered < 0:
		return fmt.Errorf("%d reserved tasks but %d in the ring", p.reserved, p.tasks.size)
	case p.queueSize >= 0 && buffered > p.queueSize:
		return fmt.Errorf("%d buffered tasks, QueueSize %d", buffered, p.queueSize)
	case c >= 0 && buffered > 0 && p.busy+p.reserved < c:
		return fmt.Errorf("%d buffered tasks while a slot is free: "+
			"busy %d + reserved %d < capacity %d", buffered, p.busy, p.reserved, c)
	case running != p.busy+idle+p.searching:
		return fmt.Errorf("running %d != busy %d + idle %d + searching %d",
			running, p.busy, idle, p.searching)
	case p.reserved > 0 && p.searching == 0 && idle > 0:
		return fmt.Errorf("%d reserved tasks with %d idle workers and none searching",
			p.reserved, idle)
	case p.live < running+p.stopping+purge:
		return fmt.Errorf("live %d < running %d + stopping %d + purge %d",
			p.live, running, p.stopping, purge)
	case p.waiters.len != int(p.waiting.Load()):
		return fmt.Errorf("waiters %d, Waiting() %d", p.waiters.len, p.waiting.Load())
	case p.waiters.len > 0 && (c < 0 || p.busy+p.reserved < c ||
		p.queueSize < 0 || buffered < p.queueSize):
		return fmt.Errorf("%d callers wait while the pool has room", p.waiters.len)
	case p.purgeStop != nil && !p.purgeAlive:
		return fmt.Errorf("a purge generation with no purge goroutine")
	}
	return nil
}
