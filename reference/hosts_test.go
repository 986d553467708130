package reference

import (
	"strings"
	"testing"
)

// The paper's host is derived from the measured one and says so; the measured
// host's profile is the shipped measurement.
func TestHostCatalogue(t *testing.T) {
	hosts, err := Hosts()
	if err != nil || len(hosts) < 2 {
		t.Fatalf("%d hosts, %v", len(hosts), err)
	}
	paper, err := HostSpecOf(PaperHost)
	if err != nil || paper.Measured || paper.DerivedFrom != MeasuredHost || paper.Cores < Fig10CoresAtLeast || !strings.Contains(strings.ToLower(paper.Notes), "derived, not measured") {
		t.Errorf("%s: %+v, %v", PaperHost, paper, err)
	}
	if p, err := Host(PaperHost); err != nil || p.Derived == nil || p.Name != PaperHost {
		t.Errorf("%s profile: %v", PaperHost, err)
	}
	m, err := Host(MeasuredHost)
	if err != nil || m.Derived != nil {
		t.Fatalf("%s profile: %v", MeasuredHost, err)
	}
	shipped, _ := HostOffload()
	if len(m.CPU) != len(shipped.CPU) || m.CPU[0] != shipped.CPU[0] {
		t.Errorf("%s is not the shipped measurement", MeasuredHost)
	}
	if _, err := Host("epyc"); err == nil || !strings.Contains(err.Error(), PaperHost) {
		t.Errorf("unknown host: %v", err)
	}
}

// Fig10CoresAtLeast is the paper's Fig. 10(b) core cap, which its host must have.
const Fig10CoresAtLeast = 32
