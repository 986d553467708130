package gpu

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/dashlab/dashlab/dash/unit"

	"github.com/dashlab/dashlab/internal/safeio"
)

// The profile's files. Each CSV holds one family of operators; env.json
// describes the machine and the run.
const (
	FileGEMM    = "gemm.csv"
	FileGrouped = "grouped.csv"
	FileAttn    = "attn.csv"
	FileMisc    = "misc.csv"
	FileEnv     = "env.json"
)

// ProfileKinds are the CSV kinds of a profile, in file order: "gemm",
// "grouped", "attn" and "misc" (files <kind>.csv).
var ProfileKinds = []string{"gemm", "grouped", "attn", "misc"}

// schema is one CSV's contract: the columns that define a shape, the label
// columns that name it, and how a row becomes an Op.
type schema struct {
	kind   string
	shape  []string // required for shapes and measurements
	labels []string // optional, part of the duplicate key
	op     func(c cells) (Op, error)
}

var schemas = map[string]*schema{
	"gemm": {kind: "gemm", shape: []string{"M", "K", "N"}, labels: []string{"model", "op"},
		op: func(c cells) (Op, error) {
			op := Op{Kind: GEMM, M: c.int("M"), K: c.int("K"), N: c.int("N")}
			return op, c.err
		}},
	"grouped": {kind: "grouped", shape: []string{"experts", "rows_per_expert", "hidden", "moe_inter"}, labels: []string{"model"},
		op: func(c cells) (Op, error) {
			op := Op{Kind: Grouped, Experts: c.int("experts"), Rows: c.int("rows_per_expert"),
				Hidden: c.int("hidden"), Inter: c.int("moe_inter")}
			return op, c.err
		}},
	"attn": {kind: "attn", shape: []string{"phase", "batch", "q_len", "kv_len", "heads", "kv_heads", "head_dim"}, labels: []string{"model"},
		op: func(c cells) (Op, error) {
			op := Op{Batch: c.int("batch"), QLen: c.int("q_len"), KVLen: c.int("kv_len"),
				Heads: c.int("heads"), KVHeads: c.int("kv_heads"), HeadDim: c.int("head_dim")}
			if c.err != nil {
				return op, c.err
			}
			switch p := c.get("phase"); p {
			case "prefill":
				op.Kind = AttnPrefill
				if op.KVLen < op.QLen {
					return op, fmt.Errorf("kv_len %d < q_len %d: a prefill attends to at least its own tokens", op.KVLen, op.QLen)
				}
			case "decode":
				op.Kind = AttnDecode
			case "decode_absorbed":
				// head_dim is the cached latent+rope width (DeepSeek: 512+64).
				op.Kind = AttnDecodeMLA
				op.RopeDim = 0
				if op.HeadDim > 64 {
					op.RopeDim = 64
				}
				op.LatentDim = op.HeadDim - op.RopeDim
				op.KVHeads = 0
			default:
				return op, fmt.Errorf("column \"phase\": %s is not prefill, decode or decode_absorbed", safeio.Quote(p))
			}
			return op, nil
		}},
	"misc": {kind: "misc", shape: []string{"op", "M", "dim"},
		op: func(c cells) (Op, error) {
			m, dim := c.int("M"), c.int("dim")
			if c.err != nil {
				return Op{}, c.err
			}
			name := c.get("op")
			if name == "rmsnorm" {
				return Op{Kind: RMSNorm, M: m, Dim: dim}, nil
			}
			if g := routeName().FindStringSubmatch(name); g != nil {
				k, _ := strconv.Atoi(g[1])
				e := dim
				if g[2] != "" {
					e, _ = strconv.Atoi(g[2])
				}
				if k < 1 || e < k || e > MaxProfileDim {
					return Op{}, fmt.Errorf("column \"op\": %q selects %d of %d experts", name, k, e)
				}
				return Op{Kind: Route, M: m, Experts: e, TopK: k}, nil
			}
			return Op{}, fmt.Errorf("column \"op\": unknown operator %s (want rmsnorm or softmax_topk<K>_of<E>)", safeio.Quote(name))
		}},
}

