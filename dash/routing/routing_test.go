package routing

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// mixtral is Mixtral 8x22B's routing shape; qwen a fine-grained one with
// dense layers first (as DeepSeek's).
var (
	mixtral = Model{ID: "mixtral", Layers: 56, MoELayers: seq(0, 56), Experts: 8, TopK: 2}
	qwen    = Model{ID: "qwenish", Layers: 6, MoELayers: []int{2, 3, 4, 5}, Experts: 64, TopK: 4}
)

func seq(a, b int) []int {
	var s []int
	for i := a; i < b; i++ {
		s = append(s, i)
	}
	return s
}

func equal(t *testing.T, a, b *Trace) {
	t.Helper()
	if a.k != b.k || !slices.Equal(a.layers, b.layers) || !slices.Equal(a.reqIDs, b.reqIDs) || !slices.Equal(a.start, b.start) ||
		!slices.Equal(a.ids, b.ids) || !slices.Equal(a.weights, b.weights) || (a.weights == nil) != (b.weights == nil) {
		t.Fatalf("traces differ: k %d/%d layers %v/%v reqs %v/%v start %v/%v", a.k, b.k, a.layers, b.layers, a.reqIDs, b.reqIDs, a.start, b.start)
	}
}

func TestRoundTrips(t *testing.T) {
	tr, err := Generate(Synthetic{Seed: 3, Skew: 1, Repeat: 0.3, LayerCorr: 0.2, Tasks: 3, TaskOverlap: 0.5}, qwen, 3, 17)
	if err != nil {
		t.Fatal(err)
	}
	weighted := *tr
	weighted.weights = make([]float32, len(tr.ids))
	for i := range weighted.weights {
		weighted.weights[i] = float32(i%7) / 8
	}
	for _, tc := range []*Trace{tr, &weighted} {
		var j, p bytes.Buffer
		if err := EncodeJSONL(&j, tc); err != nil {
			t.Fatal(err)
		}
		back, err := DecodeJSONL(&j, "t.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		equal(t, tc, back)
		if err := EncodeParquet(&p, tc); err != nil {
			t.Fatal(err)
		}
		back, err = DecodeParquet(bytes.NewReader(p.Bytes()), int64(p.Len()), "t.parquet")
		if err != nil {
			t.Fatal(err)
		}
		equal(t, tc, back)
		if err := back.Check(qwen); err != nil {
			t.Fatal(err)
		}
	}
}

func TestJSONLErrorsNameTheLine(t *testing.T) {
	row := func(req, tok, layer int, experts string) string {
		return fmt.Sprintf(`{"request": %d, "token": %d, "layer": %d, "experts": %s}`, req, tok, layer, experts)
	}
	good := []string{row(0, 0, 2, "[1,2,3,4]"), row(0, 0, 3, "[1,2,3,4]"), row(0, 0, 4, "[1,2,3,4]"), row(0, 0, 5, "[1,2,3,4]")}
	cases := []struct {
		lines []string
		line  int
		want  string
	}{
		{append(slices.Clone(good), `{"request": 0, "token": 1, "layer": 2, "experts": [1,2,3,4], "Token": 1}`), 5, "unknown key"},
		{append(slices.Clone(good), `{"request": 0, "token": 1, "token": 1, "layer": 2, "experts": [1,2,3,4]}`), 5, "appears twice"},
		{append(slices.Clone(good), row(0, 1, 2, "[1,2,3]")), 5, "top-k of the first row"},
		{append(slices.Clone(good), row(0, 1, 2, "[1,1,3,4]")), 5, "appears twice"},
		{append(slices.Clone(good), row(0, 1, 2, "[1,2,3,-4]")), 5, "expert -4"},
		{append(slices.Clone(good), row(0, 2, 2, "[1,2,3,4]")), 5, "without gaps"},
		{append(slices.Clone(good), row(0, 1, 3, "[1,2,3,4]")), 5, "expected layer 2"},
		{append(slices.Clone(good), row(0, 1, 2, "[1,2,3,4.5]")), 5, "want an integer"},
		{append(slices.Clone(good), row(1, 0, 2, "[1,2,3,4]"), row(1, 0, 3, "[1,2,3,4]"), row(1, 1, 2, "[1,2,3,4]")), 7, "lacks layer 4"},
		{append(slices.Clone(good), row(1, 0, 2, "[1,2,3,4]"), row(0, 1, 2, "[1,2,3,4]")), 6, "contiguous"},
		{append(slices.Clone(good), `{"request": 0, "token": 1, "layer": 2, "experts": [1,2,3,4], "weights": [0.1,0.2,0.3,0.4]}`), 5, "weights given"},
		{append(slices.Clone(good), `{"request": 0, "token": 1, "layer": 2}`), 5, "missing key"},
		{append(slices.Clone(good), `{"request": 0, "token": 1, "layer": 2, "experts": [1,2,3,4]} {}`), 5, "more than one JSON value"},
		{append(slices.Clone(good), `[1,2]`), 5, "not a JSON object"},
		{[]string{row(0, 3, 2, "[1,2,3,4]")}, 1, "start at 0"},
	}
	for _, c := range cases {
		_, err := DecodeJSONL(strings.NewReader(strings.Join(c.lines, "\n")), "r.jsonl")
		var te *Error
		if !errors.As(err, &te) || te.Line != c.line || te.File != "r.jsonl" || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want r.jsonl:%d: ...%s", c.lines[len(c.lines)-1], err, c.line, c.want)
		}
	}
	if _, err := DecodeJSONL(strings.NewReader(""), "e.jsonl"); err == nil || !strings.Contains(err.Error(), "no rows") {
		t.Errorf("empty: %v", err)
	}
	long := `{"request": 0, "token": 0, "layer": 2, "experts": [` + strings.Repeat("1,", MaxLineBytes) + `1]}`
	if _, err := DecodeJSONL(strings.NewReader(long), "l.jsonl"); err == nil || !strings.Contains(err.Error(), "l.jsonl:1: line longer") {
		t.Errorf("long line: %v", err)
	}
}

