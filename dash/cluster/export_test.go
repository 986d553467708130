package cluster

// SharingPasses returns c with a capacity search's pass sharing (shared.go)
// on: every Serve with the returned config shares its stage passes.
func SharingPasses(c ServeConfig) ServeConfig { c.shared = &sharedPasses{}; return c }

// SharedPasses is the number of passes the config's memos hold.
func SharedPasses(c ServeConfig) int {
	n := 0
	if c.shared != nil {
		for _, m := range c.shared.memos {
			n += m.Len()
		}
	}
	return n
}
