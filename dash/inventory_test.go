package dash

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dashlab/dashlab/dash/unit"
)

// catalogueIDs lists every model of reference/models.
var catalogueIDs = []string{
	"qwen3-235b-a22b", "mixtral-8x22b", "grok-1", "llama4-maverick", "deepseek-v3",
	"deepseek-v2", "qwen3-30b-a3b", "kimi-k2", "glm-4.5", "glm-5",
}

// readCatalogueModel decodes ../reference/models/<id>.yaml strictly.
func readCatalogueModel(id string) (ModelSpec, error) {
	path := filepath.Join("..", "reference", "models", id+".yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		return ModelSpec{}, err
	}
	var m ModelSpec
	if err := DecodeStrictBytes(data, path, &m); err != nil {
		return ModelSpec{}, err
	}
	return m, nil
}

func loadModel(tb testing.TB, id string) ModelSpec {
	tb.Helper()
	m, err := readCatalogueModel(id)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

func loadFootprint(tb testing.TB, id string) (ModelSpec, Inventory, Footprint) {
	tb.Helper()
	m := loadModel(tb, id)
	inv, err := m.Inventory()
	if err != nil {
		tb.Fatal(err)
	}
	return m, inv, inv.Footprint(m)
}

func TestCatalogueDecodesAndValidates(t *testing.T) {
	for _, id := range catalogueIDs {
		m := loadModel(t, id)
		if m.ID != id {
			t.Errorf("%s.yaml: id = %q", id, m.ID)
		}
		if err := m.Validate(); err != nil {
			t.Errorf("%s: %v", id, err)
		}
		if len(m.Sources) == 0 {
			t.Errorf("%s: no sources", id)
		}
	}
}

// TestTableII checks the checkpoint size against the paper's Table II
// (GB = 1e9 B).
func TestTableII(t *testing.T) {
	for _, test := range []struct {
		id      string
		paperGB float64
	}{
		{"qwen3-235b-a22b", 470.19}, {"mixtral-8x22b", 281.24}, {"grok-1", 318.24},
		{"llama4-maverick", 801.42}, {"deepseek-v3", 688.59}, {"deepseek-v2", 471.49},
	} {
		_, _, f := loadFootprint(t, test.id)
		if got := f.Bytes.GB(); math.Abs(got-test.paperGB) > 0.05 {
			t.Errorf("%s: weights = %.3f GB, paper %.2f GB", test.id, got, test.paperGB)
		}
	}
}

// paramsCheck is one model's line of models-footprint-check.txt: exact main
// parameters, the rest in billions to three decimals.
type paramsCheck struct {
	id                                     string
	params                                 int64
	routed, shared, nonExpert, embedHead   float64
	attention, denseMLP, router, norms     float64
	mtp                                    float64
	routedSharePct                         float64 // column A
	bf16MainGB, bf16ExpertGB, bf16NonExpGB float64
}

var footprintChecks = []paramsCheck{
	{"qwen3-235b-a22b", 235_093_634_560, 227.096, 0, 7.997, 1.245, 6.702, 0, 0.049, 0.001, 0, 96.60, 470.19, 454.19, 15.99},
	{"qwen3-30b-a3b", 30_532_122_624, 28.991, 0, 1.541, 0.622, 0.906, 0, 0.013, 0.000, 0, 94.95, 61.06, 57.98, 3.08},
	{"mixtral-8x22b", 140_620_634_112, 135.291, 0, 5.329, 0.393, 4.933, 0, 0.003, 0.001, 0, 96.21, 281.24, 270.58, 10.66},
	{"grok-1", 315_684_820_992, 309.238, 0, 6.447, 0.805, 5.637, 0, 0.003, 0.002, 0, 97.96, 631.37, 618.48, 12.89},
	{"llama4-maverick", 400_711_848_960, 386.547, 3.020, 11.145, 2.069, 3.020, 6.040, 0.016, 0.000, 0, 96.47, 801.42, 779.13, 22.29},
	{"deepseek-v3", 671_026_419_200, 653.909, 2.554, 14.563, 1.853, 11.413, 1.189, 0.106, 0.001, 13.463, 97.45, 1342.05, 1312.93, 29.13},
	{"deepseek-v2", 235_741_434_880, 222.718, 2.784, 10.240, 1.049, 8.954, 0.189, 0.048, 0.001, 0, 94.48, 471.48, 451.00, 20.48},
	{"kimi-k2", 1_026_408_232_448, 1014.686, 2.642, 9.080, 2.349, 6.168, 0.396, 0.165, 0.001, 0, 98.86, 2052.82, 2034.66, 18.16},
	{"glm-4.5", 352_797_829_024, 335.964, 2.100, 14.734, 1.552, 12.542, 0.566, 0.073, 0.001, 3.988, 95.23, 705.60, 676.13, 29.47},
	{"glm-5", 743_911_218_432, 724.776, 2.831, 16.304, 1.903, 13.603, 0.679, 0.118, 0.001, 9.953, 97.43, 1487.82, 1455.21, 32.61},
}

// classParams sums the main model's parameters of the given classes.
// params.py counts the norm weights inside attention (q/k norms, MLA q_a and
// kv_a norms, the indexer's k_norm) with the norms, not with attention;
// withAttnNorms selects whether those are included.
func classParams(inv Inventory, withAttnNorms bool, classes ...TensorClass) int64 {
	var n int64
	for _, t := range inv.Tensors {
		if t.MTP || t.Scale {
			continue
		}
		attnNorm := t.Class == ClassAttention && strings.Contains(t.Name, "norm")
		for _, c := range classes {
			if t.Class == c && (withAttnNorms || !attnNorm) {
				n += t.Elements()
			}
		}
	}
	return n
}

// normParams sums every norm weight of the main model, params.py style.
func normParams(inv Inventory) int64 {
	return classParams(inv, true, ClassNorm, ClassFinalNorm, ClassAttention) - classParams(inv, false, ClassAttention)
}

// TestFootprintCheck reproduces models-footprint-check.txt.
func TestFootprintCheck(t *testing.T) {
	billions := func(n int64) float64 { return float64(n) / 1e9 }
	for _, c := range footprintChecks {
		_, inv, f := loadFootprint(t, c.id)
		if f.Params != c.params {
			t.Errorf("%s: params = %d, want %d", c.id, f.Params, c.params)
		}
		if f.NonExpertParams+f.RoutedParams+f.SharedParams != f.Params {
			t.Errorf("%s: non-expert + routed + shared != params", c.id)
		}
		for _, p := range []struct {
			name string
			got  int64
			want float64
		}{
			{"routed", f.RoutedParams, c.routed}, {"shared", f.SharedParams, c.shared},
			{"non-expert", f.NonExpertParams, c.nonExpert}, {"embed+head", f.EmbeddingParams, c.embedHead},
			{"attention", classParams(inv, false, ClassAttention), c.attention},
			{"dense MLP", classParams(inv, true, ClassDenseFFN), c.denseMLP},
			{"router", classParams(inv, true, ClassRouter), c.router},
			{"norms", normParams(inv), c.norms},
			{"MTP", f.MTPParams, c.mtp},
		} {
			if math.Abs(billions(p.got)-p.want) > 0.0005 {
				t.Errorf("%s: %s params = %.4fB, want %.3fB", c.id, p.name, billions(p.got), p.want)
			}
		}
		// The txt's BF16 view of the main model: 2 B per parameter.
		for _, g := range []struct {
			name string
			got  int64
			want float64
		}{
			{"BF16 main", 2 * f.Params, c.bf16MainGB},
			{"BF16 expert", 2 * (f.RoutedParams + f.SharedParams), c.bf16ExpertGB},
			{"BF16 non-expert", 2 * f.NonExpertParams, c.bf16NonExpGB},
		} {
			if math.Abs(float64(g.got)/1e9-g.want) > 0.005 {
				t.Errorf("%s: %s = %.3f GB, want %.2f GB", c.id, g.name, float64(g.got)/1e9, g.want)
			}
		}
		if math.Abs(f.ExpertSharePct-c.routedSharePct) > 0.005 {
			t.Errorf("%s: expert share = %.3f%%, want %.2f%%", c.id, f.ExpertSharePct, c.routedSharePct)
		}
	}
}

// TestExpertShareRange checks the catalogue's span of routed/params against
// the txt: 94.48% (DeepSeek-V2) to 98.86% (Kimi-K2).
func TestExpertShareRange(t *testing.T) {
	lo, hi := math.Inf(1), math.Inf(-1)
	var loID, hiID string
	for _, id := range catalogueIDs {
		_, _, f := loadFootprint(t, id)
		if f.ExpertSharePct < lo {
			lo, loID = f.ExpertSharePct, id
		}
		if f.ExpertSharePct > hi {
			hi, hiID = f.ExpertSharePct, id
		}
	}
	if loID != "deepseek-v2" || math.Abs(lo-94.48) > 0.005 {
		t.Errorf("min expert share = %.3f%% (%s), want 94.48%% (deepseek-v2)", lo, loID)
	}
	if hiID != "kimi-k2" || math.Abs(hi-98.86) > 0.005 {
		t.Errorf("max expert share = %.3f%% (%s), want 98.86%% (kimi-k2)", hi, hiID)
	}
}

// TestCheckpointBytes checks the quantised layouts against the txt and
// models.yaml.
func TestCheckpointBytes(t *testing.T) {
	for _, test := range []struct {
		id                           string
		exact                        unit.Bytes // 0: not known exactly
		totalGB, mainGB, mtpGB       float64
		expertGB, nonExpertGB, scale float64
	}{
		{"grok-1", 318_239_694_848, 318.24, 318.24, 0, 309.36, 8.88, 0.12},
		{"deepseek-v3", 688_574_839_360, 688.57, 673.15, 15.42, 656.62, 16.53, 0.17},
		{"kimi-k2", 0, 1029.17, 1029.17, 0, 1017.58, 11.60, 0.25},
	} {
		_, _, f := loadFootprint(t, test.id)
		if test.exact != 0 && f.Bytes != test.exact {
			t.Errorf("%s: checkpoint = %d B, want %d B", test.id, int64(f.Bytes), int64(test.exact))
		}
		for _, g := range []struct {
			name string
			got  unit.Bytes
			want float64
		}{
			{"total", f.Bytes, test.totalGB}, {"main", f.MainBytes, test.mainGB}, {"MTP", f.MTPBytes, test.mtpGB},
			{"expert", f.RoutedExpertBytes + f.SharedExpertBytes, test.expertGB},
			{"non-expert", f.NonExpertBytes, test.nonExpertGB}, {"scales", f.ScaleBytes, test.scale},
		} {
			if math.Abs(g.got.GB()-g.want) > 0.005 {
				t.Errorf("%s: %s bytes = %.4f GB, want %.2f GB", test.id, g.name, g.got.GB(), g.want)
			}
		}
		if f.MainBytes+f.MTPBytes != f.Bytes {
			t.Errorf("%s: main %d + MTP %d != total %d", test.id, f.MainBytes, f.MTPBytes, f.Bytes)
		}
	}
}

// TestDeepSeekV3Tensors checks the inventory against the third-party R1
// checkpoint report: 91,991 tensors and 684,531,386,000 elements including
// scales.
func TestDeepSeekV3Tensors(t *testing.T) {
	_, inv, _ := loadFootprint(t, "deepseek-v3")
	var tensors int
	var elements int64
	for _, x := range inv.Tensors {
		tensors += x.Count
		elements += x.Elements()
	}
	if tensors != 91_991 || elements != 684_531_386_000 {
		t.Errorf("deepseek-v3: %d tensors, %d elements; want 91991, 684531386000", tensors, elements)
	}
}

func TestKVBytesPerTokenPerLayer(t *testing.T) {
	for _, test := range []struct {
		id   string
		want unit.Bytes
	}{
		{"qwen3-235b-a22b", 2 * 4 * 128 * 2}, // K and V, 4 KV heads of 128, BF16
		{"qwen3-30b-a3b", 2 * 4 * 128 * 2},
		{"mixtral-8x22b", 2 * 8 * 128 * 2},
		{"grok-1", 2 * 8 * 128 * 2},
		{"llama4-maverick", 2 * 8 * 128 * 2},
		{"glm-4.5", 2 * 8 * 128 * 2},
		{"deepseek-v3", (512 + 64) * 2}, // MLA latent + decoupled rope key
		{"deepseek-v2", (512 + 64) * 2},
		{"kimi-k2", (512 + 64) * 2},
		{"glm-5", (512+64)*2 + 128*2}, // plus the DSA indexer key
	} {
		_, _, f := loadFootprint(t, test.id)
		if f.KVBytesPerTokenPerLayer != test.want {
			t.Errorf("%s: KV = %d B/token/layer, want %d", test.id, f.KVBytesPerTokenPerLayer, test.want)
		}
	}
}

// TestLlama4LongDecodeKV reproduces the paper's 197.413 GB KV cache of Llama
// 4 Maverick after a 4096-token prompt and 1,000,000 generated tokens.
func TestLlama4LongDecodeKV(t *testing.T) {
	m, _, f := loadFootprint(t, "llama4-maverick")
	kv := f.KVBytesPerTokenPerLayer * unit.Bytes(4096+1_000_000) * unit.Bytes(m.NumLayers)
	if kv != 1_004_096*48*4096 || math.Abs(kv.GB()-197.413) > 0.0005 {
		t.Errorf("llama4-maverick KV = %d B (%.4f GB), want 197.413 GB", int64(kv), kv.GB())
	}
}

func TestBytesPerExpert(t *testing.T) {
	for _, test := range []struct {
		id   string
		want unit.Bytes
	}{
		{"qwen3-235b-a22b", 3 * 4096 * 1536 * 2},
		{"qwen3-30b-a3b", 3 * 2048 * 768 * 2},
		{"mixtral-8x22b", 3 * 6144 * 16384 * 2},
		// INT8 matrices + BF16 scales: gate/up [1,32768], down [8,6144].
		{"grok-1", 3*6144*32768 + (2*32768+8*6144)*2},
		{"llama4-maverick", 3 * 5120 * 8192 * 2},
		// FP8 matrices + FP32 128x128 block scales: 2x[16,56] + [56,16].
		{"deepseek-v3", 3*7168*2048 + 3*16*56*4},
		{"kimi-k2", 3*7168*2048 + 3*16*56*4},
		{"deepseek-v2", 3 * 5120 * 1536 * 2},
		{"glm-4.5", 3 * 5120 * 1536 * 2},
		{"glm-5", 3 * 6144 * 2048 * 2},
	} {
		_, _, f := loadFootprint(t, test.id)
		if f.BytesPerExpert != test.want {
			t.Errorf("%s: bytes per expert = %d, want %d", test.id, f.BytesPerExpert, test.want)
		}
	}
}

func TestActiveParams(t *testing.T) {
	for _, test := range []struct {
		id   string
		want int64
	}{
		// non-expert + top-8 of 94 layers' experts (3*4096*1536 each).
		{"qwen3-235b-a22b", 7_997_238_784 + 8*94*3*4096*1536},
		// non-expert + 58 shared + 8 routed of 58 layers (3*7168*2048 each).
		{"deepseek-v3", 14_563_317_248 + 9*58*3*7168*2048},
	} {
		_, _, f := loadFootprint(t, test.id)
		if f.ActiveParams != test.want {
			t.Errorf("%s: active params = %d, want %d", test.id, f.ActiveParams, test.want)
		}
	}
}

// TestLayerSums checks that Layers, the model-level tensors and the MTP
// layers add up to the checkpoint, and the layer kinds match the spec.
func TestLayerSums(t *testing.T) {
	for _, id := range catalogueIDs {
		m, inv, f := loadFootprint(t, id)
		layers := inv.Layers(m)
		if len(layers) != m.NumLayers {
			t.Fatalf("%s: %d layers, want %d", id, len(layers), m.NumLayers)
		}
		var sum unit.Bytes
		moe := 0
		for i, w := range layers {
			if w.Layer != i || w.MoE != m.IsMoELayer(i) {
				t.Errorf("%s: layer %d: Layer = %d, MoE = %v", id, i, w.Layer, w.MoE)
			}
			if w.MoE {
				moe++
				if w.RoutedExperts != m.FFN.RoutedExperts || w.RoutedExpert != f.BytesPerExpert || w.DenseFFN != 0 {
					t.Errorf("%s: MoE layer %d: %+v", id, i, w)
				}
			} else if w.DenseFFN == 0 || w.RoutedExperts != 0 || w.Router != 0 {
				t.Errorf("%s: dense layer %d: %+v", id, i, w)
			}
			sum += w.Attention + w.Norms + w.Router + w.DenseFFN + w.SharedExperts +
				w.RoutedExpert*unit.Bytes(w.RoutedExperts)
			if w.Total() != w.Attention+w.Norms+w.Router+w.DenseFFN+w.SharedExperts+w.RoutedExpert*unit.Bytes(w.RoutedExperts) {
				t.Errorf("%s: layer %d: Total disagrees with its parts", id, i)
			}
		}
		for _, x := range inv.Tensors {
			if x.Layer < 0 || x.MTP {
				sum += x.Bytes()
			}
		}
		if sum != f.Bytes {
			t.Errorf("%s: layers + model-level + MTP = %d B, footprint %d B", id, sum, f.Bytes)
		}
		if moe != f.MoELayers || m.NumLayers-moe != f.DenseLayers {
			t.Errorf("%s: MoE/dense layers = %d/%d, want %d/%d", id, f.MoELayers, f.DenseLayers, moe, m.NumLayers-moe)
		}
	}
}

// TestInventoryShape checks entry invariants: counts, layers, names.
func TestInventoryShape(t *testing.T) {
	for _, id := range catalogueIDs {
		m, inv, _ := loadFootprint(t, id)
		if inv.Model != id {
			t.Errorf("%s: inventory model = %q", id, inv.Model)
		}
		seen := map[string]bool{}
		for _, x := range inv.Tensors {
			if x.Count < 1 || len(x.Shape) == 0 || x.DType.Size() == 0 {
				t.Errorf("%s: bad entry %+v", id, x)
			}
			if (x.Count > 1) != strings.Contains(x.Name, "{E}") {
				t.Errorf("%s: %s: Count %d and the {E} placeholder disagree", id, x.Name, x.Count)
			}
			if x.MTP != (x.Layer >= m.NumLayers) || x.Layer < -1 || x.Layer >= m.NumLayers+m.MTPLayers {
				t.Errorf("%s: %s: layer %d, MTP %v", id, x.Name, x.Layer, x.MTP)
			}
			if (x.Class == ClassMTPGlue) && !x.MTP {
				t.Errorf("%s: %s: MTP glue outside an MTP layer", id, x.Name)
			}
			if seen[x.Name] {
				t.Errorf("%s: duplicate tensor %s", id, x.Name)
			}
			seen[x.Name] = true
		}
	}
}

// TestCheckpointDTypes spot-checks the mixed layouts.
func TestCheckpointDTypes(t *testing.T) {
	for _, test := range []struct {
		id, name string
		dtype    DType
		shape    []int64
	}{
		{"grok-1", "model.embed_tokens.weight", FP32, []int64{131072, 6144}},
		{"grok-1", "model.layers.0.attn.o_proj.weight", INT8, []int64{6144, 6144}},
		{"grok-1", "model.layers.0.attn.o_proj.scales", BF16, []int64{8, 6144}},
		{"grok-1", "model.layers.0.attn.k_proj.scales", BF16, []int64{1, 1024}},
		{"grok-1", "model.layers.63.moe_block.experts.{E}.linear_1.scales", BF16, []int64{8, 6144}},
		{"grok-1", "model.layers.5.moe_block.gate.weight", FP32, []int64{8, 6144}},
		{"grok-1", "model.layers.5.post_moe_norm.weight", FP32, []int64{6144}},
		{"deepseek-v3", "model.layers.3.mlp.experts.{E}.down_proj.weight_scale_inv", FP32, []int64{56, 16}},
		{"deepseek-v3", "model.layers.3.self_attn.kv_a_proj_with_mqa.weight", FP8, []int64{576, 7168}},
		{"deepseek-v3", "model.layers.3.self_attn.kv_a_proj_with_mqa.weight_scale_inv", FP32, []int64{5, 56}},
		{"deepseek-v3", "model.layers.3.mlp.gate.weight", BF16, []int64{256, 7168}},
		{"deepseek-v3", "model.layers.3.mlp.gate.e_score_correction_bias", FP32, []int64{256}},
		{"deepseek-v3", "model.layers.61.eh_proj.weight", BF16, []int64{7168, 14336}},
		{"deepseek-v3", "model.layers.61.shared_head.head.weight", BF16, []int64{129280, 7168}},
		{"deepseek-v3", "model.layers.61.mlp.shared_experts.up_proj.weight", FP8, []int64{2048, 7168}},
		{"deepseek-v3", "lm_head.weight", BF16, []int64{129280, 7168}},
		{"glm-5", "model.layers.78.self_attn.indexer.wq_b.weight", BF16, []int64{4096, 2048}},
		{"glm-5", "model.layers.0.self_attn.indexer.weights_proj.weight", BF16, []int64{32, 6144}},
		{"llama4-maverick", "language_model.model.layers.0.feed_forward.down_proj.weight", BF16, []int64{5120, 16384}},
		{"llama4-maverick", "language_model.model.layers.47.feed_forward.shared_expert.gate_proj.weight", BF16, []int64{8192, 5120}},
		{"glm-4.5", "model.layers.91.self_attn.k_proj.bias", BF16, []int64{1024}},
	} {
		_, inv, _ := loadFootprint(t, test.id)
		var found *Tensor
		for i := range inv.Tensors {
			if inv.Tensors[i].Name == test.name {
				found = &inv.Tensors[i]
			}
		}
		if found == nil {
			t.Errorf("%s: no tensor %s", test.id, test.name)
			continue
		}
		if found.DType != test.dtype || fmt.Sprint(found.Shape) != fmt.Sprint(test.shape) {
			t.Errorf("%s: %s = %s %v, want %s %v", test.id, test.name, found.DType, found.Shape, test.dtype, test.shape)
		}
	}
}

func TestInventoryErrors(t *testing.T) {
	base := loadModel(t, "deepseek-v3")
	for _, test := range []struct {
		name   string
		mutate func(*ModelSpec)
		want   []string
	}{
		{"invalid spec", func(m *ModelSpec) { m.HiddenSize = 0 }, []string{"deepseek-v3", "hidden_size", "0"}},
		{"unknown arch", func(m *ModelSpec) { m.Arch = "nope" }, []string{"deepseek-v3", "arch", `"nope"`}},
		{"mla with bias", func(m *ModelSpec) { m.Attention.Bias = true }, []string{"deepseek-v3", "attention.bias", "mla"}},
	} {
		m := base
		mla := *base.Attention.MLA
		m.Attention.MLA = &mla
		test.mutate(&m)
		_, err := m.Inventory()
		if err == nil {
			t.Errorf("%s: no error", test.name)
			continue
		}
		for _, w := range test.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not mention %q", test.name, err, w)
			}
		}
		if _, err := m.Footprint(); err == nil {
			t.Errorf("%s: Footprint gave no error", test.name)
		}
	}
}

