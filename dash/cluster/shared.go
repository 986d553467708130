package cluster

import (
	"sync"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/sim"
)

// sharedPasses lets the serving runs of one capacity search (the
// backlogged run and every load of the bisection) share their stage
// passes, as serve.Study shares a system's passes between its traces: the
// instance layout built for serving once, and one sim.PassMemo per stage
// that every instance's stage Passer looks passes up in. A pass starts with
// the memory system idle, so its outcome is a function of its program,
// which the memo's key encodes exactly: sharing changes no result, only
// how many passes are simulated (the cluster group of the reproduction
// simulated each pass again in every run of its search).
type sharedPasses struct {
	mu    sync.Mutex
	src   dash.Experiment // the first stage's GPU experiment of the layout it is for
	w     dash.WorkloadSpec
	built Experiment
	memos []*sim.PassMemo
}

// layout returns e rebuilt for the per-GPU workload w, built once per w
// for the experiment the search runs (ok false for another experiment:
// the caller builds its own).
func (s *sharedPasses) layout(e Experiment, w dash.WorkloadSpec) (Experiment, []*sim.PassMemo, bool, error) {
	if s == nil || len(e.stages) == 0 {
		return Experiment{}, nil, false, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.memos == nil {
		b, err := e.WithWorkload(w)
		if err != nil {
			return Experiment{}, nil, false, err
		}
		s.src, s.w, s.built = e.stages[0].GPU, w, b
		for _, st := range b.stages {
			s.memos = append(s.memos, sim.NewPassMemo(st.GPU))
		}
	}
	if e.stages[0].GPU != s.src || w != s.w {
		return Experiment{}, nil, false, nil
	}
	b := s.built
	b.parallel = e.parallel // Data may differ; the stages do not depend on it
	return b, s.memos, true, nil
}

// shareMemos makes the instance's stage Passers use memos (one per stage).
func (in *Instance) shareMemos(memos []*sim.PassMemo) error {
	for s, sr := range in.stages {
		if err := sr.passer.ShareMemo(memos[s]); err != nil {
			return err
		}
	}
	return nil
}
