//go:build !unix

package sweep

// lockOutput is a no-op where advisory locks are not available.
func lockOutput(string) (func(), error) { return func() {}, nil }
