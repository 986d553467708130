package main

import (
	"math"
	"strings"
	"testing"

	"github.com/dashlab/dashlab/dash/sim"
)

func TestCostJSON(t *testing.T) {
	code, out, errs := dashlab("cost", "--r", "1,2", "--delta", "0,2", "--pairs", "3", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc costJSON
	if err := unmarshalResult([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Gain) != 4 || math.Abs(doc.Gain[0].GainX-11.1667) > 1e-3 || len(doc.Scaling) != 3 || doc.Scaling[2].LogicalLinks != 9 {
		t.Errorf("doc %+v", doc)
	}
	if doc.Breakeven[0].BreakevenR == nil || math.Abs(*doc.Breakeven[0].BreakevenR-21.3333) > 1e-3 {
		t.Errorf("breakeven %+v", doc.Breakeven)
	}
	for _, bad := range [][]string{{"--r", "0"}, {"--delta", "-1"}, {"--r", "x"}, {"--pairs", "0"}} {
		if code, _, _ := dashlab(append([]string{"cost"}, bad...)...); code != 2 {
			t.Errorf("%v: exit %d", bad, code)
		}
	}
}

func TestEnduranceCommand(t *testing.T) {
	code, out, errs := dashlab("endurance", "--pe", "3000,100000", "--loads", "0.5,0.9", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc enduranceJSON
	if err := unmarshalResult([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Lifetimes) != 4 || doc.WriteRateGBps <= 0 || !strings.Contains(doc.WASource, "measured by the engine's flash management") || doc.WriteAmplification < 1 {
		t.Fatalf("doc %+v", doc)
	}
	_, out2, _ := dashlab("endurance", "--pe", "3000,100000", "--loads", "0.5,0.9", "--wa", "2", "--format", "json")
	var doc2 enduranceJSON
	unmarshalResult([]byte(out2), &doc2)
	if len(doc2.Lifetimes) != 4 || doc2.Lifetimes[0].LifetimeYears >= doc.Lifetimes[0].LifetimeYears {
		t.Errorf("A_W = 2 did not shorten the lifetime: %+v vs %+v", doc2.Lifetimes, doc.Lifetimes)
	}
	if code, _, _ := dashlab("endurance", "--wa", "0.5"); code != 1 {
		t.Errorf("A_W 0.5: exit %d", code)
	}
}

func TestEnergyCommand(t *testing.T) {
	code, out, errs := dashlab("energy", "--models", "mixtral-8x22b", "--batches", "1", "--output", "8", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc energyJSON
	if err := unmarshalResult([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Points) != 4 || doc.Params.LinkPJPerBit != 0.5 || doc.Points[0].MJPerToken <= 0 || doc.Points[0].RouteLinkMJPerToken[sim.RouteDirect] <= 0 {
		t.Fatalf("doc %+v", doc)
	}
	if code, _, _ := dashlab("energy", "--link-pj", "-1"); code != 2 {
		t.Errorf("negative link energy: exit %d", code)
	}
}
