package dash

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dashlab/dashlab/dash/unit"
	"gopkg.in/yaml.v3"
)

// TopologySpec says how many stack pairs the package has, what a pair
// holds and which kinds of UCIe path exist, with their usable rates. A pair
// is HBMPerPair HBM stacks and one HBF stack (none in an HBM-only package);
// each HBM stack has at most one link of each kind: GPU-HBM, and HBM-HBF to
// its pair's HBF stack (the pair-local path that carries Relay reads and
// HBM-to-HBF writeback); each HBF stack at most a GPU-HBF link (the Direct
// path). Links never cross pairs.
//
// Routes follow from the paths: HBM -> GPU needs GPU-HBM; Direct (HBF -> GPU)
// needs GPU-HBF; Relay (HBF -> HBM base die -> GPU) needs HBM-HBF and
// GPU-HBM. The memory system compiles to a [RouteTable] (see
// [SystemSpec.RouteTable]): every resource with its own rate and every
// route as a list of hops.
type TopologySpec struct {
	// Pairs is the number of stack pairs (DASH: 2; Compact-DASH: 1; an
	// HBM-only GPU: its HBM stacks, with HBMOnly). Range 1..64 (MaxPairs).
	Pairs int `yaml:"pairs" knob:"pairs | stack pairs (HBM-only: HBM stacks) | 1..64 | Fig. 8 | faster"`
	// GPUHBM is true when each HBM stack has a link to the GPU.
	GPUHBM bool `yaml:"gpu_hbm" knob:" | each HBM stack has a link to the GPU | | Fig. 8"`
	// GPUHBF is true when each HBF stack has a direct link to the GPU.
	GPUHBF bool `yaml:"gpu_hbf" knob:" | each HBF stack has a link to the GPU (Direct) | | Fig. 8"`
	// HBMHBF is true when each HBM stack has a link to its pair's HBF stack.
	HBMHBF bool `yaml:"hbm_hbf" knob:" | each HBM stack has a link to its pair's HBF stack (Relay, writeback) | | Fig. 8"`
	// HBMPerPair is the number of HBM stacks in a pair (0: 1, the paper's).
	// 2 shares each HBF stack between two HBM stacks, each with its own
	// HBM-HBF link. Range 0..4 (MaxHBMPerPair).
	HBMPerPair int `yaml:"hbm_per_pair,omitempty" knob:" | HBM stacks in a pair, sharing its HBF stack (0: 1) | 0..4 | a what-if beyond Fig. 8"`
	// HBMOnly is true for a package with no HBF at all (an HBM-only GPU such
	// as an H100 or H200): each pair is then its HBM stacks alone, and
	// gpu_hbf and hbm_hbf must be false.
	HBMOnly bool `yaml:"hbm_only,omitempty" knob:" | the package has no HBF (an HBM-only GPU) | | a what-if beyond Fig. 8"`
	// GPUHBMUsable, GPUHBFUsable and HBMHBFUsable are the usable rates, per
	// direction, of the links of each kind (0: link.usable). Range 1 GB/s ..
	// 1 PB/s and at most the link part's raw rate.
	GPUHBMUsable unit.BytesPerSecond `yaml:"gpu_hbm_usable,omitempty" knob:" | usable rate of the GPU-HBM links, each direction (0: link.usable) | 1 GB/s..1000 TB/s or 0 B/s | §IV-A | faster"`
	// GPUHBFUsable is the usable rate of the GPU-HBF links (see GPUHBMUsable).
	GPUHBFUsable unit.BytesPerSecond `yaml:"gpu_hbf_usable,omitempty" knob:" | usable rate of the GPU-HBF links, each direction (0: link.usable) | 1 GB/s..1000 TB/s or 0 B/s | §IV-A | faster"`
	// HBMHBFUsable is the usable rate of the HBM-HBF links (see GPUHBMUsable).
	HBMHBFUsable unit.BytesPerSecond `yaml:"hbm_hbf_usable,omitempty" knob:" | usable rate of the HBM-HBF links, each direction (0: link.usable) | 1 GB/s..1000 TB/s or 0 B/s | §IV-A | faster"`
	// LinkUsable sets the usable rate of single links over their kind's, as
	// NAME=RATE pairs separated by commas ("gpu-hbf1=1.2 TB/s, hbm0-hbf0=0.8
	// TB/s"; [TopologySpec.LinkNames] lists the names). Same range.
	LinkUsable string `yaml:"link_usable,omitempty" knob:" | usable rates of single links, NAME=RATE, ... (gpu-hbf1=1.2 TB/s) over their kind's | | a what-if beyond §IV-A"`
}