// routeName matches "softmax_topk8_of128" (E defaults to the dim column).
var routeName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^softmax_topk([0-9]+)(?:_of([0-9]+))?$`)
})

// cells reads one CSV record by column name, remembering the first error.
type cells struct {
	rec []string
	col map[string]int
	err error
}

func (c *cells) get(name string) string { return strings.TrimSpace(c.rec[c.col[name]]) }

func (c *cells) num(name string) float64 {
	s := c.get(name)
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		if c.err == nil {
			c.err = fmt.Errorf("column %q: %s is not a finite number", name, safeio.Quote(s))
		}
		return 0
	}
	return v
}

func (c *cells) int(name string) int {
	v := c.num(name)
	if c.err != nil {
		return 0
	}
	if v != math.Trunc(v) || v < 1 || v > MaxProfileDim {
		c.err = fmt.Errorf("column %q: %v: want a whole number from 1 to %d", name, v, MaxProfileDim)
		return 0
	}
	return int(v)
}

// Bounds of a profile's (and a shape file's) values: far beyond every
// shipped measurement (sizes up to 202,048, latencies 4.5 µs .. 57 ms) and
// every shape a model of the catalogue gives, and inside what the timing
// model represents.
const (
	// MaxProfileDim bounds every size column (M, K, N, experts, batch,
	// kv_len, ...) and reps: 16 Mi.
	MaxProfileDim = 1 << 24
	// MinLatencyUs and MaxLatencyUs bound a measured latency (0.01 µs ..
	// 1e9 µs): below, the nanosecond clock cannot hold it; above, no kernel
	// runs that long.
	MinLatencyUs = 0.01
	MaxLatencyUs = 1e9
	// MaxShapeBytes bounds the shapes `gpu predict` reads (64 MiB) and
	// MaxLineBytes one line of any profile CSV (64 KiB).
	MaxShapeBytes = 64 << 20
	MaxLineBytes  = safeio.MaxLineBytes
)

// Point is one measured operator.
type Point struct {
	// Op is the measured shape.
	Op Op
	// Model and Label are the row's model and op (or phase) columns.
	Model, Label string
	// Median is the per-call median latency; P10 and P90 are its spread over
	// replays (0 when the file has no such column).
	Median, P10, P90 unit.Duration
	// Reps counts the timed replays (0 when the file has no reps column).
	Reps int
	// File and Line locate the row (repeated measurements of one shape in
	// one file are merged into the first row).
	File string
	Line int
	// kind is the CSV kind ("gemm", "grouped", "attn", "misc").
	kind string
}

// Env is a profile's env.json: the machine and the run. Unknown keys are
// ignored; absent ones are zero.
type Env struct {
	GPU    string  `json:"gpu"`
	SMs    int     `json:"sms"`
	MemGB  float64 `json:"mem_gb"`
	Torch  string  `json:"torch"`
	CUDA   string  `json:"cuda"`
	DType  string  `json:"dtype"`
	Date   string  `json:"date"`
	Method string  `json:"method"`
	// CopyGBps is a device-to-device copy's read+write bandwidth.
	CopyGBps float64 `json:"copy_bw_GBps_read_plus_write"`
	// MatmulTFLOPs is a large (8192^3) BF16 matmul's rate.
	MatmulTFLOPs float64 `json:"bf16_matmul_TFLOPs_8192"`
	// TinyKernelUs is one tiny kernel's time inside a CUDA graph: the
	// launch floor.
	TinyKernelUs float64 `json:"tiny_kernel_us"`
	// MaxSMClockMHz and L2Bytes are written by the shipped profiler when the
	// driver reports them.
	MaxSMClockMHz float64 `json:"max_sm_clock_mhz"`
	L2Bytes       int64   `json:"l2_bytes"`
}

// check refuses env.json values outside their plausible ranges (each
// from 0, the value being absent): sms up to 100,000, mem_gb up to 1e6,
// copy_bw_GBps_read_plus_write up to 1e6, bf16_matmul_TFLOPs_8192 up to
// 1e6, tiny_kernel_us up to 1000, max_sm_clock_mhz up to 1e5, l2_bytes up
// to 1e12, and text fields of at most 1 KiB.
func (e Env) check() error {
	var errs []error
	for _, f := range []struct {
		name  string
		v, hi float64
	}{{"sms", float64(e.SMs), 1e5}, {"mem_gb", e.MemGB, 1e6}, {"copy_bw_GBps_read_plus_write", e.CopyGBps, 1e6},
		{"bf16_matmul_TFLOPs_8192", e.MatmulTFLOPs, 1e6}, {"tiny_kernel_us", e.TinyKernelUs, 1000},
		{"max_sm_clock_mhz", e.MaxSMClockMHz, 1e5}, {"l2_bytes", float64(e.L2Bytes), 1e12}} {
		if !(f.v >= 0 && f.v <= f.hi) {
			errs = append(errs, fmt.Errorf("%s = %v: outside the plausible range 0 .. %g", f.name, f.v, f.hi))
		}
	}
	for _, f := range []struct{ name, v string }{{"gpu", e.GPU}, {"torch", e.Torch}, {"cuda", e.CUDA}, {"dtype", e.DType}, {"date", e.Date}, {"method", e.Method}} {
		if len(f.v) > 1<<10 {
			errs = append(errs, fmt.Errorf("%s = %s: longer than 1 KiB", f.name, safeio.Quote(f.v)))
		}
	}
	return errors.Join(errs...)
}

// Profile is a set of measured operator latencies and the machine they were
// measured on.
type Profile struct {
	// Env is the run's env.json.
	Env Env
	// Points are the measurements, in file order (gemm, grouped, attn, misc).
	Points []Point
	// Source names where the profile was read from.
	Source string
	// Catalogue are the known GPU specs GPU matches env.json against (package
	// reference fills it with reference/gpus when it loads a profile).
	Catalogue []Spec
}

// GPU returns the spec of the GPU the profile was measured on: the Catalogue
// spec whose SM count and model number match env.json, or else a spec built
// from env.json alone (ID "measured-<name>", peak and bandwidth left zero).
func (p *Profile) GPU() Spec {
	for _, s := range p.Catalogue {
		if p.Env.SMs == s.SMs && sameModel(p.Env.GPU, s.Name) {
			return s
		}
	}
	name := p.Env.GPU
	if name == "" {
		name = "unknown GPU"
	}
	s := Spec{
		ID:          "measured-" + slug(name),
		Name:        name,
		SMs:         p.Env.SMs,
		BoostClock:  unit.Hertz(p.Env.MaxSMClockMHz) * unit.MHz,
		MemCapacity: unit.Bytes(p.Env.MemGB * 1e9),
		L2:          unit.Bytes(p.Env.L2Bytes),
		Measured:    true,
		Notes:       "built from " + FileEnv + ": not in the catalogue, so peak rate and bandwidth are unknown and models for other GPUs cannot be derived from it",
	}
	return s
}

// sameModel reports whether an env.json GPU name names the catalogue GPU:
// the catalogue name's model number ("h200") is one of its words, and a
// form factor ("pcie", "nvl") it mentions is the catalogue's. torch reports
// an H200 SXM as "NVIDIA H200" and an H100 PCIe as "NVIDIA H100 PCIe".
func sameModel(env, name string) bool {
	envWords := strings.Fields(strings.ToLower(env))
	nameWords := strings.Fields(strings.ToLower(name))
	hasModel := false
	for _, w := range nameWords {
		if len(w) >= 2 && w[0] >= 'a' && w[0] <= 'z' && w[1] >= '0' && w[1] <= '9' && slices.Contains(envWords, w) {
			hasModel = true
		}
	}
	if !hasModel {
		return false
	}
	lowerEnv, lowerName := strings.ToLower(env), strings.ToLower(name)
	for _, ff := range []string{"pcie", "nvl", "sxm"} {
		inEnv, inName := strings.Contains(lowerEnv, ff), strings.Contains(lowerName, ff)
		if inEnv && !inName || inName && !inEnv && ff != "sxm" { // torch omits "SXM"
			return false
		}
	}
	return true
}

func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

// LoadProfileDir reads a profile from a directory (see [LoadProfile]).
// Errors name the files by their path.
func LoadProfileDir(dir string) (*Profile, error) {
	if st, err := os.Stat(dir); err != nil {
		return nil, err
	} else if !st.IsDir() {
		return nil, fmt.Errorf("%s: not a directory", dir)
	}
	p, err := loadProfile(os.DirFS(dir), strings.TrimSuffix(dir, "/")+"/")
	if err != nil {
		return nil, err
	}
	p.Source = dir
	return p, nil
}

// LoadProfile reads gemm.csv, grouped.csv, attn.csv and misc.csv (those
// present; at least one) and env.json (optional) from fsys. Columns are found
// by their header names; extra columns are ignored. A file is refused with
// "file:line: reason" when it is empty, lacks a column, has a cell that is
// not a number, a latency that is zero or negative, or repeats a shape with a
// different latency. Rows that repeat a shape (same labels and shape) with
// medians within 5% of each other are repeated measurements and are merged:
// the shipped misc.csv times each routing shape four times, 2.9% apart at
// most, while run-to-run noise on these GPUs reaches a few percent.
func LoadProfile(fsys fs.FS) (*Profile, error) {
	return loadProfile(fsys, "")
}

func loadProfile(fsys fs.FS, prefix string) (*Profile, error) {
	p := &Profile{Source: "fs"}
	var files []string
	var parts [][]Point
	n := 0
	for _, kind := range ProfileKinds {
		name := kind + ".csv"
		data, err := safeio.ReadFS(fsys, name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		pts, err := measurements(data, prefix+name, kind)
		if err != nil {
			return nil, err
		}
		files, parts, n = append(files, prefix+name), append(parts, pts), n+len(pts)
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("%sno profile files: want at least one of gemm.csv, grouped.csv, attn.csv, misc.csv", prefix)
	}
	// One allocation for all points; the stored ones (shared, read-only) are
	// copied here and named after the file they came from.
	p.Points = make([]Point, 0, n)
	for i, pts := range parts {
		from := len(p.Points)
		p.Points = append(p.Points, pts...)
		for j := from; j < len(p.Points); j++ {
			p.Points[j].File = files[i]
		}
	}
	data, err := safeio.ReadFS(fsys, FileEnv)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	default:
		if p.Env, err = environment(data); err != nil {
			return nil, fmt.Errorf("%s%s: %v", prefix, FileEnv, err)
		}
		if err := p.Env.check(); err != nil {
			return nil, fmt.Errorf("%s%s: %v", prefix, FileEnv, err)
		}
	}
	return p, nil
}

// csvTable is a whole CSV file with its header indexed.
type csvTable struct {
	header []string
	col    map[string]int
	recs   [][]string
	lines  []int
}

// readCSV reads a whole CSV, checking the header for the required columns.
func readCSV(r io.Reader, file string, required []string) (*csvTable, error) {
	cr := csv.NewReader(safeio.NewLineReader(r, file, MaxLineBytes, MaxShapeBytes))
	cr.TrimLeadingSpace = true
	cr.ReuseRecord = false
	header, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%s:1: empty file (no header)", file)
	}
	if err != nil {
		return nil, csvErr(file, err)
	}
	t := &csvTable{header: header, col: map[string]int{}}
	for i, h := range header {
		h = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
		if _, dup := t.col[h]; dup && h != "" {
			return nil, fmt.Errorf("%s:1: column %s appears twice", file, safeio.Quote(h))
		}
		t.col[h] = i
	}
	for _, c := range required {
		if _, ok := t.col[c]; !ok {
			return nil, fmt.Errorf("%s:1: missing column %q (header: %s)", file, c, safeio.Clip(strings.Join(header, ",")))
		}
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvErr(file, err)
		}
		line, _ := cr.FieldPos(0)
		t.recs = append(t.recs, rec)
		t.lines = append(t.lines, line)
	}
	if len(t.recs) == 0 {
		return nil, fmt.Errorf("%s:2: empty file (a header but no rows)", file)
	}
	return t, nil
}

func csvErr(file string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	var ll *safeio.LineTooLongError
	var tl *safeio.TooLargeError
	switch {
	case errors.As(err, &ll), errors.As(err, &tl):
		return err // it names the file and line itself
	case pe != nil:
		return fmt.Errorf("%s:%d: %v", file, pe.Line, pe.Err)
	}
	return fmt.Errorf("%s: %v", file, err)
}

// dupTolerance is the relative difference between two medians of one shape
// beyond which they are a conflict rather than a repeated measurement.
const dupTolerance = 0.05

func parseMeasurements(r io.Reader, file, kind string) ([]Point, error) {
	sc := schemas[kind]
	req := append(append([]string{}, sc.shape...), "median_us")
	t, err := readCSV(r, file, req)
	if err != nil {
		return nil, err
	}
	type seen struct {
		idx   int
		line  int
		count int
	}
	byKey := make(map[string]*seen, len(t.recs))
	pts := make([]Point, 0, len(t.recs))
	for i, rec := range t.recs {
		line := t.lines[i]
		c := cells{rec: rec, col: t.col}
		op, err := sc.op(c)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", file, line, err)
		}
		pt := Point{Op: op, File: file, Line: line, kind: kind}
		if _, ok := t.col["model"]; ok {
			pt.Model = c.get("model")
		}
		for _, l := range []string{"op", "phase"} {
			if _, ok := t.col[l]; ok {
				pt.Label = c.get(l)
			}
		}
		lat := func(name string) (unit.Duration, error) {
			v := c.num(name)
			if c.err != nil {
				return 0, c.err
			}
			if v < MinLatencyUs || v > MaxLatencyUs {
				return 0, fmt.Errorf("column %q: latency %v us: outside the plausible range %g .. %g us", name, v, MinLatencyUs, MaxLatencyUs)
			}
			return unit.Duration(math.Round(v * 1e3)), nil
		}
		if pt.Median, err = lat("median_us"); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", file, line, err)
		}
		for _, q := range []struct {
			name string
			dst  *unit.Duration
		}{{"p10_us", &pt.P10}, {"p90_us", &pt.P90}} {
			if _, ok := t.col[q.name]; ok {
				if *q.dst, err = lat(q.name); err != nil {
					return nil, fmt.Errorf("%s:%d: %v", file, line, err)
				}
			}
		}
		if _, ok := t.col["reps"]; ok {
			pt.Reps = c.int("reps")
			if c.err != nil {
				return nil, fmt.Errorf("%s:%d: %v", file, line, c.err)
			}
		}
		var key strings.Builder
		for _, l := range sc.labels {
			if j, ok := t.col[l]; ok {
				key.WriteString(strings.TrimSpace(rec[j]))
			}
			key.WriteByte(0)
		}
		for _, s := range sc.shape {
			key.WriteString(strings.TrimSpace(rec[t.col[s]]))
			key.WriteByte(0)
		}
		if s, dup := byKey[key.String()]; dup {
			first := &pts[s.idx]
			a, b := float64(first.Median), float64(pt.Median)
			if math.Abs(a-b) > dupTolerance*math.Min(a, b) {
				return nil, fmt.Errorf("%s:%d: duplicate shape with a different latency: median_us %s here, %s at line %d (more than %.0f%% apart)",
					file, line, fmtUs(pt.Median), fmtUs(first.Median), s.line, dupTolerance*100)
			}
			// A repeated measurement: the geometric mean of the medians,
			// the widest spread, the summed replays.
			s.count++
			first.Median = unit.Duration(math.Round(math.Exp((math.Log(a)*float64(s.count-1) + math.Log(b)) / float64(s.count))))
			first.P10 = minNonZero(first.P10, pt.P10)
			first.P90 = max(first.P90, pt.P90)
			first.Reps += pt.Reps
			continue
		}
		byKey[key.String()] = &seen{idx: len(pts), line: line, count: 1}
		pts = append(pts, pt)
	}
	return pts, nil
}

// decodeEnv decodes an env.json (its first JSON value; a UTF-8
// byte-order mark is skipped).
func decodeEnv(data []byte) (Env, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	var env Env
	err := json.NewDecoder(bytes.NewReader(data)).Decode(&env)
	return env, err
}

func minNonZero(a, b unit.Duration) unit.Duration {
	if a == 0 || b != 0 && b < a {
		return b
	}
	return a
}

func fmtUs(d unit.Duration) string { return strconv.FormatFloat(d.Microseconds(), 'f', -1, 64) }

// ShapeTable is a CSV of operator shapes with the header of one of the
// profile's files: what `dashlab gpu predict` reads. Measurement columns are
// not needed and, like any other extra column, are kept but not read.
type ShapeTable struct {
	Header  []string
	Records [][]string
	Ops     []Op
	Lines   []int
}

// ReadShapes reads a CSV of shapes of one profile kind ("gemm", "grouped",
// "attn" or "misc"); file names the input in errors.
func ReadShapes(r io.Reader, file, kind string) (*ShapeTable, error) {
	sc, ok := schemas[kind]
	if !ok {
		return nil, fmt.Errorf("unknown profile kind %q (want %s)", kind, strings.Join(ProfileKinds, ", "))
	}
	t, err := readCSV(r, file, sc.shape)
	if err != nil {
		return nil, err
	}
	st := &ShapeTable{Header: t.header, Records: t.recs, Lines: t.lines}
	for i, rec := range t.recs {
		op, err := sc.op(cells{rec: rec, col: t.col})
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", file, t.lines[i], err)
		}
		st.Ops = append(st.Ops, op)
	}
	return st, nil
}
