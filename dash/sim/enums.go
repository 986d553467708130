package sim

import "fmt"

// OpClass groups GPU operators for the time breakdown (Phase.Classes,
// OpSpan.Class). It is written as its name in JSON, CSV and text ("experts",
// "attn_proj", ...), and decoding refuses an unknown name.
type OpClass uint8

// Operator classes, in the order of Phase.Classes.
const (
	ClassEmbed     OpClass = iota // token-embedding gather
	ClassNorm                     // RMSNorms (and the residual adds fused into them)
	ClassAttnProj                 // QKV / MLA projections and the output projection
	ClassAttention                // the attention kernel over the KV cache
	ClassRouter                   // router GEMM and top-k selection
	ClassDenseFFN                 // dense FFN layers
	ClassExperts                  // the MoE block: shared and selected routed experts
	ClassLMHead                   // final norm and LM head
	numClasses
)

var classNames = enumNames{"operator class", []string{"embed", "norm", "attn_proj", "attention", "router", "dense_ffn", "experts", "lm_head"}}

// OpClasses lists every operator class in order.
func OpClasses() []OpClass { return enumValues[OpClass](numClasses) }

// String returns the class name ("experts"), or "class(N)" out of range.
func (c OpClass) String() string { return classNames.name(uint8(c), "class") }

// MarshalText writes the class name; an unknown class is an error.
func (c OpClass) MarshalText() ([]byte, error) { return classNames.marshal(uint8(c)) }

// UnmarshalText reads a class name, refusing an unknown one.
func (c *OpClass) UnmarshalText(b []byte) error { return classNames.unmarshal(b, (*uint8)(c)) }

// ParseOpClass returns the class of a name ("experts").
func ParseOpClass(name string) (OpClass, error) {
	var c OpClass
	err := c.UnmarshalText([]byte(name))
	return c, err
}

// Route is the path a stream's data take between a memory and the GPU
// (RouteStats.Route, Span.Route). Reads end at the GPU; writes start there or
// at HBM. It is written as its name in JSON, CSV and text ("relay",
// "direct_write", ...), and decoding refuses an unknown name.
type Route uint8

// Routes, in the order of Result.Routes.
const (
	RouteHBM         Route = iota // HBM array -> GPU-HBM link -> GPU
	RouteDirect                   // HBF array -> TSV -> HBF SRAM -> GPU-HBF link -> GPU
	RouteRelay                    // HBF array -> TSV -> HBF SRAM -> HBF-HBM link -> relay SRAM -> GPU-HBM link -> GPU
	RouteDirectWrite              // GPU -> GPU-HBF link -> HBF SRAM -> program
	RouteRelayWrite               // GPU -> GPU-HBM link -> relay SRAM -> HBM-HBF link -> HBF SRAM -> program
	RouteHBMWrite                 // GPU -> GPU-HBM link -> HBM array
	RouteWriteback                // HBM array -> HBM-HBF link -> HBF SRAM -> program
	numRoutes
)

var routeNames = enumNames{"route", []string{"hbm", "direct", "relay", "direct_write", "relay_write", "hbm_write", "writeback"}}

// Routes lists every route in order.
func Routes() []Route { return enumValues[Route](numRoutes) }

// String returns the route name ("relay"), or "route(N)" out of range.
func (r Route) String() string { return routeNames.name(uint8(r), "route") }

// MarshalText writes the route name; an unknown route is an error.
func (r Route) MarshalText() ([]byte, error) { return routeNames.marshal(uint8(r)) }

// UnmarshalText reads a route name, refusing an unknown one.
func (r *Route) UnmarshalText(b []byte) error { return routeNames.unmarshal(b, (*uint8)(r)) }

// ParseRoute returns the route of a name ("relay").
func ParseRoute(name string) (Route, error) {
	var r Route
	err := r.UnmarshalText([]byte(name))
	return r, err
}

// IsRead reports whether the route ends at the GPU (hbm, direct, relay).
func (r Route) IsRead() bool { return r <= RouteRelay }

// IsGPUWrite reports whether the route carries data the GPU writes
// (direct_write, relay_write, hbm_write); writeback moves data HBM already
// holds.
func (r Route) IsGPUWrite() bool {
	return r == RouteDirectWrite || r == RouteRelayWrite || r == RouteHBMWrite
}

// WritesHBF reports whether the route programs the HBF array (direct_write,
// relay_write, writeback).
func (r Route) WritesHBF() bool {
	return r == RouteDirectWrite || r == RouteRelayWrite || r == RouteWriteback
}

// enumNames is the text form of a small enum: value i is names[i].
type enumNames struct {
	kind  string // what the enum is, for errors ("route")
	names []string
}

func (e enumNames) name(v uint8, short string) string {
	if int(v) < len(e.names) {
		return e.names[v]
	}
	return fmt.Sprintf("%s(%d)", short, v)
}

func (e enumNames) marshal(v uint8) ([]byte, error) {
	if int(v) >= len(e.names) {
		return nil, fmt.Errorf("sim: %s %d: want one of %v", e.kind, v, e.names)
	}
	return []byte(e.names[v]), nil
}

func (e enumNames) unmarshal(b []byte, v *uint8) error {
	for i, n := range e.names {
		if n == string(b) {
			*v = uint8(i)
			return nil
		}
	}
	return fmt.Errorf("sim: %s %q: want one of %v", e.kind, b, e.names)
}

// enumValues lists the n values of an enum.
func enumValues[T ~uint8](n T) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = T(i)
	}
	return out
}
