package routing

import (
	"bytes"
	"slices"
	"testing"
)

// FuzzRoutingTrace feeds arbitrary bytes to every trace reader (JSON
// Lines, Parquet, the vLLM adapter): none may panic or hang, and a trace
// one accepts must survive a JSON Lines round trip, a model check and
// lookups of every token under both rules.
func FuzzRoutingTrace(f *testing.F) {
	tr, _ := Generate(Synthetic{Seed: 1, Skew: 1, Repeat: 0.3}, qwen, 2, 3)
	var j, p bytes.Buffer
	_ = EncodeJSONL(&j, tr)
	_ = EncodeParquet(&p, tr)
	f.Add(j.Bytes())
	f.Add(p.Bytes())
	f.Add([]byte(`{"request": 0, "token": 0, "layer": 0, "experts": [1, 2], "weights": [0.5, 0.25]}`))
	f.Add([]byte(`{"prompt_routed_experts": [[[1,2],[3,4]]], "choices": [{"routed_experts": [[[2,3],[4,5]]]}]}`))
	f.Add([]byte("\ufeff{\"request\": 1e3}\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var traces []*Trace
		if tr, err := DecodeJSONL(bytes.NewReader(data), "f.jsonl"); err == nil {
			traces = append(traces, tr)
		}
		if tr, err := DecodeVLLM(bytes.NewReader(data), "f.vllm.jsonl"); err == nil {
			traces = append(traces, tr)
		}
		if tr, err := DecodeParquet(bytes.NewReader(data), int64(len(data)), "f.parquet"); err == nil {
			traces = append(traces, tr)
		}
		for _, tr := range traces {
			var buf bytes.Buffer
			if err := EncodeJSONL(&buf, tr); err != nil {
				t.Fatal(err)
			}
			back, err := DecodeJSONL(&buf, "back.jsonl")
			if err != nil {
				t.Fatalf("round trip: %v", err)
			}
			if !slices.Equal(back.ids, tr.ids) || !slices.Equal(back.start, tr.start) || back.k != tr.k {
				t.Fatal("round trip changed the trace")
			}
			moe := tr.Layers()
			if tr.Ordinal() {
				moe = seq(0, len(moe))
			}
			m := Model{ID: "fit", Layers: moe[len(moe)-1] + 1, MoELayers: moe, Experts: tr.MaxExpert() + 1, TopK: tr.TopK()}
			if m.TopK > m.Experts {
				continue
			}
			for _, wrap := range []bool{false, true} {
				b, err := tr.Bind(m, wrap)
				if err != nil {
					t.Fatalf("a trace does not fit the model made to fit it: %v", err)
				}
				for r := range tr.Requests() + 1 {
					for tok := range min(tr.Tokens(min(r, tr.Requests()-1))+1, 64) {
						ids, err := b.Token(r, tok)
						if err == nil && len(ids) != len(moe)*tr.TopK() {
							t.Fatalf("token %d of request %d: %d ids", tok, r, len(ids))
						}
					}
				}
			}
			_ = Analyze(tr, tr.MaxExpert()+1)
			_ = tr.Check(qwen)
		}
	})
}
