package ants

// PoolProbe is what FuzzPool (fuzz_test.go) needs to see of a pool's
// goroutines to know that it has settled: that workers it stopped and purge
// goroutines it replaced have exited, and that a purge pass it triggered has
// finished; the purge tests read it too, to check at once, under the pool's
// lock, that no purge goroutine runs. It is exported to the external tests
// only, like export_test.go.
type PoolProbe struct {
	Live     int   // goroutines the pool started that have not exited
	Purging  bool  // a purge goroutine of the current generation is running
	LastTick int64 // time of the purge's last tick (or start), in ns
}

// PoolProbe returns the pool's PoolProbe.
func (p *poolCore[T]) PoolProbe() PoolProbe {
	p.lock.Lock()
	defer p.lock.Unlock()
	return PoolProbe{Live: p.live, Purging: p.purgeStop != nil, LastTick: p.lastTick}
}
