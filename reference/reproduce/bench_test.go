package reproduce

import "testing"

func BenchmarkFig9(b *testing.B) {
	for b.Loop() {
		if _, err := Run(Options{Only: "fig9"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGroups runs each group of the reproduction alone (derived
// artifacts left out): `go test ./reference/reproduce -run X -bench
// Groups/serving -benchtime 1x` times the serving study.
func BenchmarkGroups(b *testing.B) {
	for _, g := range GroupNames() {
		b.Run(g, func(b *testing.B) {
			for b.Loop() {
				if _, err := Run(Options{Groups: []string{g}}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
