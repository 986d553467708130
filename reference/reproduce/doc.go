// Package reproduce runs the engine behind every number the paper publishes
// (reference/paper.yaml) and compares: paper value, simulated value,
// deviation, tolerance, pass. An id that no part of the engine simulates yet
// is reported as such, never dropped.
//
// Work is organised in groups, each of which computes a set of ids (Table II
// and Fig. 1 from the model inventory, the interconnect numbers from the
// link and stack specs, Fig. 9 from fixed-batch simulations, ...). A group
// runs only when one of its ids matches the requested prefix. Groups that
// run simulations spread them over worker goroutines, one simulation per
// goroutine.
//
// It is the harness of the flow spec -> Build -> engine -> harness summary -> charts:
// it builds catalogue experiments, runs the engine (Sweep, LookaheadStudy, Fig12Study,
// the traced runs of Options.Figures) and summarises (SummariseFig9, the lookahead
// pairs, the model footprints) into the types of package summary. Every
// paper-vs-simulated number is computed and judged here once (judge.go: the rows of Run
// and the Rows of every summary); the CLI prints it, package reference/report lays the
// charts package's figures out on a page, the notebooks show it, and package charts only
// draws it.
package reproduce
