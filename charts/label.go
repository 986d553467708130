package charts

import (
	"fmt"

	"github.com/dashlab/dashlab/summary"
)

// WorkloadLabel names a workload the paper's way, from the run's own values:
// "B/L_in/L_out = 1/4K/128 on DASH".
func WorkloadLabel(system string, batch, prompt, output int) string {
	return fmt.Sprintf("B/L_in/L_out = %d/%s/%s on %s", batch, summary.LengthLabel(prompt), summary.LengthLabel(output), SystemName(system))
}

// CaseLabel names a case's model (by modelName, its catalogue name; the case's model id
// when empty) and workload: "Llama-4-Maverick-17B-128E, B/L_in/L_out = 1/4K/1M on DASH".
func CaseLabel(modelName string, c summary.Case) string {
	if modelName == "" {
		modelName = c.Model
	}
	return modelName + ", " + WorkloadLabel(c.System, c.Batch, c.Prompt, c.Output)
}