// MaxHBMPerPair bounds topology.hbm_per_pair.
const MaxHBMPerPair = 4

// LinkKind is one of the three kinds of UCIe path.
type LinkKind uint8

// The kinds of link.
const (
	LinkGPUHBM LinkKind = iota // GPU - HBM stack
	LinkGPUHBF                 // GPU - HBF stack (Direct)
	LinkHBMHBF                 // HBM stack - its pair's HBF stack (Relay, writeback)
)

var linkKindFields = [...]string{"gpu_hbm", "gpu_hbf", "hbm_hbf"}

// String is the kind's YAML key ("gpu_hbf").
func (k LinkKind) String() string {
	if int(k) < len(linkKindFields) {
		return linkKindFields[k]
	}
	return fmt.Sprintf("link kind(%d)", k)
}

// PerPair is the number of HBM stacks in a pair (HBMPerPair, 0 read as 1).
func (t TopologySpec) PerPair() int { return max(1, t.HBMPerPair) }

// HBMStacks is the number of HBM stacks in the package.
func (t TopologySpec) HBMStacks() int { return t.Pairs * t.PerPair() }

// HBFStacks is the number of HBF stacks in the package (0 when HBMOnly).
func (t TopologySpec) HBFStacks() int {
	if t.HBMOnly {
		return 0
	}
	return t.Pairs
}

// Direct reports whether the Direct route (HBF -> GPU) exists.
func (t TopologySpec) Direct() bool { return t.GPUHBF && !t.HBMOnly }

// Relay reports whether the Relay route (HBF -> HBM base die -> GPU) exists.
func (t TopologySpec) Relay() bool { return t.HBMHBF && t.GPUHBM && !t.HBMOnly }

// has reports whether links of kind k exist.
func (t TopologySpec) has(k LinkKind) bool {
	switch k {
	case LinkGPUHBM:
		return t.GPUHBM
	case LinkGPUHBF:
		return t.GPUHBF && !t.HBMOnly
	default:
		return t.HBMHBF && !t.HBMOnly
	}
}

// Links is the number of physical links in the package.
func (t TopologySpec) Links() int {
	n := 0
	if t.has(LinkGPUHBM) {
		n += t.HBMStacks()
	}
	if t.has(LinkGPUHBF) {
		n += t.HBFStacks()
	}
	if t.has(LinkHBMHBF) {
		n += t.HBMStacks()
	}
	return n
}

// GPUFacingLinks is the number of links that end at the GPU.
func (t TopologySpec) GPUFacingLinks() int {
	n := 0
	if t.has(LinkGPUHBM) {
		n += t.HBMStacks()
	}
	if t.has(LinkGPUHBF) {
		n += t.HBFStacks()
	}
	return n
}

// topoLink is one physical link of the topology.
type topoLink struct {
	kind     LinkKind
	name     string // "gpu-hbm0", "gpu-hbf1", "hbm1-hbf1"
	pair     int
	hbm, hbf int // the HBM and HBF stack at its ends (-1 for the GPU)
	k        int // the HBM stack's position in its pair
}

