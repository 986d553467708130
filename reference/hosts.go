package reference

import (
	"embed"
	"fmt"
	"sync"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/offload"
)

//go:embed hosts/*.yaml
var hostFiles embed.FS

// The hosts of the CPU-offload comparison (§VI-C, Fig. 10): the one the shipped
// primitives were measured on and the paper's Xeon Platinum 8452Y, derived from it.
const (
	// MeasuredHost is the host of profiles/h200-host-offload (measured).
	MeasuredHost = "h200-host-vm"
	// PaperHost is the paper's host (derived, not measured); Fig. 10 is checked on it.
	PaperHost = "xeon-8452y"
)

var hostCatalogue = sync.OnceValues(func() ([]offload.HostSpec, error) {
	return readYAMLDir(hostFiles, "hosts", func(name string, data []byte) (offload.HostSpec, error) {
		var s offload.HostSpec
		if err := dash.DecodeStrictBytes(data, name, &s); err != nil {
			return s, err
		}
		if err := s.Validate(); err != nil {
			return s, fmt.Errorf("%s: %w", name, err)
		}
		return s, nil
	}, hostID)
})

func hostID(s offload.HostSpec) string { return s.ID }

// Hosts returns the host catalogue (reference/hosts), ordered by id.
func Hosts() ([]offload.HostSpec, error) { return hostCatalogue() }

// HostIDs lists the catalogue's host ids.
func HostIDs() []string {
	specs, _ := hostCatalogue()
	return idsOf(specs, hostID)
}

// HostSpecOf returns the catalogue host with the given id.
func HostSpecOf(id string) (offload.HostSpec, error) {
	specs, err := hostCatalogue()
	if err != nil {
		return offload.HostSpec{}, fmt.Errorf("host catalogue: %w", err)
	}
	for _, s := range specs {
		if s.ID == id {
			return s, nil
		}
	}
	return offload.HostSpec{}, &UnknownError{Kind: "host", ID: id, Known: HostIDs()}
}

var hostProfiles sync.Map // id -> func() (*offload.HostProfile, error)

// Host returns the expert-layer profile of a catalogue host: a measured host's
// shipped profile, or a derived host's profile derived from its measured host's
// (offload.DeriveHost; Derived says how). Shared; do not modify.
func Host(id string) (*offload.HostProfile, error) {
	f, _ := hostProfiles.LoadOrStore(id, sync.OnceValues(func() (*offload.HostProfile, error) { return loadHost(id) }))
	return f.(func() (*offload.HostProfile, error))()
}

func loadHost(id string) (*offload.HostProfile, error) {
	s, err := HostSpecOf(id)
	if err != nil {
		return nil, err
	}
	if s.Measured {
		fsys, err := Profile(s.Profile)
		if err != nil {
			return nil, fmt.Errorf("host %s: %w", id, err)
		}
		return offload.LoadHostProfile(fsys, s.ID, HostOffloadShape)
	}
	from, err := HostSpecOf(s.DerivedFrom)
	if err != nil {
		return nil, fmt.Errorf("host %s: derived_from: %w", id, err)
	}
	m, err := Host(from.ID)
	if err != nil {
		return nil, err
	}
	return offload.DeriveHost(m, from, s)
}
