package sim

// Page-wave storage. A page wave ([]seg) moves from the array (sensing) to
// the data registers (dataReg) and the cache register (cacheReg) and, once
// across the TSV, back to the engine's spare waves (freeWaves), which
// formWave fills again. Installing a stored state (a replayed segment, a
// resumed kernel), idling between passes and a jump that shortens a run of
// equal waves in the data registers (walkWaveRuns) replace or drop waves;
// they hand them, and the lists' storage, back instead of dropping them,
// so that the lists do not allocate again at every install, pass and jump
// (before, the appends of kickArray, onArrayDone and formWave and the
// copies of install were two thirds of a reproduction's allocations).
// Storage moves only within one engine, and a wave is in one list at a
// time, so no two lists share an array.

// wavePool keeps emptied page waves for reuse (at most maxFreeWaves).
type wavePool struct {
	free [][]seg
	// size is the capacity of a new wave: a wave of full transfer chunks,
	// bounded (0: 4).
	size int
}

// maxFreeWaves bounds the page waves a pool keeps: with an unbounded read
// pipeline the data registers hold hundreds of waves, which a jump may
// drop and the array then senses again.
const maxFreeWaves = 1024

// get returns an empty page wave: a spare one, or a new one (always, from
// a nil pool).
func (p *wavePool) get() []seg {
	if p == nil {
		return nil
	}
	if n := len(p.free); n > 0 {
		w := p.free[n-1]
		p.free[n-1] = nil
		p.free = p.free[:n-1]
		return w[:0]
	}
	return make([]seg, 0, max(4, p.size))
}

// put keeps w's storage for get; a nil pool keeps nothing.
func (p *wavePool) put(w []seg) {
	if p != nil && cap(w) > 0 && len(p.free) < maxFreeWaves {
		p.free = append(p.free, w[:0])
	}
}

// recycleWaves spares s's waves and returns its wave lists emptied, their
// storage kept.
func (e *engine) recycleWaves(s *hbfStack) (sensing, dataReg [][]seg) {
	for _, w := range s.sensing {
		e.freeWaves.put(w)
	}
	for _, w := range s.dataReg {
		e.freeWaves.put(w)
	}
	e.freeWaves.put(s.cacheReg)
	clear(s.sensing)
	clear(s.dataReg)
	return s.sensing[:0], s.dataReg[:0]
}

// copyWaves appends copies of ws to dst, each in a wave of the pool.
func (e *engine) copyWaves(dst, ws [][]seg) [][]seg {
	for _, w := range ws {
		if w == nil {
			dst = append(dst, nil)
			continue
		}
		dst = append(dst, append(e.freeWaves.get(), w...))
	}
	return dst
}

// stackInto makes dst a copy of s, as cloneStack does, its waves and wave
// lists in storage dst held (recycleWaves).
func (e *engine) stackInto(dst, s *hbfStack) {
	sensing, dataReg := e.recycleWaves(dst)
	*dst = cloneQueues(s)
	dst.sensing, dst.dataReg, dst.cacheReg = e.copyWaves(sensing, s.sensing), e.copyWaves(dataReg, s.dataReg), nil
	if s.cacheReg != nil {
		dst.cacheReg = append(e.freeWaves.get(), s.cacheReg...)
	}
}

// waveArrays are the whole arrays of an HBF stack's wave lists, which
// the lists (windows into them, slid by popFront) may not reach back to.
type waveArrays struct {
	sensing, dataReg [][]seg
}

// pushWave appends w to the wave list q. A long list slides through its
// array (popFront slices it from the front), so a full list may have
// room before it: when it fills at most half of its array (*arr, which
// ends where q's storage ends), it moves down to the array's start;
// otherwise the list moves to a new array of twice its length, which
// *arr then holds. Neither copies a list more than once per as many
// pushes as its length, and only a list that grew allocates. An arr that
// is not q's array (the engine gave the stack other lists since) is not
// used: the end of storage tells.
func pushWave(q [][]seg, arr *[][]seg, w []seg) [][]seg {
	if len(q) == cap(q) {
		a := (*arr)[:cap(*arr)]
		if n := len(q); n > 0 && 2*n <= len(a) && &a[len(a)-1] == &q[:cap(q)][cap(q)-1] {
			copy(a, q)
			clear(a[n:])
			q = a[:n]
		} else {
			q = append(make([][]seg, 0, max(4, 2*n)), q...)
			*arr = q
		}
	}
	return append(q, w)
}
