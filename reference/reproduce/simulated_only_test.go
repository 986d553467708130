package reproduce

import (
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/summary"
)

// A number beyond the paper (paper.yaml's simulated_only) is shown as
// simulated, with no paper value, deviation or verdict.
func TestSimulatedOnlyRows(t *testing.T) {
	row, err := judge("cluster.qwen3-235b.tok_s_per_gpu.dash-h100-pcie", dash.ReadingPaper, 123, summary.WhatIf{})
	if err != nil {
		t.Fatal(err)
	}
	if !row.SimulatedOnly || row.Status() != summary.StatusSimulated || row.Pass != nil || row.Deviation != nil || *row.Simulated != 123 {
		t.Errorf("row %+v, status %v", row, row.Status())
	}
	if s, p, n := summary.Count([]summary.Row{row}); s+p+n != 0 {
		t.Errorf("counted as judged: %d %d %d", s, p, n)
	}
}
