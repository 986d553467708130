// Package reference holds what the DASH paper published and the data
// dashlab ships: the model catalogue (models/*.yaml, one file per model with
// its sources), the measured GPU profiles (profiles/), example experiments
// (experiments/) and the paper's numbers with ids and tolerances
// (paper.yaml). Everything is embedded, so a binary or a notebook needs no
// files beside it.
//
// The engine (package dash) never imports this package: users bring their
// own models and profiles. This package turns catalogue ids into engine
// values: [Model] gives a dash.ModelSpec, [Timing] a GPU timing model for a
// GPU id, [Experiment] a builder pre-filled with a catalogue model, a named
// system and the paper's GPU:
//
//	exp, err := reference.Experiment("qwen3-235b-a22b", "dash").Batch(4).Build()
//
// The comparison harness that runs the engine behind each paper id lives in
// the subpackage reproduce.
package reference
