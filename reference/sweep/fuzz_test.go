package sweep

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dashlab/dashlab/dash/serve"
	"github.com/dashlab/dashlab/dash/sim"
)

// FuzzSweepSpec decodes and compiles arbitrary sweep specs and runs the
// first point of every one that compiles: a fixed point through the engine
// under a small budget, a serving point when its requests are few; rows of
// the first two points go through the CSV and JSONL encodings and back. Every
// input ends in an error or sane rows, never a panic or a hang. Seeds:
// every shipped sweep and issue 26's hostile specs.
func FuzzSweepSpec(f *testing.F) {
	files, _ := filepath.Glob("../sweeps/*.yaml")
	ci, _ := filepath.Glob("../sweeps/ci/*.yaml")
	for _, file := range append(files, ci...) {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data))
	}
	for _, axis := range []string{"{path: workload.batch, values: [1, 2.5]}", "{path: workload.batch, values: [2, 2.7]}",
		"{path: workload.batch, values: [1, 4, 10000000]}\nwhere: [\"workload.batch <= 4\"]",
		"{path: overrides.hbf.t_read, range: {from: 1us, to: 10000us, count: 10000}}\n  - {path: workload.prompt, range: {from: 1, to: 10000, step: 1}}",
		"{path: system, values: [" + strings.Repeat("x", 3000) + "]}"} {
		f.Add(hostileBase + "axes:\n  - " + axis + "\n")
	}
	f.Add("kind: serving\nbase: {model: qwen3-30b-a3b, system: dash}\nserving: {requests: 12, warmup: 2, prompt: {min: 128}, output: {min: 4}}\naxes: [{path: serving.load, values: [1e-9, 2]}]\n")
	f.Add("kind: serving\nbase: {model: qwen3-30b-a3b, system: dash}\nserving: {requests: 12, warmup: 2, prompt: {min: 128}, output: {min: 4}}\naxes: [{path: serving.load, values: [0.5, 2]}]\n")
	f.Fuzz(func(t *testing.T, text string) {
		s, err := DecodeSpec(strings.NewReader(text), "fuzz.yaml", "../sweeps")
		if err != nil {
			return
		}
		p, err := s.Compile()
		if err != nil {
			if len(err.Error()) > 16<<10 {
				t.Fatalf("an error of %d bytes", len(err.Error()))
			}
			return
		}
		if p.Len() < 1 || p.Len() > maxPoints || len(p.ID()) != 16 {
			t.Fatalf("%d points, id %q", p.Len(), p.ID())
		}
		h := p.Header()
		for i := range min(p.Len(), 2) {
			pt, err := p.Point(i)
			if err != nil {
				t.Fatal(err)
			}
			row := Row{Point: i, Points: p.Len(), Key: pt.Key, Sweep: p.ID(), Values: pt.Labels, Status: StatusFailed, Error: "x, \"y\""}
			for range h.Metrics {
				row.Metrics = append(row.Metrics, math.NaN())
			}
			for _, lf := range []lineFormat{csvFormat{}, jsonlFormat{}} {
				line := lf.encode(h, row)
				if len(line) > MaxRowBytes || strings.Count(line, "\n") != 1 {
					t.Fatalf("a row of %d bytes, %d newlines", len(line), strings.Count(line, "\n"))
				}
				back, err := lf.decode(h, strings.TrimSuffix(line, "\n"))
				if err != nil || back.Key != row.Key || back.Sweep != row.Sweep || strings.Join(back.Values, "\x00") != strings.Join(row.Values, "\x00") {
					t.Fatalf("%T round trip of %q: %+v, %v", lf, line, back, err)
				}
			}
			if i == 0 {
				fuzzPoint(t, p, pt)
			}
		}
	})
}

