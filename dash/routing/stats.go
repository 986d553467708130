package routing

// Stats are a trace's routing properties per layer, in the measures the
// literature publishes them in, so that a recorded trace and a generated
// one can be compared with each other and with the papers.
type Stats struct {
	// Layers are the trace's layer numbers.
	Layers []int
	// Experts is the number of experts the measures assume (the model's).
	Experts int
	// TopK is the trace's top-k.
	TopK int
	// Tokens is the number of tokens measured.
	Tokens int
	// HotLoad[l] is the relative load of layer l's most selected expert:
	// its selections over the balanced share (DeepSeek-V3's Fig. 9 metric;
	// 1 is perfectly balanced).
	HotLoad []float64
	// FirstRepeat[l] is the share of consecutive tokens (of one request)
	// whose first-choice expert at layer l is the same (Mixtral's Table 5,
	// "first choice"); FirstRepeatRandom its value under uniform routing.
	FirstRepeat       []float64
	FirstRepeatRandom float64
	// AnyRepeat[l] is the share of consecutive tokens sharing at least one
	// expert at layer l (Mixtral's "first or second choice" for top-2);
	// AnyRepeatRandom its value under uniform routing.
	AnyRepeat       []float64
	AnyRepeatRandom float64
	// NextLayer[l] (l >= 1) is how well a token's first choice at layer
	// l-1 predicts its first choice at layer l: the share of tokens whose
	// first choice at l is the most common successor of their first choice
	// at l-1 (ExFlow's inter-layer affinity, read as a top-1 prediction);
	// NextLayer[0] is 0. Under independent layers it tends to 1/E as the
	// tokens grow (with few tokens per expert it is larger by chance).
	NextLayer []float64
}

// Analyze measures trace t for a model of experts routed experts.
func Analyze(t *Trace, experts int) Stats {
	L, k := len(t.layers), t.k
	st := Stats{Layers: t.Layers(), Experts: experts, TopK: k, HotLoad: make([]float64, L), FirstRepeat: make([]float64, L),
		AnyRepeat: make([]float64, L), NextLayer: make([]float64, L)}
	st.FirstRepeatRandom = 1 / float64(experts)
	// P(two uniform k-subsets of E are disjoint) = C(E-k, k) / C(E, k)
	disjoint := 1.0
	for i := range k {
		disjoint *= float64(experts-k-i) / float64(experts-i)
	}
	if experts < 2*k {
		disjoint = 0
	}
	st.AnyRepeatRandom = 1 - disjoint
	counts := make([]int64, experts)
	pairs := 0
	trans := make(map[[2]uint16]int64)
	for l := range L {
		clear(counts)
		clear(trans)
		first, any := 0, 0
		pairs = 0
		for r := range t.Requests() {
			n := t.Tokens(r)
			for tok := range n {
				row := t.Experts(r, tok, l)
				for _, e := range row {
					if int(e) < experts {
						counts[e]++
					}
				}
				if l > 0 {
					trans[[2]uint16{t.Experts(r, tok, l-1)[0], row[0]}]++
				}
				if tok == 0 {
					continue
				}
				pairs++
				prev := t.Experts(r, tok-1, l)
				if prev[0] == row[0] {
					first++
				}
				for _, e := range row {
					if holds(prev, e) {
						any++
						break
					}
				}
			}
		}
		var total, top int64
		for _, c := range counts {
			total += c
			top = max(top, c)
		}
		if total > 0 {
			st.HotLoad[l] = float64(top) / (float64(total) / float64(experts))
		}
		if pairs > 0 {
			st.FirstRepeat[l] = float64(first) / float64(pairs)
			st.AnyRepeat[l] = float64(any) / float64(pairs)
		}
		if l > 0 {
			best := map[uint16]int64{}
			var all int64
			for p, c := range trans {
				best[p[0]] = max(best[p[0]], c)
				all += c
			}
			var hit int64
			for _, c := range best {
				hit += c
			}
			if all > 0 {
				st.NextLayer[l] = float64(hit) / float64(all)
			}
		}
	}
	for r := range t.Requests() {
		st.Tokens += t.Tokens(r)
	}
	return st
}
