package sweep

import (
	"container/heap"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/dashlab/dashlab/internal/safeio"
)

// Shard is the part i of n of a sweep (Count 0: the whole sweep).
type Shard struct {
	// Index is 0-based; Count the number of shards.
	Index, Count int
}

// String is "i/n" ("all" for the whole sweep).
func (s Shard) String() string {
	if s.Count == 0 {
		return "all"
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// MaxShards bounds n in a shard i/n (100,000: a Kubernetes Indexed Job's
// completions limit, and a hundred times Slurm's default MaxArraySize).
const MaxShards = 100_000

// ShardEnv lists the variables "auto/n" reads the index from, in order:
// a Slurm job array's task id, then a Kubernetes Indexed Job's completion
// index.
var ShardEnv = []string{"SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"}

// ParseShard parses "i/n" (0 <= i < n) or "auto/n", which takes i from
// SLURM_ARRAY_TASK_ID (less SLURM_ARRAY_TASK_MIN, so arrays may start at 1)
// or JOB_COMPLETION_INDEX. getenv is os.Getenv when nil.
func ParseShard(s string, getenv func(string) string) (Shard, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	is, ns, ok := strings.Cut(s, "/")
	if !ok {
		return Shard{}, fmt.Errorf("shard %s: want i/n or auto/n", safeio.Quote(s))
	}
	n, err := strconv.Atoi(ns)
	if err != nil || n < 1 || n > MaxShards {
		return Shard{}, fmt.Errorf("shard %s: n = %s: want an integer from 1 to %d", safeio.Quote(s), safeio.Quote(ns), MaxShards)
	}
	if is == "auto" {
		i, err := autoIndex(getenv)
		if err != nil {
			return Shard{}, fmt.Errorf("shard %s: %w", safeio.Quote(s), err)
		}
		if c := getenv("SLURM_ARRAY_TASK_COUNT"); c != "" && getenv("SLURM_ARRAY_TASK_ID") != "" && c != ns {
			return Shard{}, fmt.Errorf("shard %s: the Slurm array has %s tasks, not %d", safeio.Quote(s), safeio.Clip(c), n)
		}
		is = strconv.Itoa(i)
	}
	i, err := strconv.Atoi(is)
	if err != nil || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("shard %s: i = %s: want 0 to %d", safeio.Quote(s), safeio.Quote(is), n-1)
	}
	return Shard{Index: i, Count: n}, nil
}

func autoIndex(getenv func(string) string) (int, error) {
	for _, name := range ShardEnv {
		v := getenv(name)
		if v == "" {
			continue
		}
		i, err := strconv.Atoi(v)
		if err != nil {
			return 0, fmt.Errorf("%s = %s: not an integer", name, safeio.Quote(v))
		}
		if name == "SLURM_ARRAY_TASK_ID" {
			if m := getenv("SLURM_ARRAY_TASK_MIN"); m != "" {
				lo, err := strconv.Atoi(m)
				if err != nil {
					return 0, fmt.Errorf("SLURM_ARRAY_TASK_MIN = %s: not an integer", safeio.Quote(m))
				}
				i -= lo
			}
		}
		return i, nil
	}
	return 0, fmt.Errorf("auto: none of %s is set (run it as a Slurm array task or a Kubernetes Indexed Job, or give i/n)", strings.Join(ShardEnv, ", "))
}

// ShardPoints returns the points of shard s in increasing order. Points are
// dealt by the kind's cost estimate, most expensive first, each to the
// shard with the least estimated work so far (ties to the lower index), so
// the shards' totals differ by at most one point's cost; the result depends
// only on the plan and s.
func (p *Plan) ShardPoints(s Shard) ([]int, error) {
	n := p.Len()
	if s.Count == 0 {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out, nil
	}
	if s.Index < 0 || s.Index >= s.Count || s.Count > MaxShards {
		return nil, fmt.Errorf("shard %v: want 0 <= i < n <= %d", s, MaxShards)
	}
	costs := p.Costs()
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return costs[order[a]] > costs[order[b]] })
	h := &loadHeap{}
	for i := range s.Count {
		heap.Push(h, shardLoad{shard: i})
	}
	var out []int
	for _, i := range order {
		least := heap.Pop(h).(shardLoad)
		if least.shard == s.Index {
			out = append(out, i)
		}
		least.load += costs[i]
		heap.Push(h, least)
	}
	sort.Ints(out)
	return out, nil
}

// Costs returns the kind's cost estimate of every point, quantised so that
// every machine deals the same shards.
func (p *Plan) Costs() []int64 {
	out := make([]int64, p.Len())
	for i := range out {
		pt, _ := p.Point(i)
		c := p.kind.Cost(pt)
		if !(c >= 0) || math.IsInf(c, 0) {
			c = 1
		}
		out[i] = int64(math.Round(min(c, 1e12) * 1000))
	}
	return out
}

type shardLoad struct {
	shard int
	load  int64
}

type loadHeap []shardLoad

func (h loadHeap) Len() int { return len(h) }
func (h loadHeap) Less(a, b int) bool {
	if h[a].load != h[b].load {
		return h[a].load < h[b].load
	}
	return h[a].shard < h[b].shard
}
func (h loadHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *loadHeap) Push(x any)   { *h = append(*h, x.(shardLoad)) }
func (h *loadHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
