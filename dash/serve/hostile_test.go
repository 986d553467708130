package serve

import (
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
)

// Issue 26's hostile inputs to the trace reader and the serving engine,
// one test per class of defect.

// repeat is a reader of n copies of b, produced on demand (no allocation
// of the whole input).
type repeat struct {
	b string
	n int64
	i int
}

func (r *repeat) Read(p []byte) (int, error) {
	k := 0
	for k < len(p) && r.n > 0 {
		c := copy(p[k:], r.b[r.i:])
		k += c
		if r.i += c; r.i == len(r.b) {
			r.i = 0
			r.n--
		}
	}
	if k == 0 {
		return 0, io.EOF
	}
	return k, nil
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// Panics: a first data row that opens a quote it never closes used to
// panic in FieldPos; it is refused at its line like a later one.
func TestTraceUnclosedQuoteFirstRow(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{traceHeader + "\"0,1,1\n", "q.csv:2: "},
		{traceHeader + "0,1,1\n\"1,1,1\n", "q.csv:3: "},
		{traceHeader + "\"0,1,1", "q.csv:2: "},
		{"\"arrival_s,prompt_tokens,output_tokens\n", "q.csv:1: "},
	} {
		_, err := DecodeTraceCSV(strings.NewReader(c.body), "q.csv")
		var te *TraceError
		if !errors.As(err, &te) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: %v, want a *TraceError starting %q", c.body, err, c.want)
		}
	}
}

const traceHeader = "arrival_s,prompt_tokens,output_tokens\n"

// Unbounded memory: a 250 MB field is refused at its line after 64 KiB,
// without holding it, and the error does not repeat it.
func TestTraceHugeField(t *testing.T) {
	for _, format := range []string{"csv", "jsonl"} {
		var err error
		n := allocated(func() {
			if format == "csv" {
				_, err = DecodeTraceCSV(io.MultiReader(strings.NewReader(traceHeader+"0,"), &repeat{b: "9", n: 250 << 20}), "big.csv")
			} else {
				_, err = DecodeTraceJSONL(io.MultiReader(strings.NewReader(`{"arrival_s": 0, "prompt_tokens": `), &repeat{b: "9", n: 250 << 20}), "big.jsonl")
			}
		})
		var te *TraceError
		if !errors.As(err, &te) || !strings.Contains(err.Error(), "longer than the limit") || len(err.Error()) > 200 {
			t.Errorf("%s: %.300v", format, err)
		}
		if n > 8<<20 {
			t.Errorf("%s: reading a 250 MB field allocated %d MB", format, n>>20)
		}
	}
}

// Unbounded memory: a trace of tiny rows is streamed: it stops at the
// request limit, its memory the requests', not the file's.
func TestTraceManyTinyRows(t *testing.T) {
	var err error
	n := allocated(func() {
		_, err = DecodeTraceCSV(io.MultiReader(strings.NewReader(traceHeader), &repeat{b: "0,1,1\n", n: 44 << 20}), "tiny.csv")
	})
	if err == nil || !strings.Contains(err.Error(), "tiny.csv:1048578: more than 1048576 requests") {
		t.Errorf("err = %v", err)
	}
	if n > 256<<20 {
		t.Errorf("reading %d tiny rows allocated %d MB", MaxRequests, n>>20)
	}
	// the output tokens a run generates are bounded too
	_, err = DecodeTraceCSV(io.MultiReader(strings.NewReader(traceHeader), &repeat{b: "0,1,16777216\n", n: 5}), "long.csv")
	if err == nil || !strings.Contains(err.Error(), "long.csv:6: more than 67108864 output tokens") {
		t.Errorf("err = %v", err)
	}
}

// Silently misread: a JSON Lines row names each key exactly once, spelt
// exactly, with a number.
func TestTraceJSONLStrictKeys(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{`{"arrival_s": 0, "prompt_tokens": 10, "output_tokens": 2, "output_tokens": 3}`, `:1: key "output_tokens" appears twice`},
		{`{"ARRIVAL_S": 0, "prompt_tokens": 10, "output_tokens": 2}`, `:1: unknown key "ARRIVAL_S"`},
		{`{"Arrival_s": 0, "prompt_tokens": 10, "output_tokens": 2}`, `:1: unknown key "Arrival_s"`},
		{`{"arrival_s": "0", "prompt_tokens": 10, "output_tokens": 2}`, `:1: arrival_s = "0": want a number`},
		{`{"arrival_s": null, "prompt_tokens": 10, "output_tokens": 2}`, `:1: arrival_s = null: want a number`},
		{`{"arrival_s": 0, "prompt_tokens": 10.5, "output_tokens": 2}`, `:1: prompt_tokens = "10.5": not an integer`},
		{`{"arrival_s": 0, "prompt_tokens": 10}`, `:1: missing key "output_tokens"`},
		{`{"arrival_s": 0, "prompt_tokens": 10, "output_tokens": 2} {}`, `:1: more than one JSON value`},
		{`[0, 10, 2]`, `:1: not a JSON object`},
	} {
		_, err := DecodeTraceJSONL(strings.NewReader(c.line+"\n"), "t.jsonl")
		var te *TraceError
		if !errors.As(err, &te) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.line, err, c.want)
		}
	}
}

