// Package summary holds the harness's typed outcomes: the paper-vs-simulated rows with
// their verdicts, the points of a sweep (each with its own case and error), the paired
// Fig. 9 ratios and their geomeans, the lookahead pairs of Fig. 11, the sensitivity
// study of Fig. 12 and the model catalogue's footprints.
//
// The data flow of dashlab is one way: spec -> Build (package dash) -> engine (dash/sim)
// -> harness summary (reference/reproduce computes the values defined here and judges
// them against reference/paper.yaml) -> charts, the CLI and the notebooks, which read
// them and compute nothing of their own. This package sits between the harness and its
// readers: it imports the engine's result types but never runs a simulation and never
// reads the paper's numbers or the catalogue (it imports nothing under reference/), so
// that package charts can draw a summary without depending on the harness or the data
// it was judged against.
package summary
