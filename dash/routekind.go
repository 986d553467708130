package dash

import "fmt"

// RouteKind names what a route does, as results report it: which memory
// it leaves, which it reaches and whether it passes another stack's base
// die. Many routes share a kind (one Direct route per HBF stack, one Relay
// route per HBM stack an HBF stack is linked to); the route table lists
// each with its hops. It is written as its name in JSON, CSV and text
// ("relay", "direct_write", ...), and decoding refuses an unknown name.
type RouteKind uint8

// Route kinds, in the order results list them.
const (
	RouteHBM         RouteKind = iota // HBM array -> GPU-HBM link -> GPU
	RouteDirect                       // HBF array -> TSV -> HBF SRAM -> GPU-HBF link -> GPU
	RouteRelay                        // HBF array -> TSV -> HBF SRAM -> HBF-HBM link -> relay SRAM -> GPU-HBM link -> GPU
	RouteDirectWrite                  // GPU -> GPU-HBF link -> HBF SRAM -> program
	RouteRelayWrite                   // GPU -> GPU-HBM link -> relay SRAM -> HBM-HBF link -> HBF SRAM -> program
	RouteHBMWrite                     // GPU -> GPU-HBM link -> HBM array
	RouteWriteback                    // HBM array -> HBM-HBF link (or through the GPU) -> HBF SRAM -> program
	NumRouteKinds
)

var routeKindNames = []string{"hbm", "direct", "relay", "direct_write", "relay_write", "hbm_write", "writeback"}

// RouteKinds lists every route kind in order.
func RouteKinds() []RouteKind {
	out := make([]RouteKind, NumRouteKinds)
	for i := range out {
		out[i] = RouteKind(i)
	}
	return out
}

// String returns the kind's name ("relay"), or "route(N)" out of range.
func (r RouteKind) String() string {
	if int(r) < len(routeKindNames) {
		return routeKindNames[r]
	}
	return fmt.Sprintf("route(%d)", r)
}

// MarshalText writes the kind's name; an unknown kind is an error.
func (r RouteKind) MarshalText() ([]byte, error) {
	if int(r) >= len(routeKindNames) {
		return nil, fmt.Errorf("route %d: want one of %v", r, routeKindNames)
	}
	return []byte(routeKindNames[r]), nil
}

// UnmarshalText reads a kind's name, refusing an unknown one.
func (r *RouteKind) UnmarshalText(b []byte) error {
	for i, n := range routeKindNames {
		if n == string(b) {
			*r = RouteKind(i)
			return nil
		}
	}
	return fmt.Errorf("route %q: want one of %v", b, routeKindNames)
}

// IsRead reports whether the kind ends at the GPU (hbm, direct, relay).
func (r RouteKind) IsRead() bool { return r <= RouteRelay }

// IsGPUWrite reports whether the kind carries data the GPU writes
// (direct_write, relay_write, hbm_write); writeback moves data HBM already
// holds.
func (r RouteKind) IsGPUWrite() bool {
	return r == RouteDirectWrite || r == RouteRelayWrite || r == RouteHBMWrite
}

// WritesHBF reports whether the kind programs the HBF array (direct_write,
// relay_write, writeback).
func (r RouteKind) WritesHBF() bool {
	return r == RouteDirectWrite || r == RouteRelayWrite || r == RouteWriteback
}
