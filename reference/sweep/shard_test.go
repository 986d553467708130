package sweep

import (
	"slices"
	"testing"
)

// costlySpec has points of different estimated cost (models, lengths,
// batches), to check the balance.
const costlySpec = `
base: {model: qwen3-235b-a22b, system: dash, workload: {batch: 4, prompt: 1024, output: 128}}
axes:
  - {path: model, values: [qwen3-235b-a22b, mixtral-8x22b, deepseek-v2]}
  - {path: workload.output, values: [16, 128, 1024]}
  - {path: workload.batch, values: [1, 2, 4, 8, 16, 32, 64]}
  - {path: overrides.hbf.t_read, values: [1us, 3us]}
`

func TestShardPartition(t *testing.T) {
	p := compileYAML(t, costlySpec)
	costs := p.Costs()
	maxCost := slices.Max(costs)
	for n := 1; n <= 7; n++ {
		seen := make([]int, p.Len())
		var loads []int64
		for i := range n {
			pts, err := p.ShardPoints(Shard{Index: i, Count: n})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.IsSorted(pts) {
				t.Errorf("n=%d shard %d: points not in order", n, i)
			}
			again, _ := p.ShardPoints(Shard{Index: i, Count: n})
			if !slices.Equal(pts, again) {
				t.Errorf("n=%d shard %d: not deterministic", n, i)
			}
			var load int64
			for _, pt := range pts {
				seen[pt]++
				load += costs[pt]
			}
			loads = append(loads, load)
		}
		for pt, c := range seen {
			if c != 1 {
				t.Fatalf("n=%d: point %d in %d shards", n, pt, c)
			}
		}
		if spread := slices.Max(loads) - slices.Min(loads); spread > maxCost {
			t.Errorf("n=%d: shard loads %v differ by %d, more than one point's cost %d", n, loads, spread, maxCost)
		}
	}
}

func TestParseShard(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	ok := []struct {
		text string
		env  map[string]string
		want Shard
	}{
		{"2/5", nil, Shard{2, 5}},
		{"auto/4", map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "4"}, Shard{3, 4}},
		{"auto/4", map[string]string{"SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_MIN": "1"}, Shard{3, 4}},
		{"auto/3", map[string]string{"JOB_COMPLETION_INDEX": "0"}, Shard{0, 3}},
	}
	for _, c := range ok {
		got, err := ParseShard(c.text, env(c.env))
		if err != nil || got != c.want {
			t.Errorf("ParseShard(%q, %v) = %v, %v; want %v", c.text, c.env, got, err, c.want)
		}
	}
	bad := []struct {
		text string
		env  map[string]string
	}{
		{"5/5", nil}, {"-1/3", nil}, {"1/0", nil}, {"1", nil}, {"auto/3", nil},
		{"auto/3", map[string]string{"JOB_COMPLETION_INDEX": "x"}},
		{"auto/3", map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "4"}},
	}
	for _, c := range bad {
		if got, err := ParseShard(c.text, env(c.env)); err == nil {
			t.Errorf("ParseShard(%q, %v) = %v, want an error", c.text, c.env, got)
		}
	}
}
