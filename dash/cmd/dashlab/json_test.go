package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// unmarshalResult decodes a command's JSON envelope, checking its schema version, and
// the result into v.
func unmarshalResult(data []byte, v any) error {
	var env struct {
		SchemaVersion int             `json:"schema_version"`
		Result        json.RawMessage `json:"result"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&env); err != nil {
		return err
	}
	if env.SchemaVersion != SchemaVersion {
		return fmt.Errorf("schema_version %d, want %d", env.SchemaVersion, SchemaVersion)
	}
	return json.Unmarshal(env.Result, v)
}

var snakeKey = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// badKeys lists the object keys of a decoded JSON value that are not snake_case.
func badKeys(v any, path string, out *[]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if !snakeKey.MatchString(k) {
				*out = append(*out, path+"."+k)
			}
			badKeys(e, path+"."+k, out)
		}
	case []any:
		for _, e := range x {
			badKeys(e, path+"[]", out)
		}
	}
}

// outputCases runs every command that has --format json and csv on a small
// input; tables names the --table choices of a command with several.
var outputCases = []struct {
	args   []string
	tables []string
	header map[string]string // --table choice ("" by default) -> expected CSV header
}{
	{args: []string{"run", "--model", "mixtral-8x22b", "--batch", "2", "--prompt", "128", "--output", "4"},
		header: map[string]string{
			"":        "phase,class,ops,time_ns,compute_ns,overhead_ns,stall_ns",
			"routes":  "route,requested_bytes,delivered_bytes",
			"links":   "pair,link,bytes,busy_ns,utilization",
			"hbf":     "stack,sense_busy_ns,prog_busy_ns,waves,programs,suspends,flushes,tsv_busy_ns,tsv_bytes,resensed_chunks",
			"classes": "phase,class,ops,time_ns,compute_ns,overhead_ns,stall_ns",
		}},
	{args: []string{"reproduce", "--only", "table2.", "--no-cache"}, header: map[string]string{"": "id,unit,section,paper,simulated,deviation,tolerance,pass,reading,detail"}},
	{args: []string{"models"}, header: map[string]string{"": "id,name,attention,layers,moe_layers,routed_experts,shared_experts,top_k,router,checkpoint,params_b,active_params_b,weights_gb,expert_share_pct,bytes_per_expert,kv_bytes_per_token_per_layer,kv_bytes_per_token,max_context,lookahead_eligible"}},
	{args: []string{"systems"}, header: map[string]string{"": "id,name,topology,pairs,path_gpu_hbm,path_gpu_hbf,path_hbm_hbf,hbm_capacity_bytes,hbf_capacity_bytes,gpu_facing_links,links,pair_family"}},
	{args: []string{"cost", "--r", "1,2", "--delta", "0,2", "--pairs", "2"}, header: map[string]string{
		"":          "r,delta_hbm_stacks,gain_x",
		"breakeven": "delta_hbm_stacks,breakeven_r,note",
		"scaling":   "pairs,gpu_facing_links,pair_local_links,logical_links,capacity_gb,reference_capacity_gb,expert_bandwidth_tbps,beachfront_mm,link_power_low_w,link_power_high_w,gain_r1_d0_x",
	}},
	{args: []string{"endurance", "--batch", "2", "--prompt", "128", "--output", "8"}, header: map[string]string{"": "utilization,pe_cycles,lifetime_years"}},
	{args: []string{"energy", "--models", "mixtral-8x22b", "--batches", "1", "--prompt", "128", "--output", "8"}, header: map[string]string{
		"": "model,system,batch,error,mj_per_token,link_mj_per_token,hbf_read_mj_per_token,hbf_program_mj_per_token,hbm_mj_per_token," +
			"link_hbm_mj_per_token,link_direct_mj_per_token,link_relay_mj_per_token,link_direct_write_mj_per_token,link_relay_write_mj_per_token,link_hbm_write_mj_per_token,link_writeback_mj_per_token"}},
	{args: []string{"offload", "--batches", "1", "--prompt", "128", "--output", "8"}, header: map[string]string{
		"": "batch,cores,cores_modelled,active_experts,cached_fraction,dash_tpot_ms,non_expert_ms_per_token,cpu_layer_ms,expert_copy_pinned_ms,weight_streaming_tpot_ms," +
			"weight_streaming_pageable_tpot_ms,cpu_compute_tpot_ms,hybrid_tpot_ms,hybrid_gpu_experts,hybrid_cpu_experts,weight_streaming_slowdown_vs_dash_x,cpu_compute_slowdown_vs_dash_x,hybrid_slowdown_vs_dash_x,hybrid_reduction_pct",
		"core_curve": "batch,cores,latency_ms,modelled",
		"core_fits":  "batch,serial_ms,parallel_ms,max_err_pct",
	}},
	{args: []string{"lookahead", "check", "--model", "mixtral-8x22b", "--trials", "40", "--tokens-per-draw", "40"}, header: map[string]string{
		"": "model,router,eligible,reason,hidden,attn_width,experts,top_k,tokens,draws,agree,disagree,near_ties,near_tie_flips,algebraic_flips,max_rel_discrepancy"}},
	{args: []string{"serve", "--rate", "0.5", "--requests", "12", "--warmup", "2", "--prompt", "256", "--output", "8"}, header: map[string]string{
		"": "model,system,mode,seed,rate_rps,requests,completed,rejected,ttft_p50_s,ttft_p90_s,ttft_p99_s,tpot_p50_ms,tpot_p90_ms,tpot_p99_ms,e2e_p50_s,e2e_p90_s,e2e_p99_s,queue_mean_s,offered_rps,throughput_rps,interrupted"}},
	{args: []string{"gpu", "validate"}, header: map[string]string{"": "set,kind,points,median_err_pct,p90_err_pct,lag1_corr"}},
}

// TestJSONConventions: every command's --format json is the versioned envelope with
// one schema_version, snake_case keys, and the same bytes on a second run.
func TestJSONConventions(t *testing.T) {
	for _, c := range outputCases {
		t.Run(strings.Join(c.args[:1], " "), func(t *testing.T) {
			t.Parallel()
			args := append(slices.Clone(c.args), "--format", "json")
			code, out, errs := dashlab(args...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, errs)
			}
			var v any
			if err := unmarshalResult([]byte(out), &v); err != nil {
				t.Fatalf("%v: %v", args, err)
			}
			var bad []string
			badKeys(v, "", &bad)
			if len(bad) > 0 {
				t.Errorf("%v: keys not snake_case: %v", args, bad)
			}
			if n := strings.Count(out, `"schema_version"`); n != 1 {
				t.Errorf("%v: schema_version %d times", args, n)
			}
			for _, wall := range []string{`"wall_ns"`, `"wall_s"`, `"elapsed_s"`} {
				if strings.Contains(out, wall) {
					t.Errorf("%v: %s without --perf", args, wall)
				}
			}
			if _, again, _ := dashlab(args...); again != out {
				t.Errorf("%v: two runs differ", args)
			}
		})
	}
}

// TestCSVConventions: every command's --format csv (each --table) parses with
// encoding/csv, has the expected snake_case header and at least one row, and is the
// same bytes on a second run.
func TestCSVConventions(t *testing.T) {
	for _, c := range outputCases {
		for table, header := range c.header {
			t.Run(c.args[0]+"/"+table, func(t *testing.T) {
				t.Parallel()
				args := append(slices.Clone(c.args), "--format", "csv")
				if table != "" {
					args = append(args, "--table", table)
				}
				code, out, errs := dashlab(args...)
				if code != 0 {
					t.Fatalf("%v: exit %d: %s", args, code, errs)
				}
				recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
				if err != nil || len(recs) < 2 {
					t.Fatalf("%v: %d records, %v:\n%s", args, len(recs), err, out)
				}
				if got := strings.Join(recs[0], ","); got != header {
					t.Errorf("%v: header\n%s\nwant\n%s", args, got, header)
				}
				for _, h := range recs[0] {
					if !snakeKey.MatchString(h) {
						t.Errorf("%v: column %q is not snake_case", args, h)
					}
				}
				if _, again, _ := dashlab(args...); again != out {
					t.Errorf("%v: two runs differ", args)
				}
			})
		}
	}
}

func TestPerfAddsWallTimeOnly(t *testing.T) {
	_, plain, _ := dashlab("run", "--model", "mixtral-8x22b", "--output", "4", "--format", "json")
	_, perf, _ := dashlab("run", "--model", "mixtral-8x22b", "--output", "4", "--format", "json", "--perf")
	if strings.Contains(plain, "wall") || !strings.Contains(perf, `"wall_ns"`) {
		t.Errorf("wall time: plain has it %v, --perf has it %v", strings.Contains(plain, "wall"), strings.Contains(perf, `"wall_ns"`))
	}
	look := []string{"lookahead", "check", "--model", "mixtral-8x22b", "--trials", "20", "--tokens-per-draw", "20", "--format"}
	_, perf, _ = dashlab(append(look, "json", "--perf")...)
	_, perfCSV, _ := dashlab(append(look, "csv", "--perf")...)
	if !strings.Contains(perf, `"elapsed_s"`) || !strings.Contains(strings.SplitN(perfCSV, "\n", 2)[0], ",elapsed_s") {
		t.Errorf("lookahead --perf: no elapsed_s in\n%s\n%s", perf, perfCSV)
	}
}

func TestTableFlagRefusesUnknownTable(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--model", "mixtral-8x22b", "--format", "csv", "--table", "nosuch"},
		{"cost", "--format", "csv", "--table", "nosuch"},
		{"offload", "--format", "csv", "--table", "nosuch"},
	} {
		if code, _, errs := dashlab(args...); code != 2 || !strings.Contains(errs, `--table "nosuch"`) {
			t.Errorf("%v: exit %d: %s", args, code, errs)
		}
	}
}