func TestCheckAgainstTheModel(t *testing.T) {
	tr, err := Generate(Synthetic{Seed: 1}, qwen, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := EncodeJSONL(&buf, tr); err != nil {
		t.Fatal(err)
	}
	read := func(s string) *Trace {
		t.Helper()
		tr, err := DecodeJSONL(strings.NewReader(s), "m.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	text := buf.String()
	cases := []struct {
		m    Model
		text string
		want string
	}{
		{Model{ID: "k8", Layers: 6, MoELayers: []int{2, 3, 4, 5}, Experts: 64, TopK: 8}, text, "m.jsonl:1: 4 experts a row: model k8 selects top-8"},
		{Model{ID: "e16", Layers: 6, MoELayers: []int{2, 3, 4, 5}, Experts: 16, TopK: 4}, text, "model e16 has 16 routed experts"},
		{Model{ID: "dense3", Layers: 6, MoELayers: []int{2, 4, 5}, Experts: 64, TopK: 4}, text, "m.jsonl:2: layer 3: in model dense3"},
		{Model{ID: "more", Layers: 7, MoELayers: []int{2, 3, 4, 5, 6}, Experts: 64, TopK: 4}, text, "m.jsonl: no rows for layer 6"},
	}
	for _, c := range cases {
		err := read(c.text).Check(c.m)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.m.ID, err, c.want)
		}
	}
	// the line of the largest id is named
	lines := strings.Split(strings.TrimSpace(text), "\n")
	lines[5] = strings.Replace(lines[5], `"experts":[`, `"experts":[63,`, 1)
	lines[5] = lines[5][:strings.LastIndex(lines[5], ",")] + "]}"
	bad := read(strings.Join(lines, "\n"))
	if err := bad.Check(Model{ID: "e40", Layers: 6, MoELayers: []int{2, 3, 4, 5}, Experts: 40, TopK: 4}); err == nil || !strings.Contains(err.Error(), "m.jsonl:6: expert 63") {
		t.Errorf("largest id: %v", err)
	}
}

func TestBoundRule(t *testing.T) {
	tr, _ := Generate(Synthetic{Seed: 2}, qwen, 2, 5)
	strict, err := tr.Bind(qwen, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := strict.Need(2, 5); err != nil {
		t.Errorf("fits: %v", err)
	}
	if err := strict.Need(3, 5); err == nil || !strings.Contains(err.Error(), "holds 2 requests; the experiment needs 3") {
		t.Errorf("requests: %v", err)
	}
	if err := strict.Need(2, 6); err == nil || !strings.Contains(err.Error(), "holds 5 tokens; the experiment needs 6") {
		t.Errorf("tokens: %v", err)
	}
	if _, err := strict.Token(0, 5); err == nil || !strings.Contains(err.Error(), "token 5 is beyond it") {
		t.Errorf("token beyond: %v", err)
	}
	wrap, _ := tr.Bind(qwen, true)
	a, _ := wrap.Token(3, 7) // request 3 mod 2 = 1, token 7 mod 5 = 2
	b, _ := strict.Token(1, 2)
	if !slices.Equal(a, b) {
		t.Errorf("wrap: %v, want %v", a, b)
	}
	if e, _ := wrap.Selected(0, 0, 0); e != nil {
		t.Errorf("a dense layer selects %v", e)
	}
	if e, _ := wrap.Selected(0, 1, 4); !slices.Equal(e, tr.Experts(0, 1, 2)) {
		t.Errorf("layer 4 is the trace's position 2: %v", e)
	}
}

func TestSourceDrawsTheGeneratedTrace(t *testing.T) {
	s := Synthetic{Seed: 9, Skew: 0.8, Repeat: 0.4, LayerCorr: 0.3, Tasks: 4, TaskOverlap: 0.3}
	tr, err := Generate(s, mixtral, 4, 30)
	if err != nil {
		t.Fatal(err)
	}
	src, err := NewSource(s, mixtral)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range [][2]int{{0, 0}, {0, 1}, {1, 0}, {0, 2}, {0, 29}, {3, 5}, {0, 3}, {3, 5}, {3, 6}} {
		got, _ := src.Token(q[0], q[1])
		b, _ := tr.Bind(mixtral, false)
		want, _ := b.Token(q[0], q[1])
		if !slices.Equal(got, want) {
			t.Fatalf("request %d token %d: source %v, trace %v", q[0], q[1], got, want)
		}
	}
}

func TestGeneratorProperties(t *testing.T) {
	m := Model{ID: "m", Layers: 8, MoELayers: seq(0, 8), Experts: 64, TopK: 4}
	measure := func(s Synthetic) Stats {
		tr, err := Generate(s, m, 8, 400)
		if err != nil {
			t.Fatal(err)
		}
		return Analyze(tr, m.Experts)
	}
	mean := func(x []float64, from int) float64 {
		var s float64
		for _, v := range x[from:] {
			s += v
		}
		return s / float64(len(x)-from)
	}
	uni := measure(Synthetic{Seed: 1})
	skew := measure(Synthetic{Seed: 1, Skew: 1.2})
	rep := measure(Synthetic{Seed: 1, Repeat: 0.5})
	corr := measure(Synthetic{Seed: 1, LayerCorr: 0.6})
	if !(mean(skew.HotLoad, 0) > 2*mean(uni.HotLoad, 0)) {
		t.Errorf("hot load: uniform %.2f, skew 1.2 %.2f (HotLoad formula %.2f)", mean(uni.HotLoad, 0), mean(skew.HotLoad, 0), HotLoad(64, 1.2))
	}
	if got, top1 := mean(skew.HotLoad, 0), HotLoad(64, 1.2); got > top1 || got > 64/4 {
		t.Errorf("skew 1.2: hot load %.2f above the top-1 value %.2f or E/k = 16", got, top1)
	}
	one := Model{ID: "top1", Layers: 8, MoELayers: seq(0, 8), Experts: 64, TopK: 1}
	tr, _ := Generate(Synthetic{Seed: 1, Skew: 1.2}, one, 8, 400)
	if got, want := mean(Analyze(tr, 64).HotLoad, 0), HotLoad(64, 1.2); got < 0.85*want || got > 1.15*want {
		t.Errorf("top-1 skew 1.2: hot load %.2f, formula %.2f", got, want)
	}
	if !(mean(rep.FirstRepeat, 0) > 0.1 && mean(uni.FirstRepeat, 0) < 0.03) {
		t.Errorf("first repeat: uniform %.3f (random %.3f), repeat 0.5 %.3f", mean(uni.FirstRepeat, 0), uni.FirstRepeatRandom, mean(rep.FirstRepeat, 0))
	}
	if got, want := mean(uni.AnyRepeat, 0), uni.AnyRepeatRandom; got < want-0.03 || got > want+0.03 {
		t.Errorf("uniform any-repeat %.3f, random %.3f", got, want)
	}
	if !(mean(corr.NextLayer, 1) > mean(uni.NextLayer, 1)+0.3) {
		t.Errorf("next layer: uniform %.3f, layer_corr 0.6 %.3f", mean(uni.NextLayer, 1), mean(corr.NextLayer, 1))
	}
}

// TestMixtralCalibration holds what the generator's MixtralRepeat gives on
// Mixtral's shape within Table 5 of Jiang et al. (layer 15, first choice
// and first or second choice, over eight domains).
func TestMixtralCalibration(t *testing.T) {
	tr, err := Generate(Synthetic{Seed: 5, Repeat: MixtralRepeat}, mixtral, 8, 500)
	if err != nil {
		t.Fatal(err)
	}
	st := Analyze(tr, 8)
	var first, any float64
	for l := range st.FirstRepeat {
		first += st.FirstRepeat[l]
		any += st.AnyRepeat[l]
	}
	first /= float64(len(st.FirstRepeat))
	any /= float64(len(st.AnyRepeat))
	if first < 0.236 || first > 0.284 || any < 0.616 || any > 0.670 {
		t.Errorf("repeat %v: first choice %.3f, first or second %.3f: outside Mixtral's layer-15 ranges", MixtralRepeat, first, any)
	}
}

func TestBalancedTrace(t *testing.T) {
	m := Model{ID: "b", Layers: 3, MoELayers: []int{0, 1, 2}, Experts: 16, TopK: 2}
	tr, err := Balanced(m, 3, 4, 5)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := tr.Bind(m, false)
	if err := b.Need(3, 8); err != nil {
		t.Fatal(err)
	}
	distinct := func(tok []int) int {
		seen := map[uint16]bool{}
		for r := range 3 {
			for _, t := range tok {
				e, _ := b.Selected(r, t, 1)
				for _, x := range e {
					seen[x] = true
				}
			}
		}
		return len(seen)
	}
	if d := distinct([]int{0, 1, 2, 3}); d != 16 { // 3 x 4 x 2 = 24 picks over 16 experts
		t.Errorf("prefill: %d distinct", d)
	}
	if d := distinct([]int{5}); d != 6 { // B k = 6
		t.Errorf("decode: %d distinct", d)
	}
}

func TestCacheInvariants(t *testing.T) {
	const layers, experts = 5, 32
	profile := make([]int64, layers*experts)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range profile {
		profile[i] = int64(r.IntN(100))
	}
	for _, policy := range Policies() {
		for _, capacity := range []int{0, 1, 7, 40, 500} {
			c, err := NewCache(policy, capacity, layers, experts, profile)
			if err != nil {
				t.Fatal(err)
			}
			var sel []uint16
			for step := range 400 {
				l := step % layers
				sel = sel[:0]
				for _, e := range r.Perm(experts)[:1+r.IntN(12)] {
					sel = append(sel, uint16(e))
				}
				before := make([]bool, len(sel))
				for i, e := range sel {
					before[i] = c.Holds(l, int(e))
				}
				hit := make([]bool, len(sel))
				hits, fills := c.Access(l, sel, hit)
				n := 0
				for i := range sel {
					if hit[i] != before[i] {
						t.Fatalf("%s/%d: reported hit %v for expert %d held %v", policy, capacity, hit[i], sel[i], before[i])
					}
					if hit[i] {
						n++
					}
				}
				if n != hits || c.Len() > c.Capacity() || c.Capacity() > capacity || fills > len(sel)-hits {
					t.Fatalf("%s/%d: hits %d (counted %d), fills %d, held %d of %d", policy, capacity, hits, n, fills, c.Len(), c.Capacity())
				}
				if policy == PolicyStatic && fills != 0 {
					t.Fatalf("static cache filled %d", fills)
				}
				held := 0
				for k := range layers * experts {
					if c.Holds(k/experts, k%experts) {
						held++
					}
				}
				if held != c.Len() {
					t.Fatalf("%s/%d: holds %d, Len %d", policy, capacity, held, c.Len())
				}
			}
		}
	}
}

func TestVLLMCapture(t *testing.T) {
	// two responses: a prompt of 2 tokens and 1 generated, then two choices
	lines := `{"id": "cmpl-1", "prompt_routed_experts": [[[1,2],[3,4]],[[5,6],[7,0]]], "choices": [{"index": 0, "text": "x", "routed_experts": [[[2,3],[4,5]]]}]}
{"id": "cmpl-2", "prompt_routed_experts": [[[1,2],[3,4]]], "choices": [{"routed_experts": [[[0,1],[1,2]]]}, {"routed_experts": null}]}`
	tr, err := DecodeVLLM(strings.NewReader(lines), "c.vllm.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if tr.Requests() != 3 || tr.Tokens(0) != 3 || tr.Tokens(1) != 2 || tr.Tokens(2) != 1 || !tr.Ordinal() {
		t.Fatalf("requests %d, tokens %d %d %d", tr.Requests(), tr.Tokens(0), tr.Tokens(1), tr.Tokens(2))
	}
	m := Model{ID: "dsk", Layers: 4, MoELayers: []int{1, 3}, Experts: 8, TopK: 2}
	b, err := tr.Bind(m, false)
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := b.Selected(0, 2, 3); !slices.Equal(e, []uint16{4, 5}) {
		t.Errorf("request 0 token 2 decoder layer 3 (MoE layer 1): %v", e)
	}
	for _, c := range []struct{ text, want string }{
		{`{"prompt_routed_experts": [[[1,2],[3]]], "choices": [{}]}`, "c.vllm.jsonl:1: prompt_routed_experts: ragged"},
		{`{"choices": [{"routed_experts": null}]}`, "enable-return-routed-experts"},
		{`{"prompt_routed_experts": [[[1,2]]], "choices": [{"routed_experts": [[[1,2,3]]]}]}`, "layers and top-k differ"},
		{`[]`, "not a vLLM response"},
	} {
		if _, err := DecodeVLLM(strings.NewReader(c.text), "c.vllm.jsonl"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.text, err, c.want)
		}
	}
	if err := tr.Check(Model{ID: "three", Layers: 4, MoELayers: []int{1, 2, 3}, Experts: 8, TopK: 2}); err == nil || !strings.Contains(err.Error(), "no rows for MoE layer 2") {
		t.Errorf("ordinal check: %v", err)
	}
}