func TestDTypeAndClassStrings(t *testing.T) {
	for _, test := range []struct {
		d    DType
		size unit.Bytes
		s    string
	}{{BF16, 2, "bf16"}, {FP32, 4, "fp32"}, {FP8, 1, "fp8_e4m3"}, {INT8, 1, "int8"}, {0, 0, "DType(0)"}} {
		if test.d.Size() != test.size || test.d.String() != test.s {
			t.Errorf("DType %d: size %d %q, want %d %q", int(test.d), test.d.Size(), test.d, test.size, test.s)
		}
	}
	if ClassRoutedExpert.String() != "routed_expert" || TensorClass(99).String() != "TensorClass(99)" {
		t.Errorf("TensorClass strings: %q, %q", ClassRoutedExpert, TensorClass(99))
	}
}

// ExampleModelSpec_Footprint prints the Qwen3-235B-A22B summary.
func ExampleModelSpec_Footprint() {
	m, err := readCatalogueModel("qwen3-235b-a22b")
	if err != nil {
		fmt.Println(err)
		return
	}
	f, err := m.Footprint()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %.2f GB of weights\n", m.Name, f.Bytes.GB())
	fmt.Printf("routed experts: %.2f%% of %d parameters (%d active per token)\n", f.ExpertSharePct, f.Params, f.ActiveParams)
	fmt.Printf("one expert: %d B (%v)\n", int64(f.BytesPerExpert), f.BytesPerExpert)
	fmt.Printf("KV cache: %d B per token per layer\n", int64(f.KVBytesPerTokenPerLayer))
	// Output:
	// Qwen3-235B-A22B: 470.19 GB of weights
	// routed experts: 96.60% of 235093634560 parameters (22190763520 active per token)
	// one expert: 37748736 B (36 MiB)
	// KV cache: 2048 B per token per layer
}

func BenchmarkInventory(b *testing.B) {
	m := loadModel(b, "kimi-k2")
	for b.Loop() {
		if _, err := m.Inventory(); err != nil {
			b.Fatal(err)
		}
	}
}
