package gpu

import "testing"

func TestStudyLOO(t *testing.T) {
	p, _ := LoadProfileDir("../../reference/profiles/h200-sxm")
	l, _ := p.LeaveOneOut()
	t.Log(l)
}