// links lists the physical links, pair by pair: each HBM stack's GPU-HBM
// link, the HBF stack's GPU-HBF link, then each HBM stack's HBM-HBF link.
func (t TopologySpec) links() []topoLink {
	var out []topoLink
	h := t.PerPair()
	for c := range max(0, min(t.Pairs, MaxPairs)) {
		for k := range h {
			if t.has(LinkGPUHBM) {
				i := c*h + k
				out = append(out, topoLink{kind: LinkGPUHBM, name: fmt.Sprintf("gpu-hbm%d", i), pair: c, hbm: i, hbf: -1, k: k})
			}
		}
		if t.has(LinkGPUHBF) {
			out = append(out, topoLink{kind: LinkGPUHBF, name: fmt.Sprintf("gpu-hbf%d", c), pair: c, hbm: -1, hbf: c})
		}
		for k := range h {
			if t.has(LinkHBMHBF) {
				i := c*h + k
				out = append(out, topoLink{kind: LinkHBMHBF, name: fmt.Sprintf("hbm%d-hbf%d", i, c), pair: c, hbm: i, hbf: c, k: k})
			}
		}
	}
	return out
}

// LinkNames lists the names of the package's links, as LinkUsable takes
// them.
func (t TopologySpec) LinkNames() []string {
	var out []string
	for _, l := range t.links() {
		out = append(out, l.name)
	}
	return out
}

// kindUsable is the usable rate set for links of kind k (0: none).
func (t TopologySpec) kindUsable(k LinkKind) unit.BytesPerSecond {
	return [...]unit.BytesPerSecond{t.GPUHBMUsable, t.GPUHBFUsable, t.HBMHBFUsable}[k]
}

// usable is a link's usable rate and the field that sets it, given the
// link part's.
func (t TopologySpec) usable(l topoLink, part unit.BytesPerSecond) (unit.BytesPerSecond, string) {
	if rates, _ := t.SingleLinks(); rates != nil {
		if r, ok := rates[l.name]; ok {
			return r, "topology.link_usable"
		}
	}
	if r := t.kindUsable(l.kind); r != 0 {
		return r, "topology." + l.kind.String() + "_usable"
	}
	return part, "link.usable"
}

// SingleLinks reads LinkUsable: the usable rate of each link it names
// (nil when it is empty), or an error naming the entry that does not read
// (a name without =RATE, a rate without its unit).
func (t TopologySpec) SingleLinks() (map[string]unit.BytesPerSecond, error) {
	if strings.TrimSpace(t.LinkUsable) == "" {
		return nil, nil
	}
	out := map[string]unit.BytesPerSecond{}
	for _, part := range strings.Split(t.LinkUsable, ",") {
		name, rate, ok := strings.Cut(part, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, fmt.Errorf("topology.link_usable: %q: want NAME=RATE (gpu-hbf1=1.2 TB/s)", strings.TrimSpace(part))
		}
		var r unit.BytesPerSecond
		if err := yaml.Unmarshal([]byte(strings.TrimSpace(rate)), &r); err != nil {
			return nil, fmt.Errorf("topology.link_usable: %s = %q: %v", name, strings.TrimSpace(rate), err)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("topology.link_usable: %s given twice", name)
		}
		out[name] = r
	}
	return out, nil
}

// exactRate writes r so that it reads back exactly: in TB/s when that is
// short (1.2 TB/s), else in B/s with every digit.
func exactRate(r unit.BytesPerSecond) string {
	if t := strconv.FormatFloat(float64(r)/1e12, 'g', -1, 64); float64(r) == mustFloat(t)*1e12 && len(t) < 8 {
		return t + " TB/s"
	}
	return strconv.FormatFloat(float64(r), 'g', -1, 64) + " B/s"
}