// fuzzPoint runs one point within the fuzzers' budget.
func fuzzPoint(t *testing.T, p *Plan, pt Point) {
	switch params := pt.Params.(type) {
	case *FixedRun:
		exp, err := pt.Builder().Build()
		if err != nil {
			return
		}
		r, err := sim.RunWith(exp, sim.Options{MaxEvents: 100_000, MaxWall: time.Second, DecodeSample: params.DecodeSample})
		if err != nil {
			var be *sim.BudgetError
			var te *sim.TimeRangeError
			if !errors.As(err, &be) && !errors.As(err, &te) {
				t.Fatalf("point %v: %v", pt.Labels, err)
			}
			return
		}
		if r.TTFT <= 0 || r.E2E < r.TTFT || !(r.Throughput > 0) {
			t.Fatalf("point %v: TTFT %v, E2E %v", pt.Labels, r.TTFT, r.E2E)
		}
	case *Serving:
		_, prompt, output, n, err := params.config()
		if err != nil || n > 32 || float64(n)*float64(max(prompt.Min, prompt.Max)+max(output.Min, output.Max)) > 20_000 {
			return // the budget: only small serving points run
		}
		out, err := p.kind.Run(context.Background(), pt)
		if err != nil {
			return // a failed row, with its error
		}
		run := out.Result.(*serve.Run)
		if run.Completed+len(run.Rejections) != n || len(out.Metrics) != len(ServingMetrics) {
			t.Fatalf("point %v: %d completed, %d rejected of %d", pt.Labels, run.Completed, len(run.Rejections), n)
		}
		for i, m := range out.Metrics {
			if m < 0 || math.IsInf(m, 0) {
				t.Fatalf("point %v: %s = %v", pt.Labels, ServingMetrics[i], m)
			}
		}
	}
}

// FuzzSweepRows reads arbitrary bytes as a sweep file, both as a file to
// merge (ReadRows) and as the journal of tinySpec's sweep to resume (its
// torn-line and not-a-sweep-file rules), and, after a "PAR1" prefix, as a
// Parquet file: every input ends in rows or an error, never a panic, and a
// resume never truncates a file that was not a sweep file of that shape.
// Seeds: tinySpec's files in the three formats, torn, damaged and foreign
// ones.
func FuzzSweepRows(f *testing.F) {
	p := compileYAML(f, tinySpec)
	h := p.Header()
	row := Row{Point: 3, Points: p.Len(), Key: "0123456789abcdef", Sweep: p.ID(), Values: []string{"qwen3-235b-a22b", "dash", "3µs"},
		Metrics: []float64{1, 2, math.NaN(), 4, 5}, Status: StatusOK}
	for _, lf := range []lineFormat{csvFormat{}, jsonlFormat{}} {
		whole := lf.header(h) + lf.encode(h, row)
		f.Add(lf == lineFormat(jsonlFormat{}), whole)
		f.Add(lf == lineFormat(jsonlFormat{}), whole[:len(whole)-7])
		f.Add(lf == lineFormat(jsonlFormat{}), "my notes\n")
		f.Add(lf == lineFormat(jsonlFormat{}), whole+"garbage\n"+lf.encode(h, row))
	}
	var pq bytes.Buffer
	pw, err := newParquetWriter(&pq, h)
	if err != nil {
		f.Fatal(err)
	}
	if err := pw.Write(row); err != nil || pw.Close() != nil {
		f.Fatal(err)
	}
	f.Add(true, "PAR1"+pq.String()) // a Parquet file, as its own first case
	f.Add(true, "PAR1"+pq.String()[:pq.Len()/2])
	f.Fuzz(func(t *testing.T, jsonl bool, data string) {
		ext := ".csv"
		var lf lineFormat = csvFormat{}
		if jsonl {
			ext, lf = ".jsonl", jsonlFormat{}
		}
		if parquetData, ok := strings.CutPrefix(data, "PAR1"); ok && jsonl {
			// the Parquet reader: rows or an error, never a panic
			path := filepath.Join(t.TempDir(), "rows.parquet")
			if err := os.WriteFile(path, []byte(parquetData), 0o644); err != nil {
				t.Fatal(err)
			}
			ReadRows(path, func(r Row) error {
				if r.check() != nil {
					t.Fatalf("a bad row read: %+v", r)
				}
				return nil
			})
			return
		}
		path := filepath.Join(t.TempDir(), "rows"+ext)
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadRows(path, func(r Row) error {
			if r.check() != nil {
				t.Fatalf("a bad row read: %+v", r)
			}
			return nil
		}); err != nil && len(err.Error()) > 4<<10 {
			t.Fatalf("an error of %d bytes", len(err.Error()))
		}
		s, err := scanLines(path, lf, &h, func(Row) error { return nil })
		if err != nil {
			return
		}
		if s.good > int64(len(data)) || s.torn && s.good == int64(len(data)) {
			t.Fatalf("scan %+v of %d bytes", s, len(data))
		}
		if !s.hasHeader && s.good == 0 && s.torn && !lf.tornFirst(h, strings.TrimSuffix(data, "\n")) {
			t.Fatalf("%q would be truncated as a torn header", data)
		}
	})
}
