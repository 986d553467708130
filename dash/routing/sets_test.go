package routing

import (
	"slices"
	"sync"
	"testing"
)

// TestSelectionSets checks the bit sets against the ids they are computed
// from: each token's (Sets) and each request prefix's (PrefixSets), under
// both rules, past a block and past the memory bound, from goroutines at
// once; beyond an unwrapped trace both refuse as Token does.
func TestSelectionSets(t *testing.T) {
	wide := Model{ID: "wide", Layers: 3, MoELayers: []int{0, 2}, Experts: 130, TopK: 6} // three words a layer
	for _, m := range []Model{qwen, wide, mixtral} {
		tr, err := Generate(Synthetic{Seed: 5, Skew: 1, Repeat: 0.3}, m, 3, 2*setBlock+5)
		if err != nil {
			t.Fatal(err)
		}
		for _, wrap := range []bool{false, true} {
			b, err := tr.Bind(m, wrap)
			if err != nil {
				t.Fatal(err)
			}
			W, L := b.SetWords(), len(m.MoELayers)
			want := func(req, tok int) []uint64 {
				ids, err := b.Token(req, tok)
				if err != nil {
					t.Fatal(err)
				}
				s := make([]uint64, L*W)
				for i, x := range ids {
					s[(i/m.TopK)*W+int(x)/64] |= 1 << (x % 64)
				}
				return s
			}
			reqs, toks := 3, 2*setBlock+5
			if wrap {
				reqs, toks = 5, 3*toks
			}
			var wg sync.WaitGroup
			for g := range 3 {
				wg.Go(func() {
					for req := range reqs {
						prefix := make([]uint64, L*W)
						for tok := range toks {
							got, err := b.Sets(req, (tok+g*7)%toks)
							if err != nil {
								t.Error(err)
								return
							}
							if w := want(req, (tok+g*7)%toks); !slices.Equal(got, w) {
								t.Errorf("%s wrap %v: Sets(%d, %d) = %x, want %x", m.ID, wrap, req, tok, got, w)
								return
							}
							w := want(req, tok)
							for i := range prefix {
								prefix[i] |= w[i]
							}
							p, err := b.PrefixSets(req, tok+1)
							if err != nil {
								t.Error(err)
								return
							}
							if !slices.Equal(p, prefix) {
								t.Errorf("%s wrap %v: PrefixSets(%d, %d) = %x, want %x", m.ID, wrap, req, tok+1, p, prefix)
								return
							}
						}
					}
				})
			}
			wg.Wait()
			if wrap {
				continue
			}
			_, want1 := b.Token(0, toks)
			if _, err := b.Sets(0, toks); err == nil || err.Error() != want1.Error() {
				t.Errorf("Sets beyond: %v, want %v", err, want1)
			}
			if _, err := b.PrefixSets(0, toks+1); err == nil || err.Error() != want1.Error() {
				t.Errorf("PrefixSets beyond: %v, want %v", err, want1)
			}
			_, want2 := b.Token(3, 0)
			if _, err := b.Sets(3, 0); err == nil || err.Error() != want2.Error() {
				t.Errorf("Sets beyond the requests: %v, want %v", err, want2)
			}
		}
	}
}

// TestSelectionSetsBound drops the kept blocks past the memory bound and
// computes them again.
func TestSelectionSetsBound(t *testing.T) {
	tr, err := Generate(Synthetic{Seed: 6}, qwen, 2, 4*setBlock)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := tr.Bind(qwen, false)
	defer func(n int) { maxSetBytes = n }(maxSetBytes)
	maxSetBytes = 8 * setBlock * len(qwen.MoELayers) * b.SetWords() * 2 // two blocks
	first, _ := b.Sets(0, 0)
	first = slices.Clone(first)
	for tok := range 4 * setBlock {
		if _, err := b.Sets(1, tok); err != nil {
			t.Fatal(err)
		}
		if b.d.setBytes > maxSetBytes {
			t.Fatalf("keeps %d bytes, bound %d", b.d.setBytes, maxSetBytes)
		}
	}
	if again, _ := b.Sets(0, 0); !slices.Equal(again, first) {
		t.Errorf("recomputed %x, want %x", again, first)
	}
}

// The Bounds of one trace to models of as many experts share what they
// derive; a model of other experts derives its own.
func TestBoundsShareDerived(t *testing.T) {
	tr, err := Generate(Synthetic{Seed: 7}, qwen, 2, 8)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := tr.Bind(qwen, false)
	b, _ := tr.Bind(qwen, true)
	wider := qwen
	wider.Experts = 200
	c, err := tr.Bind(wider, false)
	if err != nil {
		t.Fatal(err)
	}
	if a.d != b.d || a.d == c.d {
		t.Errorf("derived tables: %p, %p (same experts), %p (200 experts)", a.d, b.d, c.d)
	}
	if _, err := a.Sets(1, 3); err != nil {
		t.Fatal(err)
	}
	if len(b.d.sets) != 1 || len(c.d.sets) != 0 {
		t.Errorf("blocks kept: %d shared, %d for 200 experts", len(b.d.sets), len(c.d.sets))
	}
	if s, _ := c.Sets(1, 3); len(s) != len(qwen.MoELayers)*c.SetWords() || c.SetWords() != 4 {
		t.Errorf("200 experts: %d words", len(s))
	}
}
