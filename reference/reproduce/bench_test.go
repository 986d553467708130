package reproduce

import "testing"

func BenchmarkFig9(b *testing.B) {
	for b.Loop() {
		if _, err := Run(Options{Only: "fig9"}); err != nil {
			b.Fatal(err)
		}
	}
}