// Misleading errors: a UTF-8 byte-order mark (spreadsheets write one) is
// skipped, not read as part of the first column's name.
func TestTraceBOM(t *testing.T) {
	reqs, err := DecodeTraceCSV(strings.NewReader("\ufeff"+traceHeader+"0,10,2\n1,10,2\n"), "bom.csv")
	if err != nil || len(reqs) != 2 {
		t.Errorf("CSV with a BOM: %v, %v", reqs, err)
	}
	reqs, err = DecodeTraceJSONL(strings.NewReader("\ufeff"+`{"arrival_s": 0, "prompt_tokens": 10, "output_tokens": 2}`+"\n"), "bom.jsonl")
	if err != nil || len(reqs) != 1 {
		t.Errorf("JSON Lines with a BOM: %v, %v", reqs, err)
	}
	if _, err := ReadTrace(""); err == nil || !strings.Contains(err.Error(), "no trace file named") {
		t.Errorf(`ReadTrace(""): %v`, err)
	}
}

// Misleading errors: a value is echoed cut to a readable length.
func TestTraceErrorsClipValues(t *testing.T) {
	long := strings.Repeat("x", 60_000)
	for _, body := range []string{traceHeader + "0," + long + ",2\n", traceHeader + long + ",1,2\n"} {
		_, err := DecodeTraceCSV(strings.NewReader(body), "long.csv")
		if err == nil || len(err.Error()) > 250 || !strings.Contains(err.Error(), "(60000 bytes)") {
			t.Errorf("error of %d bytes: %.300v", len(err.Error()), err)
		}
	}
}

// Hangs and nonsense: a Poisson rate so low that the arrivals pass the
// simulated clock's range (the run hung), or so high that they all fall
// on one nanosecond (offered_rps 0), is refused.
func TestPoissonRateBounds(t *testing.T) {
	for _, rate := range []float64{1e-9, 1e-6, 1e300, 2e6, -1, 0} {
		if _, err := Poisson(rate, 1152, Fixed(10), Fixed(2), 1); err == nil || !strings.Contains(err.Error(), "rate = ") {
			t.Errorf("rate %v: %v", rate, err)
		}
	}
	reqs, err := Poisson(MaxRate, 1152, Fixed(10), Fixed(2), 1)
	if err != nil || reqs[len(reqs)-1].Arrival <= reqs[0].Arrival {
		t.Errorf("rate %v: %v", float64(MaxRate), err)
	}
	if _, err := Poisson(MinRate(1152), 1152, Fixed(10), Fixed(2), 1); err != nil {
		t.Errorf("the lowest rate: %v", err)
	}
	if _, err := Poisson(1, MaxRequests, Fixed(10), Fixed(128), 1); err == nil || !strings.Contains(err.Error(), "more than the 67108864") {
		t.Errorf("too many output tokens: %v", err)
	}
}

// Silently clamped: a chunk longer than the token budget ran as the budget
// while the settings said otherwise.
func TestSchedulerChunkAboveBudget(t *testing.T) {
	s := PaperScheduler()
	s.Chunk = 100_000
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "chunk_tokens = 100000: above token_budget (8192)") {
		t.Errorf("err = %v", err)
	}
	s.Chunk = s.TokenBudget
	if err := s.Validate(); err != nil {
		t.Errorf("a chunk of the whole budget: %v", err)
	}
}

// Misleading errors: requests that never fit are rejected and counted,
// even when they are the last ones (the run used to fail with "no work at
// 0ns"), and a prompt beyond the model's context is one of them.
func TestNeverFittingLastRequestsCounted(t *testing.T) {
	cfg := Config{Experiment: small(t, "dash"), Scheduler: PaperScheduler()}
	for _, reqs := range [][]Request{
		{{ID: 0, Prompt: MaxTokens, Output: 2}},
		{{ID: 0, Prompt: 10, Output: 2}, {ID: 1, Arrival: 5e9, Prompt: MaxTokens, Output: 2}, {ID: 2, Arrival: 5e9, Prompt: 10, Output: MaxTokens}},
	} {
		run := simulate(t, cfg, reqs)
		if run.Completed+len(run.Rejections) != len(reqs) || len(run.Rejections) != len(reqs)-run.Completed || len(run.Rejections) == 0 {
			t.Errorf("%d requests: completed %d, rejected %+v", len(reqs), run.Completed, run.Rejections)
		}
	}
	mc := cfg.Experiment.Model().MaxContext
	run := simulate(t, cfg, []Request{{ID: 0, Prompt: 10, Output: 2}, {ID: 1, Arrival: 1, Prompt: mc, Output: 2}})
	if run.Completed != 1 || len(run.Rejections) != 1 || !strings.Contains(run.Rejections[0].Reason, "max_context") {
		t.Errorf("a prompt beyond max_context %d: completed %d, rejected %+v", mc, run.Completed, run.Rejections)
	}
}
