// Package resultdocs keeps the numbers of the documentation from drifting away from
// the engine's.
//
// The reproduction's output is committed, byte for byte, as reference/reproduction.json
// (`dashlab reproduce --format json --quiet`; CI checks after its reproduce step that the
// engine still prints exactly that). README.md's and the notebooks' result tables are
// generated from it between markers, and prose quotes simulated values through inline
// markers (Generate); a fast test fails when a generated region differs from what the
// golden gives, so an edit by hand or a golden updated without regenerating is caught
// without running the engine. A second check (Numbers) finds simulated numbers typed in
// prose: README, the notebooks' Markdown and Go comments.
//
// To regenerate after an engine change:
//
//	go run ./dash/cmd/dashlab reproduce --format json --quiet > reference/reproduction.json
//	go generate ./internal/resultdocs
package resultdocs

//go:generate go run ./cmd/resultdocs -root ../.. -write
