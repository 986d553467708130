package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/dashlab/dashlab/reference"
	"gopkg.in/yaml.v3"
)

func init() {
	register(&command{name: "systems", summary: "list the named memory systems, or print one as YAML", run: runSystems})
}

func runSystems(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("systems", "systems [ID]   (ID prints that system's full spec as YAML, usable under overrides)", stderr)
	if err := parse(fs, args); err != nil {
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
	t := &table{}
	t.add("id", "name", "topology", "pairs", "paths", "HBM", "HBF", "GPU-facing links", "links")
	var families []string
	for _, id := range reference.SystemIDs() {
		f, err := reference.SystemInfo(id)
		if err != nil {
			return err
		}
		if f.PairFamily {
			families = append(families, id+"-N")
		}
		s := f.SystemSpec
		tp := s.Topology
		paths := ""
		for _, p := range []struct {
			on   bool
			name string
		}{{tp.GPUHBM, "GPU-HBM"}, {tp.GPUHBF, "GPU-HBF"}, {tp.HBMHBF, "HBM-HBF"}} {
			if p.on {
				if paths != "" {
					paths += " "
				}
				paths += p.name
			}
		}
		t.add(id, f.Name, tp.Name(), fmt.Sprint(tp.Pairs), paths, s.HBMCapacity().String(), s.HBFCapacity().String(),
			fmt.Sprint(tp.GPUFacingLinks()), fmt.Sprint(tp.Links()))
	}
	t.write(stdout)
	if len(families) > 0 {
		fmt.Fprintf(stdout, "\nAlso: %s for N stack pairs.\n", strings.Join(families, ", "))
	}
	fmt.Fprintln(stdout, "Each is a file of reference/systems; a new file there is a new system.")
	return nil
}
