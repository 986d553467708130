package gpu

import (
	"strings"
	"testing"
	"testing/fstest"
)

const shipped = "../../reference/profiles/h200-sxm"

func loadShipped(t testing.TB) *Profile {
	t.Helper()
	p, err := withCatalogue(LoadProfileDir(shipped))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadShippedProfile(t *testing.T) {
	p := loadShipped(t)
	count := map[OpKind]int{}
	for _, pt := range p.Points {
		count[pt.Op.Kind]++
		if pt.Median <= 0 || pt.P10 <= 0 || pt.P90 <= 0 || pt.Reps <= 0 {
			t.Errorf("%s:%d: incomplete point %+v", pt.File, pt.Line, pt)
		}
	}
	// misc.csv times each routing shape four times (merged into one point).
	want := map[OpKind]int{GEMM: 696, Grouped: 140, AttnPrefill: 15, AttnDecode: 66, AttnDecodeMLA: 19, RMSNorm: 24, Route: 6}
	for k, n := range want {
		if count[k] != n {
			t.Errorf("%v: %d points, want %d", k, count[k], n)
		}
	}
	if p.Env.GPU != "NVIDIA H200" || p.Env.SMs != 132 || p.Env.TinyKernelUs < 1.41 || p.Env.TinyKernelUs > 1.42 {
		t.Errorf("env = %+v", p.Env)
	}
	if g := p.GPU(); g.ID != "h200-sxm" {
		t.Errorf("profile GPU = %q, want h200-sxm", g.ID)
	}
	// The first GEMM row, as written.
	first := p.Points[0]
	if first.Model != "qwen3-235b-a22b" || first.Label != "qkv_proj" || first.Op != (Op{Kind: GEMM, M: 1, K: 4096, N: 9216}) ||
		first.Median != 24174 || first.P10 != 24064 || first.P90 != 24284 || first.Reps != 30 || first.Line != 2 {
		t.Errorf("first point = %+v", first)
	}
	// The MLA row's head_dim is the cached latent+rope width.
	for _, pt := range p.Points {
		if pt.Op.Kind == AttnDecodeMLA && (pt.Op.LatentDim != 512 || pt.Op.RopeDim != 64 || pt.Op.Heads != 128) {
			t.Fatalf("MLA point %+v", pt.Op)
		}
	}
}

func TestRepeatedMeasurementsMerged(t *testing.T) {
	fsys := fstest.MapFS{"misc.csv": {Data: []byte("op,M,dim,median_us,p10_us,p90_us,reps\n" +
		"softmax_topk8_of128,1,128,10,9,11,30\n" +
		"softmax_topk8_of128,1,128,10.4,10,12,30\n")}}
	p, err := withCatalogue(LoadProfile(fsys))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Points) != 1 {
		t.Fatalf("%d points, want 1", len(p.Points))
	}
	pt := p.Points[0]
	// geometric mean of 10 and 10.4 us
	if pt.Median != 10198 || pt.P10 != 9000 || pt.P90 != 12000 || pt.Reps != 60 {
		t.Errorf("merged point = %+v", pt)
	}
}

