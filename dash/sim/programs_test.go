package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/reference"
)

// programModel sets one of the NAND program models (dash.ProgramModels) on
// an experiment, with the suspend and resume latencies.
func programModel(model string, tSus, tRes unit.Duration) func(dash.ExperimentBuilder) dash.ExperimentBuilder {
	return func(b dash.ExperimentBuilder) dash.ExperimentBuilder {
		scope := dash.ProgramStack
		if model == "planes" {
			scope = dash.ProgramPlanes
		}
		return b.Set("hbf.program_scope", scope).Set("hbf.program_suspend", model == "suspend").
			Set("hbf.t_suspend", tSus).Set("hbf.t_resume", tRes)
	}
}

// programCase is a decode whose KV spills, with t_PROG set, under a program
// model: Qwen3-30B-A3B at B=64, 256/out on a DASH whose HBM stacks hold 2 GB
// each (at out = 600 the writeback starts at step 139 and moves 173 waves).
func programCase(t testing.TB, model string, tProg unit.Duration, out int, reading dash.Reading, tSus, tRes unit.Duration) dash.Experiment {
	return build(t, "qwen3-30b-a3b", "dash", 64, 256, out, func(b dash.ExperimentBuilder) dash.ExperimentBuilder {
		return b.Modify(func(s *dash.SystemSpec) { s.HBM.Capacity = 2000 * unit.MB }).TProg(tProg).Reading(reading)
	}, programModel(model, tSus, tRes))
}

// checkPrograms holds one run of a program model to the physics: its exact
// shortcuts equal the event-by-event run (slow, when run); every byte requested is
// delivered on every route (the programs, suspended or not, all complete);
// the same KV moves as under the stack model, in at least as many programs; the exposed stall is never negative; a suspend happens only under
// program suspend; the program-busy time is t_PROG per program (plus t_RES
// per resumption).
func checkPrograms(t *testing.T, label string, r, slow, zero, stack Result, model string, tProg, tRes unit.Duration) {
	t.Helper()
	if slow.E2E > 0 && !sameResult(r, slow) { // the stack model's shortcuts: the other NoJump tests
		t.Errorf("%s: the shortcuts change the result: E2E %v vs %v", label, r.E2E, slow.E2E)
	}
	for _, rt := range r.Routes {
		if rt.Requested != rt.Delivered {
			t.Errorf("%s: route %v requested %v, delivered %v", label, rt.Route, rt.Requested, rt.Delivered)
		}
	}
	var programs, suspends int64
	for _, h := range r.HBF {
		programs += h.Programs
		suspends += h.Suspends
	}
	var stackPrograms int64
	for _, h := range stack.HBF {
		stackPrograms += h.Programs
	}
	if programs < stackPrograms || r.KV != stack.KV {
		t.Errorf("%s: %d programs and KV %+v; the stack model %d and %+v (waves split by flushes only add programs)", label, programs, r.KV, stackPrograms, stack.KV)
	}
	if stall := r.E2E - zero.E2E; stall < 0 {
		t.Errorf("%s: exposed stall %v: E2E %v below the run with programs that take no time (%v)", label, stall, r.E2E, zero.E2E)
	}
	if (suspends > 0) && model != "suspend" {
		t.Errorf("%s: %d suspensions without program suspend", label, suspends)
	}
	want := unit.Duration(programs)*tProg + unit.Duration(suspends)*tRes
	if r.Flash.ProgramBusy != want {
		t.Errorf("%s: program busy %v, want %v (%d programs, %d resumptions)", label, r.Flash.ProgramBusy, want, programs, suspends)
	}
}

// readTime is the time the decode's operators took, the GPU waiting for
// their data included, the wait at a pass's end for its writes left out:
// what reads decide.
func readTime(r Result) unit.Duration {
	var t unit.Duration
	for _, c := range r.Decode.Classes {
		t += c.Time
	}
	return t
}

