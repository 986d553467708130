package sim

import (
	"testing"
)

// fixedRows runs a fixed-batch experiment's passes through a Passer: one
// prefill pass of B whole prompts, then L_out - 1 decode steps.
func fixedRows(t *testing.T, p *Passer, b, in, out int) (ttft, e2e Time) {
	t.Helper()
	rows := make([]Row, b)
	for i := range rows {
		rows[i] = Row{Tokens: in, Prompt: in}
	}
	if _, err := p.Run(rows); err != nil {
		t.Fatal(err)
	}
	ttft = p.Now()
	for s := 1; s < out; s++ {
		for i := range rows {
			rows[i] = Row{Tokens: 1, Cached: in + s - 1, Prompt: in}
		}
		if _, err := p.Run(rows); err != nil {
			t.Fatal(err)
		}
	}
	return ttft, p.Now()
}

// A batch of identical rows is the fixed-batch runner's pass: same TTFT
// and E2E, to the picosecond, with and without shortcuts.
func TestPasserReproducesFixedBatch(t *testing.T) {
	for _, sys := range []string{"dash", "relay-only", "direct-only"} {
		for _, model := range []string{"qwen3-235b-a22b", "deepseek-v2", "llama4-maverick"} {
			if model == "llama4-maverick" && sys != "dash" {
				continue
			}
			for _, b := range []int{1, 3} {
				exp := build(t, model, sys, b, 300, 12)
				want := run(t, exp, Options{})
				for _, noJump := range []bool{false, true} {
					p, err := NewPasser(exp, Options{NoJump: noJump})
					if err != nil {
						t.Fatal(err)
					}
					ttft, e2e := fixedRows(t, p, b, 300, 12)
					if ttft != want.TTFT || e2e != want.E2E {
						t.Errorf("%s/%s B=%d noJump=%v: TTFT %v E2E %v, fixed batch %v %v", model, sys, b, noJump, ttft, e2e, want.TTFT, want.E2E)
					}
				}
			}
		}
	}
}

// Heterogeneous passes: replay of an identical pass gives the simulated
// outcome, and the shortcuts change nothing.
func TestPasserHeterogeneous(t *testing.T) {
	exp := build(t, "qwen3-235b-a22b", "dash", 1, 512, 2)
	rows := []Row{{Tokens: 1, Cached: 4100, Prompt: 4096}, {Tokens: 1, Cached: 4150, Prompt: 4096},
		{Tokens: 512, Cached: 1024, Prompt: 4096}, {Tokens: 256, Cached: 0, Prompt: 256}}
	fast, _ := NewPasser(exp, Options{})
	slow, _ := NewPasser(exp, Options{NoJump: true})
	var first PassResult
	for k := range 3 {
		a, err := fast.Run(rows)
		if err != nil {
			t.Fatal(err)
		}
		b, err := slow.Run(rows)
		if err != nil {
			t.Fatal(err)
		}
		if a.Duration != b.Duration || fast.Now() != slow.Now() {
			t.Fatalf("pass %d: %v with shortcuts, %v without", k, a.Duration, b.Duration)
		}
		if k == 0 {
			first = a
			if a.Replayed || a.Tokens != 770 || a.Rows != 4 || a.Sampled != 3 || a.ActiveExperts != 128 {
				t.Fatalf("first pass: %+v", a)
			}
			if a.DirectRead == 0 || a.RelayRead == 0 || a.Written == 0 || a.LinkBusy <= 0 || a.LinkBusy > a.Duration {
				t.Fatalf("traffic: %+v", a)
			}
		} else if !a.Replayed || a.Duration != first.Duration || a.DirectRead != first.DirectRead {
			t.Fatalf("pass %d not replayed exactly: %+v vs %+v", k, a, first)
		}
	}
	if fast.Replays != 2 {
		t.Fatalf("replays = %d, want 2", fast.Replays)
	}
	// More KV makes a pass no shorter.
	longer := append([]Row(nil), rows...)
	longer[0].Cached += 2000
	c, _ := fast.Run(longer)
	if c.Duration < first.Duration {
		t.Fatalf("more KV, shorter pass: %v < %v", c.Duration, first.Duration)
	}
}

func TestPasserRejectsBadRows(t *testing.T) {
	exp := build(t, "qwen3-235b-a22b", "dash", 1, 512, 2)
	p, _ := NewPasser(exp, Options{})
	for _, rows := range [][]Row{nil, {{Tokens: 0, Prompt: 5}}, {{Tokens: 2, Cached: 10, Prompt: 5}},
		{{Tokens: 6, Cached: 0, Prompt: 5}}, {{Tokens: 1, Cached: -1, Prompt: 5}}} {
		if _, err := p.Run(rows); err == nil {
			t.Errorf("rows %+v accepted", rows)
		}
	}
}

// Layers that share a kernel (SameAttentionSpan) get exactly the kernel
// batchKernel computes for them, on a model with local and global layers.
func TestPasserSharedKernels(t *testing.T) {
	exp := build(t, "llama4-maverick", "dash", 1, 512, 2)
	p, err := NewPasser(exp, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rows := []Row{{Tokens: 1, Cached: 9000, Prompt: 8192}, {Tokens: 512, Cached: 8192, Prompt: 9000}, {Tokens: 700, Prompt: 700}}
	m := exp.Model()
	prev := p.pb.batchKernel(0, rows)
	for i := 1; i < m.NumLayers; i++ {
		k := p.pb.batchKernel(i, rows)
		if p.sameAsPrev[i] != sameKernel(k, prev) {
			t.Fatalf("layer %d: shared %v, kernels equal %v", i, p.sameAsPrev[i], sameKernel(k, prev))
		}
		prev = k
	}
	if _, err := p.Run(rows); err != nil {
		t.Fatal(err)
	}
}
