package sweep

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Issue 26's hostile sweep specs, shards, resumes and merges, one test per
// class of defect.

const hostileBase = "name: h\nbase: {model: qwen3-235b-a22b, system: dash, workload: {batch: 4, prompt: 1024, output: 128}}\n"

func compileErr(t *testing.T, text string) error {
	t.Helper()
	s, err := DecodeSpec(strings.NewReader(text), "h.yaml", ".")
	if err != nil {
		return err
	}
	_, err = s.Compile()
	return err
}

// Silently misread: an integer axis took 2.5 as 2, and 2.7 was reported as
// "value 2 appears twice"; a range on an integer field rounded its values.
func TestSweepIntegerAxisValues(t *testing.T) {
	for _, c := range []struct{ axis, want string }{
		{"{path: workload.batch, values: [1, 2.5]}", `value "2.5" (line 4): "2.5": want an integer`},
		{"{path: workload.batch, values: [2, 2.7]}", `value "2.7" (line 4): "2.7": want an integer`},
		{"{path: workload.batch, values: [1e3]}", `"1e3": want an integer`},
		{`{path: workload.batch, values: ["4"]}`, `"4": want an integer`},
		{"{path: workload.batch, range: {from: 1, to: 10, count: 3}}", "range: gives 5.5, not an integer"},
		{"{path: workload.batch, range: {from: 2, to: 10, factor: 1.5}}", "range: gives 4.5, not an integer"},
		{"{path: workload.batch, range: {from: 1, to: 10, step: 2.5}}", `range: step = "2.5": "2.5": want an integer`},
		{"{path: serving.load, values: [.nan]}", `not a finite number`},
	} {
		spec := hostileBase + "axes:\n  - " + c.axis + "\n"
		if strings.Contains(c.axis, "serving") {
			spec = strings.Replace(spec, "name: h\n", "name: h\nkind: serving\n", 1)
		}
		if err := compileErr(t, spec); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.axis, err, c.want)
		}
	}
	// whole values of a range stay
	p := compileYAML(t, hostileBase+"axes:\n  - {path: workload.batch, range: {from: 1, to: 10, count: 4}}\n")
	if p.Len() != 4 {
		t.Errorf("from 1 to 10, count 4: %d points", p.Len())
	}
}

// Misleading errors: a where condition did not exempt the values it
// removes from validation (nor from the catalogue look-ups).
func TestSweepWhereExemptsRemovedPoints(t *testing.T) {
	p := compileYAML(t, hostileBase+`axes:
  - {path: workload.batch, values: [1, 4, 10000000]}
  - {path: model, values: [qwen3-235b-a22b, no-such-model]}
  - {path: overrides.hbf.t_read, values: [1ns, 3us]}
where: ["workload.batch <= 4", "model != no-such-model", "overrides.hbf.t_read > 1us"]
`)
	if p.Len() != 2 {
		t.Errorf("%d points, want 2", p.Len())
	}
	// a value the conditions keep is still validated
	err := compileErr(t, hostileBase+"axes:\n  - {path: workload.batch, values: [1, 10000000]}\nwhere: [\"workload.batch >= 1\"]\n")
	if err == nil || !strings.Contains(err.Error(), `workload.batch value "10000000"`) {
		t.Errorf("a kept bad value: %v", err)
	}
}

