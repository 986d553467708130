package offload

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"slices"

	"github.com/dashlab/dashlab/dash/unit"
	"gonum.org/v1/gonum/stat"
)

// LayerShape is the MoE expert layer the host measured.
type LayerShape struct {
	// Hidden is the model width; Inter one expert's intermediate width.
	Hidden, Inter int
	// Experts is the routed experts per layer; TopK those each token picks.
	Experts, TopK int
	// WeightBytes is the bytes per stored weight (BF16: 2).
	WeightBytes int
}

// ExpertBytes is one expert's gate, up and down projections.
func (s LayerShape) ExpertBytes() unit.Bytes {
	return unit.Bytes(3 * s.Hidden * s.Inter * s.WeightBytes)
}

// HostProfile is the measured host side of CPU-GPU offloading: an expert
// layer on the host CPU by core count and batch, and host-to-GPU copies.
type HostProfile struct {
	// Name identifies the profile ("h200-host-offload").
	Name string
	// Shape is the expert layer the CPU measurements ran.
	Shape LayerShape
	// CPU and Copies are the measurements (for a derived host, the derived
	// layer times and the measured host's copies).
	CPU    []CPUPoint
	Copies []CopyPoint
	// Derived, when set, says the profile was not measured but derived from
	// a measured host's by DeriveHost, and how.
	Derived *Derivation
}

// LoadHostProfile reads cpu_expert.csv and h2d.csv from fsys. shape is the
// layer the CPU measurements ran (the files do not record it).
func LoadHostProfile(fsys fs.FS, name string, shape LayerShape) (*HostProfile, error) {
	if shape.Hidden < 1 || shape.Inter < 1 || shape.Experts < 1 || shape.TopK < 1 || shape.TopK > shape.Experts || shape.WeightBytes < 1 {
		return nil, fmt.Errorf("host profile %s: layer shape %+v: every size must be positive and top_k <= experts", name, shape)
	}
	p := &HostProfile{Name: name, Shape: shape}
	f, err := fsys.Open(FileCPUExpert)
	if err != nil {
		return nil, fmt.Errorf("host profile %s: %w", name, err)
	}
	p.CPU, err = ParseCPUExpert(f, FileCPUExpert)
	f.Close()
	if err != nil {
		return nil, err
	}
	if f, err = fsys.Open(FileH2D); err != nil {
		return nil, fmt.Errorf("host profile %s: %w", name, err)
	}
	p.Copies, err = ParseH2D(f, FileH2D)
	f.Close()
	if err != nil {
		return nil, err
	}
	return p, p.check()
}

// check requires what the models need: at least two thread counts per
// batch (for the core-scaling fit) and two copy sizes per buffer kind.
func (p *HostProfile) check() error {
	var errs []error
	for _, b := range p.Batches() {
		if n := len(p.threadsOf(b)); n < 2 {
			errs = append(errs, &DataError{File: FileCPUExpert, Reason: fmt.Sprintf("batch %d has %d thread count(s); the core-scaling fit needs at least 2", b, n)})
		}
	}
	for _, pinned := range []bool{true, false} {
		if n := len(p.copies(pinned)); n < 2 {
			errs = append(errs, &DataError{File: FileH2D, Reason: fmt.Sprintf("pinned=%v has %d size(s); at least 2 are needed", pinned, n)})
		}
	}
	return errors.Join(errs...)
}

// Batches lists the measured batch sizes, ascending.
func (p *HostProfile) Batches() []int {
	var out []int
	for _, c := range p.CPU {
		if !slices.Contains(out, c.Batch) {
			out = append(out, c.Batch)
		}
	}
	slices.Sort(out)
	return out
}

// Threads lists the measured thread counts, ascending.
func (p *HostProfile) Threads() []int {
	var out []int
	for _, c := range p.CPU {
		if !slices.Contains(out, c.Threads) {
			out = append(out, c.Threads)
		}
	}
	slices.Sort(out)
	return out
}

func (p *HostProfile) threadsOf(batch int) []CPUPoint {
	var out []CPUPoint
	for _, c := range p.CPU {
		if c.Batch == batch {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b CPUPoint) int { return a.Threads - b.Threads })
	return out
}

// AmdahlFit is the core-scaling model of one batch: T(c) = Serial +
// Parallel / c, fitted by least squares of the relative error over the
// measured thread counts.
type AmdahlFit struct {
	// Batch is the token batch.
	Batch int
	// Serial and Parallel are the fitted terms.
	Serial, Parallel unit.Duration
	// MaxErrPct is the largest relative error of the fit at a measured
	// thread count, in percent.
	MaxErrPct float64
}

// At is the fitted latency at c cores.
func (f AmdahlFit) At(cores int) unit.Duration {
	return f.Serial + unit.Duration(math.Round(float64(f.Parallel)/float64(cores)))
}

