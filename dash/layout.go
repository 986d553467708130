package dash

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// Layout is the dtype layout of a released checkpoint (CheckpointSpec.Layout); see
// [ModelSpec.Inventory] for what each puts in which dtype.
type Layout string

// The checkpoint layouts.
const (
	// LayoutBF16 has every tensor in BF16.
	LayoutBF16 Layout = "bf16"
	// LayoutINT8Mixed (Grok-1) has INT8 attention and FFN/expert weights with BF16
	// scales, BF16 embeddings, router and norms.
	LayoutINT8Mixed Layout = "int8-mixed"
	// LayoutFP8Mixed (DeepSeek-V3, Kimi-K2) has FP8 e4m3 linear weights with
	// 128 x 128 block scales, BF16 embeddings, router and norms.
	LayoutFP8Mixed Layout = "fp8-mixed"
)

// Layouts lists the known layouts.
func Layouts() []Layout { return []Layout{LayoutBF16, LayoutINT8Mixed, LayoutFP8Mixed} }

// Valid reports whether l is a known layout.
func (l Layout) Valid() bool {
	for _, k := range Layouts() {
		if l == k {
			return true
		}
	}
	return false
}

// UnmarshalYAML refuses an unknown layout at decode time, naming the value and the
// known ones.
func (l *Layout) UnmarshalYAML(n *yaml.Node) error {
	var s string
	if err := n.Decode(&s); err != nil {
		return err
	}
	if !Layout(s).Valid() {
		return fmt.Errorf("line %d: layout %q: want one of %v", n.Line, s, Layouts())
	}
	*l = Layout(s)
	return nil
}

// UnmarshalText refuses an unknown layout when decoding JSON (or any text form),
// as UnmarshalYAML does for YAML.
func (l *Layout) UnmarshalText(b []byte) error {
	if !Layout(b).Valid() {
		return fmt.Errorf("layout %q: want one of %v", b, Layouts())
	}
	*l = Layout(b)
	return nil
}