// Unbounded time: a 100M-point sweep validated every point for minutes
// before --dry-run printed anything; the product is bounded.
func TestSweepPointLimit(t *testing.T) {
	start := time.Now()
	err := compileErr(t, hostileBase+`axes:
  - {path: overrides.hbf.t_read, range: {from: 1us, to: 10000us, count: 10000}}
  - {path: workload.prompt, range: {from: 1, to: 10000, step: 1}}
`)
	if err == nil || !strings.Contains(err.Error(), "more than 1000000 points") {
		t.Errorf("100M points: %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("refusing 100M points took %v", d)
	}
	axes := hostileBase + "axes:\n" + strings.Repeat("  - {path: name, values: [a]}\n", 65)
	if err := compileErr(t, axes); err == nil || !strings.Contains(err.Error(), "axes: 65 given; at most 64") {
		t.Errorf("65 axes: %v", err)
	}
	where := hostileBase + "axes:\n  - {path: workload.batch, values: [1, 2]}\nwhere: [" + strings.Repeat(`"workload.batch >= 1", `, 65) + "]\n"
	if err := compileErr(t, where); err == nil || !strings.Contains(err.Error(), "where: 65 conditions; at most 64") {
		t.Errorf("65 conditions: %v", err)
	}
}

// Unbounded memory: --shard 0/100000000 dealt points to a hundred million
// shards (6 GB).
func TestShardCountBound(t *testing.T) {
	if _, err := ParseShard("0/100000000", nil); err == nil || !strings.Contains(err.Error(), "want an integer from 1 to 100000") {
		t.Errorf("0/100000000: %v", err)
	}
	p := compileYAML(t, tinySpec)
	if _, err := p.ShardPoints(Shard{0, 100_000_000}); err == nil {
		t.Error("ShardPoints with 1e8 shards")
	}
	pts, err := p.ShardPoints(Shard{MaxShards - 1, MaxShards})
	if err != nil || len(pts) != 0 {
		t.Errorf("the last of %d shards of %d points: %v, %v", MaxShards, p.Len(), pts, err)
	}
}

// Misleading errors: values are echoed cut to a readable length (a 3 MB
// id was echoed whole).
func TestSweepEchoesClipped(t *testing.T) {
	long := strings.Repeat("x", 900_000)
	for _, spec := range []string{
		hostileBase + "axes:\n  - {path: system, values: [" + long + "]}\n",
		hostileBase + "axes:\n  - {path: workload.batch, values: [" + long + "]}\n",
		hostileBase + "axes:\n  - {path: name, values: [" + long + "]}\n",
		hostileBase + "axes:\n  - {path: workload.batch, values: [1]}\nwhere: [\"" + long + "\"]\n",
		strings.Replace(hostileBase, "name: h", "name: "+long, 1) + "axes:\n  - {path: workload.batch, values: [1]}\n",
	} {
		err := compileErr(t, spec)
		if err == nil || len(err.Error()) > 600 {
			t.Errorf("error of %d bytes: %.300v", len(err.Error()), err)
		}
	}
}

// allocs returns the bytes f allocates.
func allocs(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// Unbounded memory: a 1 GiB torn last line (a sparse file's zeros) cost
// 2 GB to resume or merge; lines are read within MaxRowBytes.
func TestTornHugeLastLine(t *testing.T) {
	p := compileYAML(t, tinySpec)
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.csv")
	if _, err := RunFile(context.Background(), p, whole, RunOptions{Workers: 2}); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(whole)
	lines := bytes.SplitAfter(want, []byte("\n"))
	torn := filepath.Join(dir, "torn.csv")
	os.WriteFile(torn, bytes.Join(lines[:5], nil), 0o644)
	if err := os.Truncate(torn, int64(len(bytes.Join(lines[:5], nil)))+1<<30); err != nil {
		t.Skip("no sparse files here:", err)
	}
	var err error
	n := allocs(func() { _, err = ReadRows(torn, func(Row) error { return nil }) })
	if err == nil || !strings.Contains(err.Error(), "the last row is incomplete") || n > 64<<20 {
		t.Errorf("merge-reading a 1 GiB torn line: %v, %d MB allocated", err, n>>20)
	}
	var sum Summary
	n = allocs(func() { sum, err = RunFile(context.Background(), p, torn, RunOptions{Workers: 2}) })
	if err != nil || sum.Existing != 4 || n > 512<<20 {
		t.Errorf("resuming after a 1 GiB torn line: %+v, %v, %d MB allocated", sum, err, n>>20)
	}
	if got, _ := os.ReadFile(torn); !bytes.Equal(got, want) {
		t.Error("the resumed file differs from the uninterrupted one")
	}
	// a complete line over the limit is damage, not a torn row
	long := filepath.Join(dir, "long.csv")
	os.WriteFile(long, append(append(bytes.Join(lines[:3], nil), bytes.Repeat([]byte("x"), MaxRowBytes+10)...), '\n'), 0o644)
	if _, err := RunFile(context.Background(), p, long, RunOptions{}); err == nil || !strings.Contains(err.Error(), "long.csv: line 4: longer than 1048576 bytes") {
		t.Errorf("a long complete line: %v", err)
	}
}

// Data lost: an existing file that is not a sweep output was truncated as
// --out (its only line taken for a torn row); it is refused and kept.
func TestRunFileRefusesNonSweepFile(t *testing.T) {
	p := compileYAML(t, tinySpec)
	dir := t.TempDir()
	for _, body := range []string{"my notes\n", "my notes", "point,key\n", "a,b,c\n1,2,3\n", "\x00\x00\x00"} {
		for _, ext := range []string{".csv", ".jsonl"} {
			path := filepath.Join(dir, "notes"+ext)
			os.WriteFile(path, []byte(body), 0o644)
			_, err := RunFile(context.Background(), p, path, RunOptions{})
			if err == nil || !strings.Contains(err.Error(), "not a sweep file") {
				t.Errorf("%s %q: %v", ext, body, err)
			}
			if got, _ := os.ReadFile(path); string(got) != body {
				t.Errorf("%s %q became %q", ext, body, got)
			}
		}
	}
	// a header torn by a kill is a sweep file's beginning: resumed
	path := filepath.Join(dir, "torn-header.csv")
	os.WriteFile(path, []byte("point,key,sweep_po"), 0o644)
	if sum, err := RunFile(context.Background(), p, path, RunOptions{Workers: 2}); err != nil || !sum.Complete {
		t.Errorf("a torn header: %+v, %v", sum, err)
	}
	// a damaged line before the last is refused
	data, _ := os.ReadFile(path)
	lines := bytes.SplitAfter(data, []byte("\n"))
	lines[2] = []byte("garbage\n")
	os.WriteFile(path, bytes.Join(lines, nil), 0o644)
	if _, err := RunFile(context.Background(), p, path, RunOptions{}); err == nil || !strings.Contains(err.Error(), "line 3:") {
		t.Errorf("a damaged row: %v", err)
	}
}

// Data lost: a merge into a running sweep's output replaced the file, and
// the sweep then reported its rows written; the output's lock keeps them
// apart, and a sweep whose file is replaced behind its back fails.
func TestMergeIntoRunningSweep(t *testing.T) {
	p := compileYAML(t, tinySpec)
	dir := t.TempDir()
	var parts []string
	for i := range 2 {
		part := filepath.Join(dir, "part"+string(rune('0'+i))+".csv")
		if _, err := RunFile(context.Background(), p, part, RunOptions{Workers: 2, Shard: Shard{i, 2}}); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, part)
	}
	for _, ext := range []string{".csv", ".parquet"} {
		out := filepath.Join(dir, "running"+ext)
		merged := make(chan error, 1)
		sum, err := RunFile(context.Background(), p, out, RunOptions{Workers: 1, Progress: func(done, _ int) {
			if done == 2 {
				merged <- Merge(out, parts) // while the sweep holds out
			}
		}})
		if err != nil || !sum.Complete {
			t.Fatalf("%s: the sweep: %+v, %v", ext, sum, err)
		}
		if err := <-merged; err == nil || !strings.Contains(err.Error(), "another run is writing it") {
			t.Errorf("%s: a merge into a running sweep's output: %v", ext, err)
		}
		if _, err := os.Stat(lockPath(out)); err == nil {
			t.Errorf("%s: lock file left behind", ext)
		}
	}
	// a program that ignores the lock and renames a file over the output
	out := filepath.Join(dir, "replaced.csv")
	_, err := RunFile(context.Background(), p, out, RunOptions{Workers: 1, Progress: func(done, _ int) {
		if done == 2 {
			os.WriteFile(out+".new", []byte("other\n"), 0o644)
			os.Rename(out+".new", out)
		}
	}})
	if err == nil || !strings.Contains(err.Error(), "was replaced or removed while this run wrote it") {
		t.Errorf("an output replaced during the run: %v", err)
	}
}

// Data mixed: shards of two different sweeps (same axes and number of
// points, another base) merged without complaint.
func TestMergeRefusesOtherSweeps(t *testing.T) {
	a := compileYAML(t, tinySpec)
	b := compileYAML(t, strings.Replace(tinySpec, "output: 8", "output: 9", 1))
	c := compileYAML(t, strings.Replace(tinySpec, "8us]", "9us]", 1))
	if a.ID() == b.ID() || a.ID() == c.ID() || a.Len() != b.Len() {
		t.Fatalf("ids %s %s %s", a.ID(), b.ID(), c.ID())
	}
	dir := t.TempDir()
	run := func(p *Plan, name string, s Shard) string {
		path := filepath.Join(dir, name)
		if _, err := RunFile(context.Background(), p, path, RunOptions{Workers: 2, Shard: s}); err != nil {
			t.Fatal(err)
		}
		return path
	}
	a0, b1, c1 := run(a, "a0.csv", Shard{0, 2}), run(b, "b1.jsonl", Shard{1, 2}), run(c, "c1.csv", Shard{1, 2})
	for _, other := range []string{b1, c1} {
		out := filepath.Join(dir, "mixed.csv")
		var me *MergeError
		if err := Merge(out, []string{a0, other}); !errors.As(err, &me) || !strings.Contains(err.Error(), "parts of different sweeps") {
			t.Errorf("%s: %v", other, err)
		}
		if _, err := os.Stat(out); err == nil {
			t.Error("a failed merge wrote its output")
		}
	}
	// a resume into another sweep's file of the same shape is refused too
	if _, err := RunFile(context.Background(), a, b1, RunOptions{Shard: Shard{1, 2}}); err == nil || !strings.Contains(err.Error(), "holds rows of sweep") {
		t.Errorf("resume into another sweep's shard: %v", err)
	}
}

// Data lost: a merge overwrote whatever OUT was; it replaces only an
// earlier merge of the same sweep.
func TestMergeKeepsOtherFiles(t *testing.T) {
	p := compileYAML(t, tinySpec)
	dir := t.TempDir()
	part := filepath.Join(dir, "all.csv")
	if _, err := RunFile(context.Background(), p, part, RunOptions{Workers: 2}); err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{"my notes\n", "point,key,sweep_points,sweep,x,ttft_ms,tpot_ms,e2e_ms,throughput_tok_per_s,decode_throughput_tok_per_s,status,error\n"} {
		out := filepath.Join(dir, "notes.csv")
		os.WriteFile(out, []byte(body), 0o644)
		if err := Merge(out, []string{part}); err == nil {
			t.Errorf("merged over %q", body)
		}
		if got, _ := os.ReadFile(out); string(got) != body {
			t.Errorf("%q became %q", body, got)
		}
	}
	out := filepath.Join(dir, "merged.csv")
	for range 2 { // a second merge replaces the first
		if err := Merge(out, []string{part}); err != nil {
			t.Fatal(err)
		}
	}
}

// Files written before rows named their sweep (no sweep column) still
// resume in their layout and merge with each other.
func TestLegacyLayoutFiles(t *testing.T) {
	p := compileYAML(t, tinySpec)
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.csv")
	if _, err := RunFile(context.Background(), p, whole, RunOptions{Workers: 2}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(whole)
	legacy := strings.ReplaceAll(string(data), ",sweep_points,sweep,", ",sweep_points,")
	legacy = strings.ReplaceAll(legacy, ","+p.ID()+",", ",")
	lines := strings.SplitAfter(legacy, "\n")
	old := filepath.Join(dir, "old.csv")
	os.WriteFile(old, []byte(strings.Join(lines[:6], "")), 0o644)
	sum, err := RunFile(context.Background(), p, old, RunOptions{Workers: 2})
	if err != nil || sum.Existing != 5 || !sum.Complete {
		t.Fatalf("resume of a legacy file: %+v, %v", sum, err)
	}
	if got, _ := os.ReadFile(old); string(got) != legacy {
		t.Errorf("the resumed legacy file:\n%s\nwant\n%s", got, legacy)
	}
	merged := filepath.Join(dir, "merged.csv")
	if err := Merge(merged, []string{old}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(merged); string(got) != legacy {
		t.Error("a merged legacy file changed")
	}
	if err := Merge(filepath.Join(dir, "mix.csv"), []string{old, whole}); err == nil {
		t.Error("a legacy part merged with a new one of other columns")
	}
}

// Hangs: a serving point at 1e-9 requests/s hung at "0 s simulated"; loads
// whose arrivals pass the clock's range or fall on one nanosecond, prompts
// beyond the model's context and windows without two arrivals are refused
// before anything runs, naming the point.
func TestServingSweepHostile(t *testing.T) {
	base := "kind: serving\nbase: {model: qwen3-30b-a3b, system: dash}\n"
	for _, c := range []struct{ spec, want string }{
		{"axes: [{path: serving.load, values: [1, 1e-9]}]", "serving.load = 1e-09 requests/s: must be from 2.3e-06"},
		{"axes: [{path: serving.load, values: [1e300]}]", "serving.load = 1e+300 requests/s"},
		{"serving: {prompt: {min: 100000}}\naxes: [{path: serving.load, values: [1]}]", "beyond model qwen3-30b-a3b's max_context 40960"},
		{"serving: {requests: 129}\naxes: [{path: serving.load, values: [1]}]", "serving.requests = 129: must be from warmup + 2 = 130"},
		{"serving: {requests: 1000000, output: {min: 128}}\naxes: [{path: serving.load, values: [1]}]", "more than the 67108864 a run may generate"},
		{"serving: {chunk_tokens: 100000}\naxes: [{path: serving.load, values: [1]}]", "chunk_tokens = 100000: above token_budget"},
	} {
		if err := compileErr(t, base+c.spec); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.spec, err, c.want)
		}
	}
}