// Fit fits the core-scaling model for a measured batch.
func (p *HostProfile) Fit(batch int) (AmdahlFit, error) {
	pts := p.threadsOf(batch)
	if len(pts) < 2 {
		return AmdahlFit{}, fmt.Errorf("batch %d: measured batches are %v", batch, p.Batches())
	}
	xs, ys, ws := make([]float64, len(pts)), make([]float64, len(pts)), make([]float64, len(pts))
	for i, c := range pts {
		xs[i], ys[i] = 1/float64(c.Threads), c.Median.Seconds()
		ws[i] = 1 / (ys[i] * ys[i]) // relative error
	}
	serial, parallel := stat.LinearRegression(xs, ys, ws, false)
	if serial < 0 {
		// A negative serial term would predict negative latencies at high
		// core counts: fit the pure parallel model instead.
		serial = 0
		_, parallel = stat.LinearRegression(xs, ys, ws, true)
	}
	if math.IsNaN(serial) || math.IsNaN(parallel) || math.IsInf(serial, 0) || math.IsInf(parallel, 0) || parallel < 0 || serial+parallel <= 0 {
		return AmdahlFit{}, &DataError{File: FileCPUExpert, Reason: fmt.Sprintf("batch %d: the core-scaling fit T(c) = serial + parallel/c gives serial %.3g s, parallel %.3g s: the medians do not fall with the thread count", batch, serial, parallel)}
	}
	f := AmdahlFit{Batch: batch, Serial: unit.Duration(math.Round(serial * 1e9)), Parallel: unit.Duration(math.Round(parallel * 1e9))}
	for _, c := range pts {
		f.MaxErrPct = math.Max(f.MaxErrPct, 100*math.Abs(f.At(c.Threads).Seconds()/c.Median.Seconds()-1))
	}
	return f, nil
}

// CPUTime is the host latency of one expert layer.
type CPUTime struct {
	// Latency is the median layer time.
	Latency unit.Duration
	// Modelled is true when the core count was not measured and the value
	// comes from the core-scaling fit, and for every value of a derived host.
	Modelled bool
}

// LayerTime is the host latency of the whole expert layer at batch and
// cores: measured where that core count was measured, modelled otherwise.
func (p *HostProfile) LayerTime(batch, cores int) (CPUTime, error) {
	if cores < 1 {
		return CPUTime{}, fmt.Errorf("cores %d: must be at least 1", cores)
	}
	pts := p.threadsOf(batch)
	if len(pts) == 0 {
		return CPUTime{}, fmt.Errorf("batch %d was not measured on the host (measured: %v)", batch, p.Batches())
	}
	for _, c := range pts {
		if c.Threads == cores {
			return CPUTime{Latency: c.Median, Modelled: p.Derived != nil}, nil // a derived host measured nothing
		}
	}
	f, err := p.Fit(batch)
	if err != nil {
		return CPUTime{}, err
	}
	return CPUTime{Latency: f.At(cores), Modelled: true}, nil
}

func (p *HostProfile) copies(pinned bool) []CopyPoint {
	var out []CopyPoint
	for _, c := range p.Copies {
		if c.Pinned == pinned {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b CopyPoint) int { return int(a.Size - b.Size) })
	return out
}

// CopyTime is the time of one host-to-GPU copy of size bytes: interpolated
// in log-log between measured sizes; below the smallest, the latency +
// bandwidth line through the two smallest points; above the largest, the
// largest point's bandwidth. The GPU-to-host direction, which was not
// measured, is taken to be the same.
func (p *HostProfile) CopyTime(size unit.Bytes, pinned bool) unit.Duration {
	if size <= 0 {
		return 0
	}
	pts := p.copies(pinned)
	s := float64(size)
	first, last := pts[0], pts[len(pts)-1]
	switch {
	case s <= float64(first.Size):
		second := pts[1]
		slope := float64(second.Median-first.Median) / float64(second.Size-first.Size)
		t := float64(first.Median) - slope*(float64(first.Size)-s)
		if slope <= 0 || t <= 0 {
			t = float64(first.Median) * s / float64(first.Size)
		}
		return unit.Duration(math.Round(t))
	case s >= float64(last.Size):
		return unit.Duration(math.Round(float64(last.Median) * s / float64(last.Size)))
	}
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		if s <= float64(b.Size) {
			x := (math.Log(s) - math.Log(float64(a.Size))) / (math.Log(float64(b.Size)) - math.Log(float64(a.Size)))
			t := math.Exp(math.Log(float64(a.Median)) + x*(math.Log(float64(b.Median))-math.Log(float64(a.Median))))
			return unit.Duration(math.Round(t))
		}
	}
	return last.Median
}

// Bandwidth is size / CopyTime(size).
func (p *HostProfile) Bandwidth(size unit.Bytes, pinned bool) unit.BytesPerSecond {
	t := p.CopyTime(size, pinned)
	if t <= 0 {
		return 0
	}
	return unit.BytesPerSecond(float64(size) / t.Seconds())
}
