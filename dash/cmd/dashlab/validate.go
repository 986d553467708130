package main

import (
	"fmt"
	"io"

	"github.com/dashlab/dashlab/reference"
)

func init() {
	register(&command{name: "validate", summary: "check an experiment YAML file", run: runValidate})
}

func runValidate(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("validate", "validate FILE", stderr)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: validate needs exactly one experiment file", errUsage)
	}
	exp, err := reference.LoadExperiment(fs.Arg(0))
	if err != nil {
		return err
	}
	p := exp.Plan()
	fmt.Fprintf(stdout, "%s: ok: %s\n", fs.Arg(0), exp.Name())
	fmt.Fprintf(stdout, "  HBF per stack: weights %v + KV %v of %v; HBM per stack: replicas %v + KV %v + workspace %v of %v\n",
		p.HBF.Weights, p.HBF.KV, p.HBF.Capacity, p.HBM.Weights, p.HBM.KV, p.HBM.Workspace, p.HBM.Capacity)
	for _, n := range p.Notes {
		fmt.Fprintln(stdout, "  note:", n)
	}
	return nil
}
