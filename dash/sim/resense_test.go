package sim

import (
	"testing"

	"github.com/dashlab/dashlab/dash/unit"
)

// TestResenseKeepsOneRunPerStream checks that the sensed chunks a program
// drops (resense) go back to the read queue as one run per stream, however
// the waves interleaved them: a run per chunk made each weighing quadratic
// in the chunks dropped (seed 54175 without GPU-HBF links ran for minutes
// of CPU instead of milliseconds).
func TestResenseKeepsOneRunPerStream(t *testing.T) {
	cfg, err := newConfig(build(t, "qwen3-235b-a22b", "dash", 1, 64, 2))
	if err != nil {
		t.Fatal(err)
	}
	e := newEngine(cfg)
	rt := &e.cfg.rt
	chunk := e.cfg.seg
	a := e.newStream(rt.hbfRead[0][0], -1, 100*chunk)
	b := e.newStream(rt.hbfRead[0][1], -1, 100*chunk)
	s := &e.hbf[0]
	const waves = 40
	for range waves {
		s.dataReg = append(s.dataReg, []seg{{stream: a, bytes: chunk}, {stream: b, bytes: chunk}})
	}
	s.dataReg[waves-1][1].bytes = chunk / 2 // b's last chunk is short
	e.resense(0)
	if len(s.readQ) != 1 {
		t.Fatalf("%d read groups, want 1", len(s.readQ))
	}
	g := s.readQ[0]
	if len(g.runs) != 2 {
		t.Fatalf("%d runs for 2 streams", len(g.runs))
	}
	for _, c := range []struct {
		r    readRun
		id   int32
		full int64
		last unit.Bytes
	}{{g.runs[0], a, waves, 0}, {g.runs[1], b, waves - 1, chunk / 2}} {
		if c.r.stream != c.id || c.r.full != c.full || c.r.last != c.last {
			t.Errorf("run of stream %d: %+v, want %d full chunks and a last of %v", c.id, c.r, c.full, c.last)
		}
	}
}
