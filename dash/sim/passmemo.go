package sim

import (
	"encoding/binary"
	"errors"
	"sync"

	"github.com/dashlab/dashlab/dash"
)

// passOutcome is a measured pass: its result and the increments of the
// statistics, in walk order, packed as zigzag varints (most are zero or
// small for one pass: a memo entry takes about a third of 88 int64s).
type passOutcome struct {
	res    PassResult
	packed []byte
}

func newPassOutcome(res PassResult, delta []int64) passOutcome {
	var buf [1024]byte
	b := buf[:0]
	for _, v := range delta {
		b = binary.AppendVarint(b, v)
	}
	return passOutcome{res: res, packed: append([]byte(nil), b...)}
}

// unpack returns the increments, in dst's storage.
func (o passOutcome) unpack(dst []int64) []int64 {
	dst = dst[:0]
	for b := o.packed; len(b) > 0; {
		v, n := binary.Varint(b)
		dst = append(dst, v)
		b = b[n:]
	}
	return dst
}

// PassMemo holds the measured outcomes of the heterogeneous passes of one
// experiment, for several Passers to share: a serving study replays many
// traces of a system (seeds, loads, the saturation runs in both modes), and
// a pass that one trace simulated replays in every other. Every pass starts
// with the memory system idle, so its outcome (duration, traffic and the
// increments of every statistic) is a function of its program, which the
// memo's key encodes exactly; sharing changes no result, only how many
// passes are simulated. A PassMemo is safe for concurrent use and bounded
// (maxPassMemo entries: it is cleared when full).
type PassMemo struct {
	exp   dash.Experiment
	mu    sync.RWMutex
	byKey map[string]passOutcome
}

// NewPassMemo returns an empty memo for the passes of exp.
func NewPassMemo(exp dash.Experiment) *PassMemo {
	return &PassMemo{exp: exp, byKey: map[string]passOutcome{}}
}

// Len is the number of passes held.
func (m *PassMemo) Len() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.byKey)
}

func (m *PassMemo) get(key []byte) (passOutcome, bool) {
	m.mu.RLock()
	o, ok := m.byKey[string(key)]
	m.mu.RUnlock()
	return o, ok
}

// put stores an outcome.
func (m *PassMemo) put(key []byte, o passOutcome) {
	m.mu.Lock()
	if len(m.byKey) >= maxPassMemo {
		clear(m.byKey)
	}
	m.byKey[string(key)] = o
	m.mu.Unlock()
}

// ShareMemo makes the Passer look passes up in m, and store those it
// simulates there, instead of in a memo of its own. m must hold the passes
// of the Passer's own experiment (the same built Experiment value, as
// NewPassMemo was given); a Passer with shortcuts off (Options.NoJump)
// ignores it. Replays still counts only the passes that repeat one of the
// Passer's own earlier passes, so that it does not depend on what other
// Passers ran first; SharedHits counts the others found in m.
func (p *Passer) ShareMemo(m *PassMemo) error {
	if p.e == nil {
		return errors.New("sim: Passer not made by NewPasser")
	}
	if m == nil || m.exp != p.exp {
		return errors.New("sim: ShareMemo: the memo holds another experiment's passes (make it with NewPassMemo of the Passer's experiment)")
	}
	p.memo = m
	return nil
}