func TestLoadProfileRefusesMalformedFiles(t *testing.T) {
	const header = "model,op,M,K,N,median_us,p10_us,p90_us,reps\n"
	const good = "m,qkv,1,4096,9216,24.174,24.064,24.284,30\n"
	for _, tc := range []struct {
		name, file, data, want string
	}{
		{"empty file", "gemm.csv", "", "gemm.csv:1: empty file"},
		{"header only", "gemm.csv", header, "gemm.csv:2: empty file"},
		{"missing column", "gemm.csv", "model,op,M,N,median_us\nm,qkv,1,9216,24.1\n", `gemm.csv:1: missing column "K"`},
		{"missing latency column", "grouped.csv", "model,experts,rows_per_expert,hidden,moe_inter,p10_us\nq,1,1,4096,1536,24\n", `grouped.csv:1: missing column "median_us"`},
		{"non-numeric shape", "gemm.csv", header + good + "m,o,2,abc,9216,24.0,23.9,24.2,30\n", `gemm.csv:3: column "K": "abc" is not a finite number`},
		{"non-numeric latency", "gemm.csv", header + good + "m,o,2,4096,9216,fast,23.9,24.2,30\n", `gemm.csv:3: column "median_us": "fast" is not a finite number`},
		{"NaN latency", "attn.csv", "model,phase,batch,q_len,kv_len,heads,kv_heads,head_dim,median_us\nq,decode,1,1,512,64,4,128,NaN\n", `attn.csv:2: column "median_us": "NaN" is not a finite number`},
		{"fractional size", "gemm.csv", header + "m,o,1.5,4096,9216,24.0,23.9,24.2,30\n", `gemm.csv:2: column "M": 1.5: want a whole number from 1 to 16777216`},
		{"negative latency", "gemm.csv", header + good + good[:len(good)-1] + "\n" + "m,o,8,4096,9216,-3,23.9,24.2,30\n", `gemm.csv:4: column "median_us": latency -3 us: outside the plausible range 0.01 .. 1e+09 us`},
		{"zero latency", "misc.csv", "op,M,dim,median_us\nrmsnorm,1,4096,0\n", `misc.csv:2: column "median_us": latency 0 us: outside the plausible range`},
		{"zero p90", "gemm.csv", header + "m,o,8,4096,9216,24,23.9,0,30\n", `gemm.csv:2: column "p90_us": latency 0 us: outside the plausible range`},
		{"duplicate shape, different latency", "gemm.csv", header + good + "m,qkv,2,4096,9216,24.0,23.9,24.2,30\n" + "m,qkv,1,4096,9216,30.0,29.9,30.2,30\n",
			"gemm.csv:4: duplicate shape with a different latency: median_us 30 here, 24.174 at line 2"},
		{"ragged row", "gemm.csv", header + "m,o,8,4096\n", "gemm.csv:2: wrong number of fields"},
		{"unknown phase", "attn.csv", "model,phase,batch,q_len,kv_len,heads,kv_heads,head_dim,median_us\nq,verify,1,1,512,64,4,128,7\n", `attn.csv:2: column "phase": "verify" is not prefill, decode or decode_absorbed`},
		{"unknown misc op", "misc.csv", "op,M,dim,median_us\nlayernorm,1,4096,4\n", `misc.csv:2: column "op": unknown operator "layernorm"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadProfile(fstest.MapFS{tc.file: {Data: []byte(tc.data)}})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestLoadProfileExtraColumnsAndOrder(t *testing.T) {
	// Columns in another order, an extra one, no p10/p90/reps.
	fsys := fstest.MapFS{"gemm.csv": {Data: []byte("N,K,M,median_us,gpu_temp_c\n9216,4096,1,24.174,51\n9216,4096,2,24.0,51\n")}}
	p, err := withCatalogue(LoadProfile(fsys))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Points) != 2 || p.Points[1].Op != (Op{Kind: GEMM, M: 2, K: 4096, N: 9216}) || p.Points[1].Median != 24000 {
		t.Errorf("points = %+v", p.Points)
	}
	if _, err := LoadProfile(fstest.MapFS{"notes.txt": {Data: []byte("hi")}}); err == nil || !strings.Contains(err.Error(), "no profile files") {
		t.Errorf("profile without CSVs: error = %v", err)
	}
}

func TestLoadProfileDirNamesPaths(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir+"/gemm.csv", "model,op,M,K,N\n")
	_, err := LoadProfileDir(dir)
	if err == nil || !strings.Contains(err.Error(), dir+`/gemm.csv:1: missing column "median_us"`) {
		t.Fatalf("error = %v", err)
	}
}

func TestReadShapes(t *testing.T) {
	in := "model,phase,batch,q_len,kv_len,heads,kv_heads,head_dim,median_us\n" +
		"x,decode,8,1,3000,32,8,128,\n" +
		"x,decode_absorbed,2,1,700,64,1,576,12\n"
	st, err := ReadShapes(strings.NewReader(in), "stdin", "attn")
	if err != nil {
		t.Fatal(err)
	}
	want := []Op{
		{Kind: AttnDecode, Batch: 8, QLen: 1, KVLen: 3000, Heads: 32, KVHeads: 8, HeadDim: 128},
		{Kind: AttnDecodeMLA, Batch: 2, QLen: 1, KVLen: 700, Heads: 64, HeadDim: 576, LatentDim: 512, RopeDim: 64},
	}
	for i, op := range st.Ops {
		if op != want[i] {
			t.Errorf("row %d: %+v, want %+v", i, op, want[i])
		}
	}
	if _, err := ReadShapes(strings.NewReader(in), "stdin", "conv"); err == nil || !strings.Contains(err.Error(), `unknown profile kind "conv"`) {
		t.Errorf("unknown kind: %v", err)
	}
	if _, err := ReadShapes(strings.NewReader("M,K\n1,2\n"), "stdin", "gemm"); err == nil || !strings.Contains(err.Error(), `stdin:1: missing column "N"`) {
		t.Errorf("missing column: %v", err)
	}
}

func TestProfileGPUMatchesCatalogue(t *testing.T) {
	for _, c := range []struct {
		name string
		sms  int
		want string
	}{
		{"NVIDIA H200", 132, "h200-sxm"},
		{"NVIDIA H200 SXM", 132, "h200-sxm"},
		{"NVIDIA H100 PCIe", 114, "h100-pcie"},
		{"NVIDIA H200 NVL", 132, "measured-nvidia-h200-nvl"},
		{"NVIDIA H100 80GB HBM3", 132, "measured-nvidia-h100-80gb-hbm3"},
		{"NVIDIA H200", 114, "measured-nvidia-h200"},
	} {
		p := &Profile{Env: Env{GPU: c.name, SMs: c.sms}, Catalogue: Specs()}
		if got := p.GPU().ID; got != c.want {
			t.Errorf("%q with %d SMs: %q, want %q", c.name, c.sms, got, c.want)
		}
	}
}
