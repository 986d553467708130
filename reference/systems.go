package reference

import (
	"embed"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"sync"

	"github.com/dashlab/dashlab/dash"
	"gopkg.in/yaml.v3"

	"github.com/dashlab/dashlab/internal/safeio"
)

//go:embed systems/*.yaml
var systemFiles embed.FS

// SystemFile is a named memory system as shipped in reference/systems: the engine's
// dash.SystemSpec plus its provenance. A file may start from another system (Base) and
// give only the fields that differ.
type SystemFile struct {
	dash.SystemSpec `yaml:",inline"`
	// Name is the paper's name for the system ("RelayOnly").
	Name string `yaml:"name"`
	// Base is the id of a system this file starts from (optional); its fields are
	// overridden by the ones this file gives.
	Base string `yaml:"base,omitempty"`
	// PairFamily says that ID-N (N >= 1) names the same system with N stack pairs.
	PairFamily bool `yaml:"pair_family,omitempty"`
	// Sources cite where the numbers come from (per-field citations are YAML comments).
	Sources []string `yaml:"sources"`
}

// systemCache holds decoded system files by id; a file is read and decoded on first use.
var systemCache sync.Map // id -> systemEntry

type systemEntry struct {
	file SystemFile
	err  error
}

// SystemIDs lists the named systems of reference/systems, in file-name order. Ids of
// the pair families (SystemFile.PairFamily) also take a pair count: "dash-4".
func SystemIDs() []string {
	entries, err := systemFiles.ReadDir("systems")
	if err != nil {
		return nil
	}
	var ids []string
	for _, e := range entries {
		ids = append(ids, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	return ids
}

// SystemInfo returns the file of a named system (without a pair count suffix).
func SystemInfo(id string) (SystemFile, error) { return systemFile(id, nil) }

// systemFile decodes systems/ID.yaml strictly over its base; seen guards against a
// cycle of bases.
func systemFile(id string, seen []string) (SystemFile, error) {
	if v, ok := systemCache.Load(id); ok {
		e := v.(systemEntry)
		return e.file, e.err
	}
	name := systemPath(id)
	data, err := systemFiles.ReadFile(name)
	if err != nil || strings.ContainsAny(id, "/\\") {
		return SystemFile{}, &UnknownError{Kind: "system", ID: id, Known: append(SystemIDs(), familyPatterns()...)}
	}
	f, ok := storedSystemFile(id, data)
	if !ok {
		f, err = decodeSystemFile(data, name, id, seen, systemFile)
	}
	if err == nil {
		err = f.Validate()
	}
	if err != nil {
		err = fmt.Errorf("%s: %w", name, err)
	}
	systemCache.Store(id, systemEntry{f, err})
	return f, err
}

// systemPath is the embedded file of a system id.
func systemPath(id string) string { return path.Join("systems", id+".yaml") }

// decodeSystemFile decodes a system file strictly, over the file it names as
// its base (found with base, given the chain of files seen so far).
func decodeSystemFile(data []byte, name, id string, seen []string, base func(id string, seen []string) (SystemFile, error)) (SystemFile, error) {
	var head struct {
		Base string `yaml:"base"`
	}
	if err := yaml.Unmarshal(data, &head); err != nil {
		return SystemFile{}, err
	}
	var f SystemFile
	if head.Base != "" {
		for _, s := range seen {
			if s == head.Base {
				return SystemFile{}, fmt.Errorf("base %q: a cycle of bases (%s)", head.Base, strings.Join(append(seen, id), " -> "))
			}
		}
		b, err := base(head.Base, append(seen, id))
		if err != nil {
			return SystemFile{}, fmt.Errorf("base %q: %w", head.Base, err)
		}
		// The derived file gives its own name, family and sources.
		f.SystemSpec = b.SystemSpec
	}
	if err := dash.DecodeStrictBytes(data, name, &f); err != nil {
		return SystemFile{}, err
	}
	if f.ID != id {
		return SystemFile{}, fmt.Errorf("id %q does not match the file name", f.ID)
	}
	return f, nil
}

// familyPatterns lists "ID-N" for every pair family (each file is decoded once).
func familyPatterns() []string {
	var out []string
	for _, id := range SystemIDs() {
		if f, err := systemFile(id, nil); err == nil && f.PairFamily {
			out = append(out, id+"-N")
		}
	}
	return out
}

// System returns the named memory system: a file of reference/systems ("dash",
// "relay-only", "direct-only", "compact-dash", ...) or a pair family's member with a
// pair count ("dash-4": DASH's parts with four stack pairs).
func System(id string) (dash.SystemSpec, error) {
	f, err := systemFile(id, nil)
	var unknown *UnknownError
	if err == nil {
		return f.SystemSpec, nil
	} else if !errors.As(err, &unknown) {
		return dash.SystemSpec{}, err
	}
	i := strings.LastIndex(id, "-")
	if i > 0 {
		if n, err := strconv.Atoi(id[i+1:]); err == nil {
			if f, ferr := systemFile(id[:i], nil); ferr == nil && f.PairFamily {
				if n < 1 || n > dash.MaxPairs {
					return dash.SystemSpec{}, fmt.Errorf("system %s: %w", safeio.Quote(id), &dash.RangeError{Field: "pair count", Value: fmt.Sprint(n), Min: "1", Max: fmt.Sprint(dash.MaxPairs)})
				}
				s := f.SystemSpec
				s.ID, s.Topology.Pairs = id, n
				return s, nil
			}
		}
	}
	return dash.SystemSpec{}, err
}

// MustSystem is System for notebooks and examples: it panics on error.
func MustSystem(id string) dash.SystemSpec {
	s, err := System(id)
	if err != nil {
		panic(err)
	}
	return s
}

// SystemChanges lists how a system differs from the paper's system of its id
// (dash.DiffSystems): a file of reference/systems, or for a pair family's
// member ("dash-4") the family's file, so that its pair count is a change.
// Either named reading of t_R (dash.Readings) is the paper's. A system whose
// id names no shipped system is one change, "system".
func SystemChanges(s dash.SystemSpec) []dash.Change {
	paper, err := systemFile(s.ID, nil)
	if err != nil {
		i := strings.LastIndex(s.ID, "-")
		if i <= 0 {
			return []dash.Change{{Field: "system", From: "the paper's", To: s.ID}}
		}
		if paper, err = systemFile(s.ID[:i], nil); err != nil || !paper.PairFamily {
			return []dash.Change{{Field: "system", From: "the paper's", To: s.ID}}
		}
	}
	ref := paper.SystemSpec
	for _, r := range dash.Readings() {
		// either named reading of t_R is the paper's (the reproduction runs both)
		if w, _ := r.ReadWaves(); s.HBF.ReadWavesInFlight == w {
			ref.HBF.ReadWavesInFlight = w
		}
	}
	return dash.DiffSystems(ref, s)
}
