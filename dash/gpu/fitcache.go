package gpu

import "math"

//go:generate go test -run TestFittedRoofs -update-fitted-roofs .

// fitKey identifies one roofline fit: a digest (FNV-1a over 64-bit words)
// of the prior it starts from and of every sample's shape and latency, in
// order. Two fits with the same key would return the same roofline.
func fitKey(samples []sample, init roof) uint64 {
	h := uint64(14695981039346656037)
	mix := func(v uint64) {
		h ^= v
		h *= 1099511628211
	}
	for _, v := range [...]float64{init.o, init.bw, init.p, init.n} {
		mix(math.Float64bits(v))
	}
	mix(uint64(len(samples)))
	for _, s := range samples {
		o := s.op
		for _, v := range [...]int{int(o.Kind), o.M, o.K, o.N, o.Experts, o.Rows, o.Hidden, o.Inter,
			o.Batch, o.QLen, o.KVLen, o.Heads, o.KVHeads, o.HeadDim, o.LatentDim, o.RopeDim, o.Dim, o.TopK, int(o.WeightDType)} {
			mix(uint64(v))
		}
		mix(math.Float64bits(s.t))
	}
	return h
}

// fittedRoof returns the roofline fitted to samples from init: the stored
// fit from fittedRoofs (fits of the shipped profile, written by `go
// generate ./dash/gpu` and checked against a fresh fit by TestFittedRoofs)
// when the samples and prior are the ones it was fitted to, else a fit made
// now. A fit costs a few milliseconds per kind, most of a process's start-up
// before they were stored; a profile of one's own, or the refits of the
// error studies, are fitted as before.
func fittedRoof(samples []sample, init roof) roof {
	if r, ok := fittedRoofs[fitKey(samples, init)]; ok {
		return r
	}
	return fitRoof(samples, init)
}
