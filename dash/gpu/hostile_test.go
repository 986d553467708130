package gpu

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/dashlab/dashlab/internal/safeio"
)

// Issue 26's hostile profiles and shapes, one test per class of defect.

// Silently accepted: profiles took K = 1e12 and a 1e-300 µs median (which
// rounds to 0 ns); sizes, latencies and env.json values are bounded.
func TestProfileBounds(t *testing.T) {
	const header = "model,op,M,K,N,median_us\n"
	for _, c := range []struct{ file, data, want string }{
		{"gemm.csv", header + "m,o,1,1000000000000,1,24\n", `gemm.csv:2: column "K": 1e+12: want a whole number from 1 to 16777216`},
		{"gemm.csv", header + "m,o,1,4096,1,1e-300\n", `gemm.csv:2: column "median_us": latency 1e-300 us: outside the plausible range 0.01 .. 1e+09 us`},
		{"gemm.csv", header + "m,o,1,4096,1,1e300\n", `gemm.csv:2: column "median_us": latency 1e+300 us: outside`},
		{"misc.csv", "op,M,dim,median_us\nsoftmax_topk8_of1000000000000,1,128,10\n", `selects 8 of 1000000000000 experts`},
		{"misc.csv", "op,M,dim,median_us\nsoftmax_topk99999999999999999999,1,128,10\n", `selects 9223372036854775807 of 128 experts`},
		{"gemm.csv", header + "m,o,1,4096,1,24,\"x\n", `gemm.csv:2: `},
	} {
		_, err := LoadProfile(fstest.MapFS{c.file: {Data: []byte(c.data)}})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.data, err, c.want)
		}
	}
	gemm := fstest.MapFile{Data: []byte(header + "m,o,1,4096,1,24\n")}
	for _, env := range []string{`{"tiny_kernel_us": 1e300}`, `{"sms": -1}`, `{"mem_gb": 1e300}`, `{"gpu": "` + strings.Repeat("x", 2000) + `"}`} {
		_, err := LoadProfile(fstest.MapFS{"gemm.csv": &gemm, "env.json": {Data: []byte(env)}})
		if err == nil || !strings.Contains(err.Error(), "env.json: ") || len(err.Error()) > 300 {
			t.Errorf("%.80s: %v", env, err)
		}
	}
	// a UTF-8 byte-order mark is skipped
	if _, err := LoadProfile(fstest.MapFS{"gemm.csv": {Data: []byte("\ufeff" + header + "m,o,1,4096,1,24\n")}, "env.json": {Data: []byte("\ufeff{\"sms\": 132}")}}); err != nil {
		t.Errorf("BOM: %v", err)
	}
}

// Exit 0 with nonsense: GEMMs of 1e9^3 were all predicted as exactly 1e15
// µs, a silent cap; sizes are bounded where shapes are read, and a shape
// whose time or bytes pass what the model represents is marked.
func TestPredictOutOfRange(t *testing.T) {
	m := shippedModel(t, H200SXM())
	if pr := m.Predict(Op{Kind: GEMM, M: 1, K: 4096, N: 4096}); pr.OutOfRange || !(pr.Latency > 0) {
		t.Errorf("a small GEMM: %+v", pr)
	}
	huge := Op{Kind: AttnPrefill, Batch: MaxProfileDim, QLen: MaxProfileDim, KVLen: MaxProfileDim, Heads: MaxProfileDim, KVHeads: 1, HeadDim: MaxProfileDim}
	if pr := m.Predict(huge); !pr.OutOfRange || pr.Latency != MaxPredictedLatency {
		t.Errorf("a huge attention: %+v", pr)
	}
	if pr := m.Predict(Op{Kind: GEMM, M: 1e9, K: 1e9, N: 1e9}); !pr.OutOfRange {
		t.Errorf("a 1e9^3 GEMM: %+v", pr)
	}
	_, err := ReadShapes(strings.NewReader("M,K,N\n1000000000,1000000000,1000000000\n"), "stdin", "gemm")
	if err == nil || !strings.Contains(err.Error(), `stdin:2: column "M": 1e+09: want a whole number from 1 to 16777216`) {
		t.Errorf("ReadShapes: %v", err)
	}
}

// Unbounded memory: shapes are read through the line and size limits.
func TestReadShapesLimits(t *testing.T) {
	var ll *safeio.LineTooLongError
	_, err := ReadShapes(io.MultiReader(strings.NewReader("M,K,N\n1,"), strings.NewReader(strings.Repeat("9", MaxLineBytes+1))), "stdin", "gemm")
	if !errors.As(err, &ll) || !strings.Contains(err.Error(), "stdin:2: line longer than") {
		t.Errorf("a long line: %v", err)
	}
	_, err = ReadShapes(strings.NewReader("M,K,N\n\"1,2,3\n"), "stdin", "gemm")
	if err == nil || !strings.Contains(err.Error(), "stdin:2: ") {
		t.Errorf("an unclosed quote: %v", err)
	}
}

// Exit 0 with nonsense: a profile of one measurement reported a
// leave-one-out error of 0.00%, predicted from nothing; a kind measured
// once is left out.
func TestLeaveOneOutNeedsTwoPoints(t *testing.T) {
	p, err := withCatalogue(LoadProfile(fstest.MapFS{"gemm.csv": {Data: []byte("model,op,M,K,N,median_us\nm,o,1,4096,4096,24\n")}}))
	if err != nil {
		t.Fatal(err)
	}
	stats, err := p.LeaveOneOut()
	if err != nil || len(stats) != 0 {
		t.Errorf("one point: %+v, %v", stats, err)
	}
}
