package clusters

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/cluster"
	"github.com/dashlab/dashlab/internal/safeio"
)

// SweepSpec is a sweep of cluster experiments: a base experiment file and
// axes over its fields (any path of the file: nodes, memory, model,
// parallel.expert, parallel.tensor, placement.policy, routing.zipf_s,
// workload.batch, ...); every combination of the axes' values is a point,
// run as a fixed batch.
//
//	name: ep-vs-tp
//	base: {cluster: hgx-h200, memory: dash, model: qwen3-235b-a22b, workload: {batch: 64, prompt: 1024, output: 128}}
//	axes:
//	  - {path: parallel.expert, values: [1, 2, 4, 8]}
//	  - {path: placement.policy, values: [contiguous, popularity]}
type SweepSpec struct {
	Name string      `yaml:"name"`
	Base yaml.Node   `yaml:"base"`
	Axes []SweepAxis `yaml:"axes"`
}

// SweepAxis is one axis: a path into the experiment file and its values.
type SweepAxis struct {
	Path   string      `yaml:"path"`
	Values []yaml.Node `yaml:"values"`
}

// SweepRow is one point's outcome (CSV and JSON rows).
type SweepRow struct {
	Point  int     `json:"point"`
	Values string  `json:"axis_values"` // path=value, ";"-separated
	Status string  `json:"status"`      // ok, does_not_fit, failed
	Error  string  `json:"error,omitempty"`
	GPUs   int     `json:"gpus"`
	TTFTms float64 `json:"ttft_ms"`
	TPOTms float64 `json:"tpot_ms"`
	E2Es   float64 `json:"e2e_s"`
	// DecodeTokS and PerGPU are the decode throughput of all instances and
	// per GPU; CommShare the collectives' share of the time.
	DecodeTokS float64 `json:"decode_throughput_tok_s"`
	PerGPU     float64 `json:"decode_throughput_per_gpu_tok_s"`
	CommShare  float64 `json:"comm_share"`
	KVTokens   int64   `json:"kv_tokens"`
}

// MaxSweepPoints bounds a sweep.
const MaxSweepPoints = 100_000

// LoadSweep reads a sweep spec.
func LoadSweep(file string) (SweepSpec, error) {
	data, err := safeio.ReadFile(file)
	if err != nil {
		return SweepSpec{}, err
	}
	return DecodeSweep(bytes.NewReader(data), file)
}

// DecodeSweep reads a sweep spec, strictly.
func DecodeSweep(r io.Reader, source string) (SweepSpec, error) {
	var s SweepSpec
	if err := dash.DecodeStrict(r, source, &s); err != nil {
		return SweepSpec{}, err
	}
	if s.Base.Kind != yaml.MappingNode {
		return SweepSpec{}, fmt.Errorf("%s: base: must be a mapping (an experiment file)", source)
	}
	n := 1
	for i, a := range s.Axes {
		if a.Path == "" || len(a.Values) == 0 {
			return SweepSpec{}, fmt.Errorf("%s: axes[%d]: needs a path and at least one value", source, i)
		}
		n *= len(a.Values)
		if n > MaxSweepPoints {
			return SweepSpec{}, fmt.Errorf("%s: more than %d points", source, MaxSweepPoints)
		}
	}
	return s, nil
}

// set puts v at the dotted path of the mapping m (creating mappings on the way).
func set(m *yaml.Node, path string, v yaml.Node) error {
	keys := strings.Split(path, ".")
	for i, k := range keys {
		var next *yaml.Node
		for j := 0; j+1 < len(m.Content); j += 2 {
			if m.Content[j].Value == k {
				next = m.Content[j+1]
				break
			}
		}
		if i == len(keys)-1 {
			val := v
			if next != nil {
				*next = val
			} else {
				m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: k}, &val)
			}
			return nil
		}
		if next == nil {
			next = &yaml.Node{Kind: yaml.MappingNode}
			m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: k}, next)
		}
		if next.Kind != yaml.MappingNode {
			return fmt.Errorf("path %s: %s is not a mapping", path, k)
		}
		m = next
	}
	return nil
}

// Points expands the sweep into experiment files, in axis order (the
// last axis fastest), with each point's axis values written "path=value".
func (s SweepSpec) Points() ([]File, []string, error) {
	idx := make([]int, len(s.Axes))
	var files []File
	var labels []string
	for {
		base := deepCopy(&s.Base)
		var parts []string
		for a, ax := range s.Axes {
			v := *deepCopy(&ax.Values[idx[a]])
			if err := set(base, ax.Path, v); err != nil {
				return nil, nil, err
			}
			var b strings.Builder
			enc := yaml.NewEncoder(&b)
			enc.SetIndent(2)
			if err := enc.Encode(&v); err != nil {
				return nil, nil, err
			}
			parts = append(parts, ax.Path+"="+strings.TrimSpace(strings.ReplaceAll(b.String(), "\n", " ")))
		}
		data, err := yaml.Marshal(base)
		if err != nil {
			return nil, nil, err
		}
		f, err := DecodeFile(bytes.NewReader(data), "point "+strings.Join(parts, ";"))
		if err != nil {
			return nil, nil, err
		}
		files = append(files, f)
		labels = append(labels, strings.Join(parts, ";"))
		k := len(idx) - 1
		for k >= 0 {
			idx[k]++
			if idx[k] < len(s.Axes[k].Values) {
				break
			}
			idx[k] = 0
			k--
		}
		if k < 0 {
			return files, labels, nil
		}
	}
}

func deepCopy(n *yaml.Node) *yaml.Node {
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, x := range n.Content {
		c.Content[i] = deepCopy(x)
	}
	return &c
}

// RunSweep runs every point as a fixed batch, workers at a time (0: one per
// CPU); a point that fails is a row with its error, never the end of the
// sweep. Rows come in point order.
func RunSweep(ctx context.Context, s SweepSpec, workers int, progress func(done, total int)) ([]SweepRow, error) {
	files, labels, err := s.Points()
	if err != nil {
		return nil, err
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	rows := make([]SweepRow, len(files))
	var mu sync.Mutex
	done := 0
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				rows[i] = runPoint(i, labels[i], files[i])
				mu.Lock()
				done++
				if progress != nil {
					progress(done, len(files))
				}
				mu.Unlock()
			}
		}()
	}
	for i := range files {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return rows, ctx.Err()
}

func runPoint(i int, label string, f File) SweepRow {
	row := SweepRow{Point: i, Values: label, Status: "ok"}
	fail := func(err error) SweepRow {
		row.Status, row.Error = "failed", strings.ReplaceAll(err.Error(), "\n", "; ")
		var ce *dash.CapacityError
		if errors.As(err, &ce) {
			row.Status = "does_not_fit"
		}
		return row
	}
	e, err := f.Builder().Build()
	if err != nil {
		return fail(err)
	}
	r, err := cluster.Run(e)
	if err != nil {
		return fail(err)
	}
	row.GPUs, row.TTFTms, row.TPOTms, row.E2Es = r.GPUs, r.TTFT.Milliseconds(), r.TPOT.Milliseconds(), r.E2E.Seconds()
	row.DecodeTokS, row.PerGPU, row.CommShare, row.KVTokens = r.DecodeThroughput, r.PerGPU, r.CommShare, r.KV.Tokens
	return row
}
