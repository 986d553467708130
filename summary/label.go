package summary

import "fmt"

// LengthLabel writes a sequence length the paper's way: 512, 1K, 4K, 20K, 1M
// (1M is 1,000,000 tokens, as the paper's 4K/1M decode).
func LengthLabel(n int) string {
	if n >= 1_000_000 && n%1_000_000 == 0 {
		return fmt.Sprintf("%dM", n/1_000_000)
	}
	if n >= 1024 && n%1024 == 0 {
		return fmt.Sprintf("%dK", n/1024)
	}
	return fmt.Sprint(n)
}
