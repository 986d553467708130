package sim

import (
	"fmt"

	"github.com/dashlab/dashlab/dash"
)

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

// Route is what kind of path a stream's data take between a memory and the
// GPU (RouteStats.Route, Span.Route): dash.RouteKind, whose routes the
// memory system's route table lists hop by hop. It is written as its name
// in JSON, CSV and text ("relay", "direct_write", ...), and decoding
// refuses an unknown name.
type Route = dash.RouteKind

// Routes kinds, in the order of Result.Routes.
const (
	RouteHBM         = dash.RouteHBM
	RouteDirect      = dash.RouteDirect
	RouteRelay       = dash.RouteRelay
	RouteDirectWrite = dash.RouteDirectWrite
	RouteRelayWrite  = dash.RouteRelayWrite
	RouteHBMWrite    = dash.RouteHBMWrite
	RouteWriteback   = dash.RouteWriteback
	numRoutes        = dash.NumRouteKinds
)

// Routes lists every route kind in order.
func Routes() []Route { return dash.RouteKinds() }

// ParseRoute returns the route kind of a name ("relay").
func ParseRoute(name string) (Route, error) {
	var r Route
	err := r.UnmarshalText([]byte(name))
	return r, err
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
