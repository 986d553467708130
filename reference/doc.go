// Package reference holds what the DASH paper published and the data
// dashlab ships: the model catalogue (models/*.yaml, one file per model with
// its sources), the named memory systems (systems/*.yaml, cited, with the
// pair families dash-N, relay-only-N, direct-only-N), the GPUs (gpus/*.yaml),
// the measured GPU profiles (profiles/), example experiments (experiments/)
// and the paper's numbers with ids and tolerances (paper.yaml). Everything is
// embedded and decoded strictly on first use, so a binary or a notebook needs
// no files beside it, and a new file in one of those folders is a new entry
// without code changes. The shipped catalogue files are also stored decoded
// (stored_catalogue.go, by SHA-256, rewritten by `go generate ./reference`
// and checked by TestStoredCatalogue), so that a process does not pay YAML
// decoding for them; a file whose bytes differ is decoded as it is.
//
// In the flow spec -> Build -> engine -> harness summary -> charts, this
// package supplies the specs: [Catalogue] resolves model, system and GPU ids
// for the builder, the experiment files and the CLI alike. The harness
// (reproduce) runs the engine and summarises into the types of summary;
// package charts draws them.
//
// The engine (package dash) never imports this package: users bring their
// own models and profiles. This package turns catalogue ids into engine
// values: [Model] gives a dash.ModelSpec, [Timing] a GPU timing model for a
// GPU id, [System] a named memory system, [Experiment] a builder on the
// catalogue with a model id, a system id and the paper's GPU:
//
//	exp, err := reference.Experiment("qwen3-235b-a22b", "dash").Batch(4).Build()
//
// The comparison harness that runs the engine behind each paper id lives in
// the subpackage reproduce.
package reference
