package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/reference"
	"gopkg.in/yaml.v3"
)

func init() {
	register(&command{name: "systems", summary: "list the named memory systems, or print one as YAML", run: runSystems})
}

// systemJSON is one row of `dashlab systems --format json` (and csv).
type systemJSON struct {
	ID               string `json:"id"`
	Name             string `json:"name"`
	Topology         string `json:"topology"`
	Pairs            int    `json:"pairs"`
	PathGPUHBM       bool   `json:"path_gpu_hbm"`
	PathGPUHBF       bool   `json:"path_gpu_hbf"`
	PathHBMHBF       bool   `json:"path_hbm_hbf"`
	HBMCapacityBytes int64  `json:"hbm_capacity_bytes"`
	HBFCapacityBytes int64  `json:"hbf_capacity_bytes"`
	GPUFacingLinks   int    `json:"gpu_facing_links"`
	Links            int    `json:"links"`
	// PairFamily says that ID-N names the same system with N stack pairs.
	PairFamily bool `json:"pair_family"`
}

func runSystems(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("systems", "systems [--format table|json|csv] | systems ID   (ID prints that system's full spec as YAML, usable under overrides)", stderr)
	format := fs.String("format", "table", "output format of the list: table, json or csv (one row per system)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	if fs.NArg() == 1 {
		s, err := reference.System(fs.Arg(0))
		if err != nil {
			return err
		}
		out, err := yaml.Marshal(s)
		if err != nil {
			return err
		}
		_, err = stdout.Write(out)
		return err
	}
	if fs.NArg() > 1 {
		return fmt.Errorf("%w: at most one system id", errUsage)
	}
	var rows []systemJSON
	for _, id := range reference.SystemIDs() {
		f, err := reference.SystemInfo(id)
		if err != nil {
			return err
		}
		s := f.SystemSpec
		tp := s.Topology
		rows = append(rows, systemJSON{ID: id, Name: f.Name, Topology: tp.Name(), Pairs: tp.Pairs,
			PathGPUHBM: tp.GPUHBM, PathGPUHBF: tp.GPUHBF, PathHBMHBF: tp.HBMHBF,
			HBMCapacityBytes: int64(s.HBMCapacity()), HBFCapacityBytes: int64(s.HBFCapacity()),
			GPUFacingLinks: tp.GPUFacingLinks(), Links: tp.Links(), PairFamily: f.PairFamily})
	}
	if ok, err := writeData(stdout, *format, rows, func() csvTable { return csvOf(rows) }); ok {
		return err
	}
	t := &table{}
	t.add("id", "name", "topology", "pairs", "paths", "HBM", "HBF", "GPU-facing links", "links")
	var families []string
	for _, r := range rows {
		if r.PairFamily {
			families = append(families, r.ID+"-N")
		}
		var paths []string
		for _, p := range []struct {
			on   bool
			name string
		}{{r.PathGPUHBM, "GPU-HBM"}, {r.PathGPUHBF, "GPU-HBF"}, {r.PathHBMHBF, "HBM-HBF"}} {
			if p.on {
				paths = append(paths, p.name)
			}
		}
		t.add(r.ID, r.Name, r.Topology, fmt.Sprint(r.Pairs), strings.Join(paths, " "), unit.Bytes(r.HBMCapacityBytes).String(),
			unit.Bytes(r.HBFCapacityBytes).String(), fmt.Sprint(r.GPUFacingLinks), fmt.Sprint(r.Links))
	}
	t.write(stdout)
	if len(families) > 0 {
		fmt.Fprintf(stdout, "\nAlso: %s for N stack pairs.\n", strings.Join(families, ", "))
	}
	fmt.Fprintln(stdout, "Each is a file of reference/systems; a new file there is a new system.")
	return nil
}
