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
)

// tinySpec runs fast: Qwen3 with a short decode, and a point that does not
// fit (Llama 4 on compact-dash), so rows carry errors and NaN metrics.
const tinySpec = `
name: tiny
base: {model: qwen3-235b-a22b, system: dash, workload: {batch: 2, prompt: 256, output: 8}}
axes:
  - {path: model, values: [qwen3-235b-a22b, llama4-maverick]}
  - {path: system, values: [dash, compact-dash]}
  - {path: overrides.hbf.t_read, values: [2us, 3us, 8us]}
`

func sameRows(t *testing.T, what string, a, b []Row) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%s: %d rows vs %d", what, len(a), len(b))
	}
	for i := range a {
		x, y := a[i], b[i]
		x.Result, y.Result = nil, nil
		same := x.Point == y.Point && x.Points == y.Points && x.Key == y.Key && x.Status == y.Status && x.Error == y.Error &&
			len(x.Values) == len(y.Values) && len(x.Metrics) == len(y.Metrics)
		for j := range x.Values {
			same = same && x.Values[j] == y.Values[j]
		}
		for j := range x.Metrics {
			same = same && (x.Metrics[j] == y.Metrics[j] || math.IsNaN(x.Metrics[j]) && math.IsNaN(y.Metrics[j]))
		}
		if !same {
			t.Fatalf("%s: row %d differs:\n%+v\n%+v", what, i, x, y)
		}
	}
}

