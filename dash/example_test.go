package dash_test

import (
	"fmt"
	"strings"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/reference"
)

// Build an experiment with the fluent builder: a catalogue model, a named
// memory system and the paper's GPU, resolved by id through the shipped
// catalogue, and a changed HBF read latency.
func ExampleExperimentBuilder() {
	exp, err := dash.NewExperiment().
		Catalogue(reference.Catalogue).
		ModelID("qwen3-235b-a22b").
		SystemID("dash").
		GPU("h100-pcie").
		Batch(4).Prompt(1024).Output(128).
		TRead(10 * unit.Microsecond).
		Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	p := exp.Plan()
	fmt.Println(exp.Name())
	fmt.Println("t_R:", exp.System().HBF.TRead, "page wave:", exp.System().HBF.PageWave())
	fmt.Println("HBF per stack:", p.HBF.Weights, "of weights,", p.HBF.KV, "of prefill KV")
	fmt.Println("HBM per stack:", p.HBM.Weights, "of replicas")
	// Output:
	// qwen3-235b-a22b/dash/B4/1024-128
	// t_R: 10µs page wave: 8 MiB
	// HBF per stack: 235.0936 GB of weights, 376 MiB of prefill KV
	// HBM per stack: 7.3749 GB of replicas
}

// Load an experiment from its YAML form: any memory-system parameter can be
// overridden under overrides.
func ExampleDecodeExperimentFile() {
	const file = `
name: slow-flash
model: mixtral-8x22b
system: relay-only
overrides:
  hbf: {t_read: 20us, page_size: 8 KiB, sram: {regions: 2, region_size: 16 MiB, ecc_overhead_pct: 12.5}}
workload: {batch: 16, prompt: 2048, output: 256}
`
	exp, err := reference.DecodeExperiment(strings.NewReader(file), "slow-flash.yaml", ".")
	if err != nil {
		fmt.Println(err)
		return
	}
	s := exp.System()
	fmt.Println(exp.Name(), s.Topology.Name(), s.HBF.TRead, s.HBF.PageWave(), s.HBF.ArrayReadBandwidth())
	// Output:
	// slow-flash RelayOnly 20µs 16 MiB 838.8608 GB/s
}

// A model that does not fit is refused with the bytes needed and available.
func ExampleExperimentBuilder_doesNotFit() {
	_, err := reference.Experiment("llama4-maverick", "compact-dash").Build()
	fmt.Println(err)
	// Output:
	// model llama4-maverick does not fit system compact-dash: HBF needs 802.229 GB (weights 801.4237 GB + KV 768 MiB), 512 GB available (1 x 512 GB)
}