// The three program models on a decode whose KV writeback programs collide
// with its reads: each holds to the physics (checkPrograms), a suspended
// program completes, and suspend is never slower than blocking for reads,
// nor planes (the written planes only) slower than the whole stack.
func TestProgramModels(t *testing.T) {
	const tSus, tRes = 15 * unit.Microsecond, 5 * unit.Microsecond
	for _, c := range []struct {
		tProg   unit.Duration
		reading dash.Reading
	}{{5 * unit.Millisecond, dash.ReadingPaper}, {5 * unit.Millisecond, dash.ReadingPhysical}, {500 * unit.Microsecond, dash.ReadingSerial}} {
		tProg, reading := c.tProg, c.reading
		{
			res := map[string]Result{}
			for _, model := range dash.ProgramModels() {
				exp := programCase(t, model, tProg, 600, reading, tSus, tRes)
				res[model] = run(t, exp, Options{})
				var slow Result
				if model != "stack" {
					slow = run(t, exp, Options{NoJump: true})
				}
				zero := run(t, programCase(t, model, 1, 600, reading, tSus, tRes), Options{})
				checkPrograms(t, fmt.Sprintf("%s, t_PROG %v, %v reading", model, tProg, reading), res[model], slow, zero, res["stack"], model, tProg, tRes)
			}
			if res["stack"].KV.WritebackWaves == 0 {
				t.Fatal("no writeback")
			}
			var suspends int64
			for _, h := range res["suspend"].HBF {
				suspends += h.Suspends
			}
			if suspends == 0 {
				t.Errorf("t_PROG %v, %v reading: reads never suspended a program", tProg, reading)
			}
			if s, b := readTime(res["suspend"]), readTime(res["stack"]); s > b {
				t.Errorf("t_PROG %v, %v reading: the decode's operators take %v under suspend, %v blocking", tProg, reading, s, b)
			}
			if p, b := readTime(res["planes"]), readTime(res["stack"]); p > b {
				t.Errorf("t_PROG %v, %v reading: the decode's operators take %v under planes, %v blocking", tProg, reading, p, b)
			}
		}
	}
}

// Program models on random what-ifs: a seeded draw of batch, decode length,
// t_PROG, the suspend and resume latencies, the reading of t_R and the
// model, each run held to checkPrograms, with suspend never slower than
// blocking for reads.
func TestProgramModelsRandom(t *testing.T) {
	n := 3
	if testing.Short() {
		n = 1
	}
	readings := dash.Readings()
	for seed := range uint64(n) {
		r := rand.New(rand.NewPCG(seed, 24))
		out := 600 + r.IntN(100)
		tProg := unit.Duration(uniformLog(r, 50e3, 10e6))
		tSus := unit.Duration(r.IntN(40)) * unit.Microsecond
		tRes := unit.Duration(r.IntN(20)) * unit.Microsecond
		reading := readings[r.IntN(len(readings))]
		res := map[string]Result{}
		for _, model := range dash.ProgramModels() {
			exp := programCase(t, model, tProg, out, reading, tSus, tRes)
			res[model] = run(t, exp, Options{})
			var slow Result
			if model == "suspend" {
				slow = run(t, exp, Options{NoJump: true})
			}
			zero := run(t, programCase(t, model, 1, out, reading, tSus, tRes), Options{})
			label := fmt.Sprintf("seed %d: %s 256/%d t_PROG %v t_SUS %v t_RES %v %v", seed, model, out, tProg, tSus, tRes, reading)
			checkPrograms(t, label, res[model], slow, zero, res["stack"], model, tProg, tRes)
		}
		if s, b := readTime(res["suspend"]), readTime(res["stack"]); s > b {
			t.Errorf("seed %d (t_PROG %v, t_SUS %v, %v): operators take %v under suspend, %v blocking", seed, tProg, tSus, reading, s, b)
		}
	}
}

// Program suspend needs the stack scope.
func TestProgramSuspendNeedsStackScope(t *testing.T) {
	b := programModel("planes", 0, 0)(reference.Experiment("qwen3-30b-a3b", "dash")).Set("hbf.program_suspend", true)
	if _, err := b.Build(); err == nil {
		t.Fatal("planes with suspend built")
	}
}

// uniformLog draws from [lo, hi] uniformly in log.
func uniformLog(r *rand.Rand, lo, hi float64) float64 {
	return math.Exp(math.Log(lo) + r.Float64()*(math.Log(hi)-math.Log(lo)))
}