func TestFormatsRoundTrip(t *testing.T) {
	p := compileYAML(t, tinySpec)
	want, err := Collect(context.Background(), p, 2)
	if err != nil {
		t.Fatal(err)
	}
	// an awkward error text survives every format
	want.Rows[1].Status, want.Rows[1].Error = StatusFailed, `a "quoted", comma, and ünïcode error`
	want.Rows[1].Metrics[2] = math.NaN()
	dir := t.TempDir()
	for _, ext := range []string{".csv", ".jsonl", ".parquet"} {
		path := filepath.Join(dir, "rows"+ext)
		err := WriteFile(path, want.Header, func(write func(Row) error) error {
			for _, r := range want.Rows {
				if err := write(r); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		got, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Header.Equal(want.Header) {
			t.Errorf("%s: header %v, want %v", ext, got.Header, want.Header)
		}
		sameRows(t, ext, got.Rows, want.Rows)
	}
}

func TestRunFileResume(t *testing.T) {
	p := compileYAML(t, tinySpec)
	dir := t.TempDir()
	for _, ext := range []string{".csv", ".jsonl", ".parquet"} {
		whole := filepath.Join(dir, "whole"+ext)
		if _, err := RunFile(context.Background(), p, whole, RunOptions{Workers: 2}); err != nil {
			t.Fatal(err)
		}
		// a run killed after some rows, in the middle of writing one
		killed := filepath.Join(dir, "killed"+ext)
		ctx, cancel := context.WithCancel(context.Background())
		n := 0
		sum, err := RunFile(ctx, p, killed, RunOptions{Workers: 2, Progress: func(done, _ int) {
			if n = done; done == 5 {
				cancel()
			}
		}})
		if !errors.Is(err, context.Canceled) || sum.Complete {
			t.Fatalf("%s: cancelled run: %v, %+v", ext, err, sum)
		}
		journal := killed
		if ext == ".parquet" {
			journal = JournalPath(killed)
			if _, err := os.Stat(killed); err == nil {
				t.Fatalf("%s: an incomplete Parquet file was written", ext)
			}
		}
		f, err := os.OpenFile(journal, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(`7,0123456789abcdef,12,llama4-mave`) // torn by the kill
		f.Close()
		if _, err := ReadRows(journal, func(Row) error { return nil }); ext != ".parquet" && err == nil {
			t.Errorf("%s: a torn file reads without error", ext)
		}
		sum, err = RunFile(context.Background(), p, killed, RunOptions{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		if !sum.Complete || sum.Existing < 5 || sum.Existing+sum.Ran != p.Len() {
			t.Errorf("%s: resume: %+v after %d rows", ext, sum, n)
		}
		a, _ := os.ReadFile(whole)
		b, _ := os.ReadFile(killed)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: resumed file differs from the uninterrupted one", ext)
		}
		if _, err := os.Stat(JournalPath(killed)); ext == ".parquet" && err == nil {
			t.Errorf("%s: journal left behind", ext)
		}
		// a second resume runs nothing
		sum, err = RunFile(context.Background(), p, killed, RunOptions{Workers: 2})
		if err != nil || sum.Ran != 0 || sum.Existing != p.Len() {
			t.Errorf("%s: second resume: %+v, %v", ext, sum, err)
		}
	}
	// another sweep's file is refused
	other := compileYAML(t, smallSpec)
	if _, err := RunFile(context.Background(), other, filepath.Join(dir, "whole.csv"), RunOptions{}); err == nil {
		t.Errorf("a file of another sweep was resumed")
	}
}

func TestMergeShards(t *testing.T) {
	p := compileYAML(t, tinySpec)
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.csv")
	if _, err := RunFile(context.Background(), p, whole, RunOptions{Workers: 2}); err != nil {
		t.Fatal(err)
	}
	wantBytes, _ := os.ReadFile(whole)
	for n := 1; n <= 4; n++ {
		var parts []string
		for i := range n {
			ext := []string{".csv", ".jsonl", ".parquet"}[i%3] // formats mix
			part := filepath.Join(dir, "part"+string(rune('0'+n))+string(rune('0'+i))+ext)
			if _, err := RunFile(context.Background(), p, part, RunOptions{Workers: 2, Shard: Shard{i, n}}); err != nil {
				t.Fatal(err)
			}
			parts = append(parts, part)
		}
		merged := filepath.Join(dir, "merged.csv")
		if err := Merge(merged, parts); err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		got, _ := os.ReadFile(merged)
		if !bytes.Equal(got, wantBytes) {
			t.Errorf("n=%d: merged shards differ from the unsharded run", n)
		}
		if n == 3 {
			var me *MergeError
			if err := Merge(merged, parts[:2]); !errors.As(err, &me) || me.NMissing == 0 {
				t.Errorf("a missing shard: %v", err)
			}
			if err := Merge(merged, append(parts, parts[1])); !errors.As(err, &me) || len(me.Duplicates) == 0 {
				t.Errorf("a duplicated shard: %v", err)
			}
			other := filepath.Join(dir, "other.csv")
			if _, err := RunFile(context.Background(), compileYAML(t, smallSpec), other, RunOptions{Shard: Shard{0, 4}}); err != nil {
				t.Fatal(err)
			}
			if err := Merge(merged, append(parts, other)); err == nil {
				t.Errorf("parts of two sweeps merged")
			}
			got, _ := os.ReadFile(merged)
			if !bytes.Equal(got, wantBytes) {
				t.Errorf("a failed merge changed the output")
			}
		}
	}
}

func TestTableFindAndHeat(t *testing.T) {
	p := compileYAML(t, tinySpec)
	tb, err := Collect(context.Background(), p, 2)
	if err != nil {
		t.Fatal(err)
	}
	r, err := tb.Find("model", "qwen3-235b-a22b", "system", "dash", "overrides.hbf.t_read", "3 us")
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusOK {
		t.Fatalf("row %+v", r)
	}
	misfit, err := tb.Find("model", "llama4-maverick", "system", "compact-dash", "overrides.hbf.t_read", "3us")
	if err != nil || misfit.Status != StatusDoesNotFit || !strings.Contains(misfit.Error, "does not fit") {
		t.Errorf("a capacity refusal: %+v, %v", misfit, err)
	}
	if _, err := tb.Find("system", "dash"); err == nil {
		t.Errorf("an ambiguous find succeeded")
	}
	q, _ := tb.Select("model", "qwen3-235b-a22b")
	h, err := q.Heat("overrides.hbf.t_read", "system", "decode_throughput_tok_per_s")
	if err != nil {
		t.Fatal(err)
	}
	v, _ := tb.Metric(r, "decode_throughput_tok_per_s")
	if len(h.X) != 3 || len(h.Y) != 2 || h.Z[0][1] != v {
		t.Errorf("heat map %+v, want Z[dash][3us] = %v", h, v)
	}
	if _, err := tb.Heat("overrides.hbf.t_read", "system", "decode_throughput_tok_per_s"); err == nil {
		t.Errorf("a heat map over a varying third axis succeeded")
	}
}

// Two runs never append to one output.
func TestRunFileLocked(t *testing.T) {
	p := compileYAML(t, tinySpec)
	path := filepath.Join(t.TempDir(), "locked.csv")
	release, err := lockOutput(path)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if _, err := RunFile(context.Background(), p, path, RunOptions{}); err == nil || !strings.Contains(err.Error(), "another run") {
		t.Errorf("a second run into a locked file: %v", err)
	}
}

// TestKeysKeepTheASCIIMicros pins the key of a point to the text hashed
// before labels said "µs": keys of files written then must not change.
func TestKeysKeepTheASCIIMicros(t *testing.T) {
	tread, err := resolvePath("overrides.hbf.t_read", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	sys, err := resolvePath("system", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	p := &Plan{axes: []axis{{path: "overrides.hbf.t_read", field: tread}, {path: "system", field: sys}}}
	// sha256(32 zero bytes + "\x00overrides.hbf.t_read=3us\x00system=dash")[:8]
	if got, want := p.keyOf([]string{"3µs", "dash"}), "6ae55880bb5444e1"; got != want {
		t.Errorf("key = %s, want %s (the key of the same point written with \"3us\")", got, want)
	}
	if a, b := p.keyOf([]string{"3µs", "µs-flash"}), p.keyOf([]string{"3µs", "us-flash"}); a == b {
		t.Errorf("a string axis's µ was rewritten in its key")
	}
}

// TestLegacyMicrosFiles: a file written with "3us" labels (before labels
// said "µs") resumes, merges with new shards and is found by value.
func TestLegacyMicrosFiles(t *testing.T) {
	p := compileYAML(t, tinySpec)
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.csv")
	if _, err := RunFile(context.Background(), p, whole, RunOptions{Workers: 2}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(whole)
	if !bytes.Contains(data, []byte(",3µs,")) {
		t.Fatalf("rows do not say µs:\n%s", data)
	}
	legacy := bytes.ReplaceAll(data, []byte("µs"), []byte("us"))
	lines := bytes.SplitAfter(legacy, []byte("\n"))
	// an old run stopped after 5 rows, resumed by this version
	old := filepath.Join(dir, "old.csv")
	os.WriteFile(old, bytes.Join(lines[:6], nil), 0o644)
	sum, err := RunFile(context.Background(), p, old, RunOptions{Workers: 2})
	if err != nil || sum.Existing != 5 || !sum.Complete {
		t.Fatalf("resume of an old file: %+v, %v", sum, err)
	}
	for _, path := range []string{old, whole} {
		tb, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []string{"2us", "2µs", "2 us"} {
			if _, err := tb.Find("model", "qwen3-235b-a22b", "system", "dash", "overrides.hbf.t_read", v); err != nil {
				t.Errorf("%s: find %s: %v", path, v, err)
			}
		}
	}
	// an old shard merged with a new one gives the new unsharded file
	var parts []string
	for i := range 2 {
		part := filepath.Join(dir, "part"+string(rune('0'+i))+".csv")
		if _, err := RunFile(context.Background(), p, part, RunOptions{Workers: 2, Shard: Shard{i, 2}}); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, part)
	}
	b, _ := os.ReadFile(parts[0])
	os.WriteFile(parts[0], bytes.ReplaceAll(b, []byte("µs"), []byte("us")), 0o644)
	merged := filepath.Join(dir, "merged.csv")
	if err := Merge(merged, parts); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(merged); !bytes.Equal(got, data) {
		t.Errorf("an old shard merged with a new one differs from the new unsharded run:\n%s\nwant\n%s", got, data)
	}
}

func TestUpgradeLabels(t *testing.T) {
	for in, want := range map[string]string{
		"3us": "3µs", "-2.5 us": "-2.5 µs", "1e+03us": "1e+03µs", "{t_read: 3us, t_prog: 100us}": "{t_read: 3µs, t_prog: 100µs}",
		"[3us, 4us]": "[3µs, 4µs]", "dash-3us": "dash-3us", "us": "us", "3usb": "3usb", "3µs": "3µs", "plus": "plus",
	} {
		var got string
		upgradeLabels(func(r Row) error { got = r.Values[0]; return nil })(Row{Values: []string{in}})
		if got != want {
			t.Errorf("%q -> %q, want %q", in, got, want)
		}
	}
}
