package gpu

import (
	"testing"
	"time"
)

func TestStudyPrint(t *testing.T) {
	p, err := LoadProfileDir("../../reference/profiles/h200-sxm")
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	m, err := NewModel(p, H200SXM())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("fit %v bw %v floor %v", time.Since(t0), m.MemBandwidth(), m.LaunchFloor())
	for k := GEMM; k <= Route; k++ {
		t.Logf("%v roof o=%.2fus bw=%.2fTB/s p=%.1fTF fams=%d", k, m.tables[k].roof.o*1e6, m.tables[k].roof.bw/1e12, m.tables[k].roof.p/1e12, len(m.tables[k].fams))
	}
	t0 = time.Now()
	h, err := p.HeldOut()
	t.Logf("heldout %v %v", time.Since(t0), h)
	h, err = p.HeldOutByModel()
	t.Logf("heldout-model %v", h)
	t0 = time.Now()
	l, err := p.LeaveOneOut()
	t.Logf("loo %v %v", time.Since(t0), l)
}
