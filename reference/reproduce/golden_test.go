package reproduce

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/dashlab/dashlab/internal/resultdocs"
	"github.com/dashlab/dashlab/summary"
)

// The groups that run in seconds reproduce the committed reproduction (README's numbers
// are generated from it) row for row, to the byte: a change that moves one of their
// numbers fails here until reference/reproduction.json is regenerated. The slow groups'
// rows are checked by CI, which compares the whole output with it.
func TestFastGroupsMatchTheCommittedReproduction(t *testing.T) {
	groups := []string{"capacity", "interconnect", "cost", "fig10", "fig11", "gpu", "fig9a"}
	if testing.Short() {
		groups = groups[:3]
	}
	golden, err := resultdocs.Load(filepath.Join("..", "..", resultdocs.GoldenPath))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(Options{Groups: groups})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) < 20 {
		t.Fatalf("%d rows", len(rep.Rows))
	}
	for _, r := range rep.Rows {
		g, ok := summary.RowByID(golden, r.ID)
		if !ok {
			t.Errorf("%s: not in the committed reproduction", r.ID)
			continue
		}
		got, _ := json.Marshal(r)
		want, _ := json.Marshal(g)
		if string(got) != string(want) {
			t.Errorf("%s moved (regenerate reference/reproduction.json and the README, see README's \"Numbers in this README\"):\n got %s\nwant %s", r.ID, got, want)
		}
	}
}
