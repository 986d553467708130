package reproduce

import (
	"slices"
	"strings"
	"testing"
)

func TestGroupsRunOnlyTheirOwnIDs(t *testing.T) {
	var seen []string
	rep, err := Run(Options{Groups: []string{"capacity", "interconnect"}, Progress: func(g string, done, total int) {
		if total != 2 {
			t.Errorf("progress total %d, want 2 groups", total)
		}
		seen = append(seen, g)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"capacity", "interconnect", ""}; !slices.Equal(seen, want) {
		t.Errorf("progress saw %q, want %q", seen, want)
	}
	if len(rep.Rows) == 0 {
		t.Fatal("no rows")
	}
	for _, r := range rep.Rows {
		if g := owner(r.ID); g != "capacity" && g != "interconnect" {
			t.Errorf("row %s belongs to group %q", r.ID, g)
		}
		if r.Simulated == nil {
			t.Errorf("row %s of a group that ran is not simulated", r.ID)
		}
	}
	if len(rep.Elapsed) != 2 {
		t.Errorf("elapsed %v, want the two groups", rep.Elapsed)
	}
}

func TestOwnerIsTheLongestPrefix(t *testing.T) {
	for id, want := range map[string]string{
		"fig9b.llama4_4k_1m.throughput": "fig9b-llama4-1m",
		"fig9b.throughput_speedup":      "fig9b",
		"intro.b4.x":                    "fig9a",
		"table2.x":                      "capacity",
	} {
		if got := owner(id); got != want {
			t.Errorf("owner(%s) = %q, want %q", id, got, want)
		}
	}
}

func TestUnknownGroup(t *testing.T) {
	_, err := Run(Options{Groups: []string{"fig9c"}})
	if err == nil || !strings.Contains(err.Error(), `"fig9c"`) || !strings.Contains(err.Error(), "fig9a") {
		t.Errorf("error %v, want one naming the group and the known ones", err)
	}
}

func TestGroupsRegisteredOnce(t *testing.T) {
	seen := map[string]bool{}
	for _, g := range groups {
		if seen[g.name] {
			t.Errorf("group %q registered twice: it would run twice", g.name)
		}
		seen[g.name] = true
	}
}
