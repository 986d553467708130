package main

import (
	"fmt"
	"io"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/reference"
)

func init() {
	register(&command{name: "models", summary: "list the model catalogue with derived footprints", run: runModels})
}

// modelJSON is one catalogue row of `dashlab models --format json`.
type modelJSON struct {
	ID                      string      `json:"id"`
	Name                    string      `json:"name"`
	Attention               string      `json:"attention"`
	Layers                  int         `json:"layers"`
	MoELayers               int         `json:"moe_layers"`
	RoutedExperts           int         `json:"routed_experts"`
	SharedExperts           int         `json:"shared_experts"`
	TopK                    int         `json:"top_k"`
	Router                  string      `json:"router"`
	Checkpoint              dash.Layout `json:"checkpoint"`
	ParamsB                 float64     `json:"params_b"`
	ActiveParamsB           float64     `json:"active_params_b"`
	WeightsGB               float64     `json:"weights_gb"`
	ExpertSharePct          float64     `json:"expert_share_pct"`
	BytesPerExpert          int64       `json:"bytes_per_expert"`
	KVBytesPerTokenPerLayer int64       `json:"kv_bytes_per_token_per_layer"`
	KVBytesPerToken         int64       `json:"kv_bytes_per_token"`
	MaxContext              int         `json:"max_context"`
	LookaheadEligible       bool        `json:"lookahead_eligible"`
}

func runModels(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("models", "models [--format table|json|csv]", stderr)
	format := fs.String("format", "table", "output format: table, json or csv (one row per model)")
	if err := parseNoArgs(fs, args, format); err != nil {
		return err
	}
	var rows []modelJSON
	for _, id := range reference.ModelIDs() {
		m, err := reference.Model(id)
		if err != nil {
			return err
		}
		f, err := m.Footprint()
		if err != nil {
			return err
		}
		router := m.Router.Scoring
		if m.Router.GroupLimited {
			router += fmt.Sprintf(", group-limited %d/%d", m.Router.TopKGroups, m.Router.Groups)
		}
		if m.Router.ExpertBias {
			router += ", expert bias"
		}
		rows = append(rows, modelJSON{
			ID: m.ID, Name: m.Name, Attention: m.Attention.Kind, Layers: m.NumLayers, MoELayers: f.MoELayers,
			RoutedExperts: m.FFN.RoutedExperts, SharedExperts: m.FFN.SharedExperts, TopK: m.FFN.TopK,
			Router: router, Checkpoint: m.Checkpoint.Layout,
			ParamsB: float64(f.Params) / 1e9, ActiveParamsB: float64(f.ActiveParams) / 1e9,
			WeightsGB: f.Bytes.GB(), ExpertSharePct: f.ExpertSharePct, BytesPerExpert: int64(f.BytesPerExpert),
			KVBytesPerTokenPerLayer: int64(f.KVBytesPerTokenPerLayer),
			KVBytesPerToken:         int64(f.KVBytesPerTokenPerLayer) * int64(m.NumLayers),
			MaxContext:              m.MaxContext, LookaheadEligible: m.LookaheadEligible(),
		})
	}
	if ok, err := writeData(stdout, *format, rows, func() csvTable { return csvOf(rows) }); ok {
		return err
	}
	t := &table{}
	t.add("id", "attn", "layers(moe)", "experts/top-k", "router", "checkpoint", "params", "active", "weights", "expert%", "bytes/expert", "KV B/token/layer")
	for _, r := range rows {
		t.add(r.ID, r.Attention, fmt.Sprintf("%d(%d)", r.Layers, r.MoELayers),
			fmt.Sprintf("%d+%d/%d", r.RoutedExperts, r.SharedExperts, r.TopK), r.Router, string(r.Checkpoint),
			fmt.Sprintf("%.2fB", r.ParamsB), fmt.Sprintf("%.2fB", r.ActiveParamsB),
			fmt.Sprintf("%.2f GB", r.WeightsGB), fmt.Sprintf("%.2f", r.ExpertSharePct),
			fmt.Sprintf("%.2f MB", float64(r.BytesPerExpert)/1e6), fmt.Sprint(r.KVBytesPerTokenPerLayer))
	}
	t.write(stdout)
	return nil
}