func mustFloat(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// WithLinkUsable returns LinkUsable's text for the rates (names in order),
// which reads back to the same rates.
func WithLinkUsable(rates map[string]unit.BytesPerSecond) string {
	names := make([]string, 0, len(rates))
	for n := range rates {
		names = append(names, n)
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + "=" + exactRate(rates[n])
	}
	return strings.Join(parts, ", ")
}

// KindUsable is the usable rate of the links of kind k given the link
// part's rate: the kind's own rate if set, else the part's. Single links
// may differ (LinkUsable).
func (t TopologySpec) KindUsable(k LinkKind, part unit.BytesPerSecond) unit.BytesPerSecond {
	if r := t.kindUsable(k); r != 0 {
		return r
	}
	return part
}

// Symmetric reports whether every link of a kind has the same usable rate
// (no LinkUsable entry differs from its kind's).
func (t TopologySpec) Symmetric(part unit.BytesPerSecond) bool {
	for _, l := range t.links() {
		if r, _ := t.usable(l, part); r != t.KindUsable(l.kind, part) {
			return false
		}
	}
	return true
}

// Validate checks that the topology has stacks and that the GPU can reach
// both memories.
func (t TopologySpec) Validate() error {
	errs := t.limits()
	if !t.GPUHBM {
		errs = append(errs, errors.New("topology.gpu_hbm = false: the GPU cannot reach HBM, which holds activations and decode KV"))
	}
	switch {
	case t.HBMOnly && (t.GPUHBF || t.HBMHBF):
		errs = append(errs, fmt.Errorf("topology.hbm_only = true with gpu_hbf = %v, hbm_hbf = %v: an HBM-only package has no HBF to link; set both false", t.GPUHBF, t.HBMHBF))
	case !t.HBMOnly && !t.Direct() && !t.Relay():
		errs = append(errs, errors.New("topology: the GPU cannot reach HBF: enable gpu_hbf (Direct) or hbm_hbf with gpu_hbm (Relay), or set hbm_only for a package without HBF"))
	}
	rates, err := t.SingleLinks()
	if err != nil {
		errs = append(errs, err)
	}
	if len(rates) > 0 {
		names := t.LinkNames()
		keys := make([]string, 0, len(rates))
		for k := range rates {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			r := rates[k]
			field := "topology.link_usable: " + k
			if !slices.Contains(names, k) {
				errs = append(errs, fmt.Errorf("%s: no such link (this topology has %s)", field, strings.Join(names, ", ")))
				continue
			}
			if r == 0 || math.IsNaN(float64(r)) {
				errs = append(errs, fmt.Errorf("%s = %v: a link with zero rate carries nothing; remove the path or give it a rate", field, r))
				continue
			}
			errs = inRange(errs, field, r, unit.GBps, 1000*unit.TBps)
		}
	}
	return errors.Join(errs...)
}

// Name describes the topology as in the paper's Fig. 8 when it matches one.
func (t TopologySpec) Name() string {
	plain := t.PerPair() == 1 && !t.HBMOnly
	switch {
	case plain && t.Pairs == 2 && t.GPUHBM && t.GPUHBF && t.HBMHBF:
		return "DASH"
	case plain && t.Pairs == 1 && t.GPUHBM && t.GPUHBF && t.HBMHBF:
		return "Compact-DASH"
	case plain && t.Pairs == 2 && t.GPUHBM && !t.GPUHBF && t.HBMHBF:
		return "RelayOnly"
	case plain && t.Pairs == 2 && t.GPUHBM && t.GPUHBF && !t.HBMHBF:
		return "DirectOnly"
	case t.HBMOnly:
		return fmt.Sprintf("%d HBM stacks, no HBF", t.HBMStacks())
	}
	var paths []string
	for _, p := range []struct {
		on   bool
		name string
	}{{t.GPUHBM, "GPU-HBM"}, {t.GPUHBF, "GPU-HBF"}, {t.HBMHBF, "HBM-HBF"}} {
		if p.on {
			paths = append(paths, p.name)
		}
	}
	if t.PerPair() > 1 {
		return fmt.Sprintf("%d pairs of %d HBM + 1 HBF, %v", t.Pairs, t.PerPair(), paths)
	}
	return fmt.Sprintf("%d-pair %v", t.Pairs, paths)
}
