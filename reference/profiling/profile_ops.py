#!/usr/bin/env python3
"""Measure MoE operator latencies on the local GPU for dashlab's timing model.

Writes gemm.csv, grouped.csv, attn.csv, misc.csv and env.json in the schema of
reference/profiles/h200-sxm (the CSV header is the contract with dashlab's Go
loader, dash/gpu.LoadProfile), measured with the same method:

  * each operator is captured in a CUDA graph of 16 back-to-back calls that
    rotate through several input sets, together at least 4x the L2 cache, so
    weights stream from HBM rather than L2;
  * graph replays are timed with CUDA events and divided by 16, so host launch
    cost is excluded (as in a serving engine that uses CUDA graphs);
  * each row reports the median, p10 and p90 of the per-call time over the
    replays (30, or fewer but at least 8 once 0.1 s of replays has run);
  * inputs are random normal BF16 values, never zeros.

Usage (see README.md):

    python3 profile_ops.py --out my-gpu
    python3 profile_ops.py --out my-gpu --kinds gemm,attn --models qwen3-235b-a22b
    python3 profile_ops.py --dry-run            # list the shapes; needs no GPU

Then: dashlab gpu validate --profile my-gpu
"""

from __future__ import annotations

import argparse
import csv
import datetime
import json
import math
import os
import shutil
import subprocess
import sys
import time

# --------------------------------------------------------------------------
# The operator set: six MoE models' shapes (as in the shipped profile).
# --------------------------------------------------------------------------

MODELS = {
    "qwen3-235b-a22b": dict(hidden=4096, attn="gqa", heads=64, kv_heads=4, head_dim=128,
                            experts=128, top_k=8, moe_inter=1536, vocab=151936),
    "mixtral-8x22b": dict(hidden=6144, attn="gqa", heads=48, kv_heads=8, head_dim=128,
                          experts=8, top_k=2, moe_inter=16384, vocab=32768),
    "grok-1": dict(hidden=6144, attn="gqa", heads=48, kv_heads=8, head_dim=128,
                   experts=8, top_k=2, moe_inter=32768, vocab=131072),
    "llama4-maverick": dict(hidden=5120, attn="gqa", heads=40, kv_heads=8, head_dim=128,
                            experts=128, top_k=1, moe_inter=8192, dense_inter=16384, vocab=202048),
    "deepseek-v3": dict(hidden=7168, attn="mla", heads=128, q_lora=1536, kv_lora=512, rope=64,
                        nope=128, v_head=128, experts=256, top_k=8, moe_inter=2048,
                        dense_inter=18432, vocab=129280),
    "deepseek-v2": dict(hidden=5120, attn="mla", heads=128, q_lora=1536, kv_lora=512, rope=64,
                        nope=128, v_head=128, experts=160, top_k=6, moe_inter=1536,
                        dense_inter=12288, vocab=102400),
}

KINDS = ("gemm", "grouped", "attn", "misc")

HEADERS = {
    "gemm": ["model", "op", "M", "K", "N", "median_us", "p10_us", "p90_us", "reps"],
    "grouped": ["model", "experts", "rows_per_expert", "hidden", "moe_inter",
                "median_us", "p10_us", "p90_us", "reps"],
    "attn": ["model", "phase", "batch", "q_len", "kv_len", "heads", "kv_heads", "head_dim",
             "median_us", "p10_us", "p90_us", "reps"],
    "misc": ["op", "M", "dim", "median_us", "p10_us", "p90_us", "reps"],
}

POW2_M = [2 ** i for i in range(15)]                    # 1 .. 16384
MID_M = [3 * 2 ** i for i in range(13)]                 # 3 .. 12288
DEFAULT_M = sorted(POW2_M + MID_M)
GROUPED_ROWS = [1, 4, 16, 64, 256, 1024]
PREFILL_L = [512, 1024, 2048, 4096, 8192, 16384, 32768]
DECODE_B = [1, 4, 16, 64]
DECODE_L = [512, 1024, 2048, 4096, 8192, 16384, 32768, 65536]
MLA_L = [512, 1024, 2048, 4096, 8192, 16384, 32768]
MAX_DECODE_TOKENS = 1 << 20                             # batch x KV length
MISC_M = [1, 16, 128, 1024, 4096, 16384]
BF16 = 2


def gemm_shapes(cfg: dict) -> list[tuple[str, int, int]]:
    """(op, K, N) of every projection of one model."""
    h = cfg["hidden"]
    ops = []
    if cfg["attn"] == "gqa":
        hd = cfg["head_dim"]
        ops.append(("qkv_proj", h, (cfg["heads"] + 2 * cfg["kv_heads"]) * hd))
        ops.append(("o_proj", cfg["heads"] * hd, h))
    else:  # DeepSeek MLA projections
        nh = cfg["heads"]
        ops += [("q_a", h, cfg["q_lora"]),
                ("q_b", cfg["q_lora"], nh * (cfg["nope"] + cfg["rope"])),
                ("kv_a", h, cfg["kv_lora"] + cfg["rope"]),
                ("kv_b", cfg["kv_lora"], nh * (cfg["nope"] + cfg["v_head"])),
                ("o_proj", nh * cfg["v_head"], h)]
    ops.append(("router", h, cfg["experts"]))
    ops.append(("expert_gate_up", h, 2 * cfg["moe_inter"]))
    ops.append(("expert_down", cfg["moe_inter"], h))
    if "dense_inter" in cfg:
        ops.append(("dense_gate_up", h, 2 * cfg["dense_inter"]))
        ops.append(("dense_down", cfg["dense_inter"], h))
    ops.append(("lm_head", h, cfg["vocab"]))
    return ops


def plan(models: list[str], kinds: list[str], m_values: list[int], max_set_bytes: float) -> dict:
    """Every row to measure, per kind, as (label columns, shape dict, set bytes)."""
    rows = {k: [] for k in kinds}
    if "gemm" in kinds:
        for name in models:
            for op, k, n in gemm_shapes(MODELS[name]):
                for m in m_values:
                    b = BF16 * (k * n + m * k + m * n)
                    if b <= max_set_bytes:
                        rows["gemm"].append(dict(model=name, op=op, M=m, K=k, N=n, bytes=b))
    if "grouped" in kinds:
        for name in models:
            cfg = MODELS[name]
            h, i = cfg["hidden"], cfg["moe_inter"]
            e = 1
            while e <= min(128, cfg["experts"]):
                for r in GROUPED_ROWS:
                    b = BF16 * e * (3 * h * i + r * (2 * h + 6 * i))
                    if b <= max_set_bytes:
                        rows["grouped"].append(dict(model=name, experts=e, rows_per_expert=r,
                                                    hidden=h, moe_inter=i, bytes=b))
                e *= 2
    if "attn" in kinds:
        seen = set()
        for name in models:
            cfg = MODELS[name]
            if cfg["attn"] == "gqa":
                key = (cfg["heads"], cfg["kv_heads"], cfg["head_dim"])
                if key in seen:
                    continue
                seen.add(key)
                hq, g, d = key
                for L in PREFILL_L:
                    b = BF16 * L * d * (2 * hq + 2 * g)
                    if b <= max_set_bytes:
                        rows["attn"].append(dict(model=name, phase="prefill", batch=1, q_len=L, kv_len=L,
                                                 heads=hq, kv_heads=g, head_dim=d, bytes=b))
                for B in DECODE_B:
                    for L in DECODE_L:
                        b = BF16 * B * (2 * L * g * d + 2 * hq * d)
                        if B * L <= MAX_DECODE_TOKENS and b <= max_set_bytes:
                            rows["attn"].append(dict(model=name, phase="decode", batch=B, q_len=1, kv_len=L,
                                                     heads=hq, kv_heads=g, head_dim=d, bytes=b))
            elif "mla" not in seen:
                seen.add("mla")
                width = cfg["kv_lora"] + cfg["rope"]  # cached latent + rope (576)
                for B in DECODE_B:
                    for L in MLA_L:
                        b = BF16 * B * (L * width + cfg["heads"] * (width + cfg["kv_lora"]))
                        if B * L <= MAX_DECODE_TOKENS and b <= max_set_bytes:
                            rows["attn"].append(dict(model="deepseek-mla", phase="decode_absorbed", batch=B,
                                                     q_len=1, kv_len=L, heads=cfg["heads"], kv_heads=1,
                                                     head_dim=width, bytes=b))
    if "misc" in kinds:
        dims = sorted({MODELS[n]["hidden"] for n in models})
        routes = sorted({(MODELS[n]["experts"], MODELS[n]["top_k"]) for n in models})
        for m in MISC_M:
            for d in dims:
                rows["misc"].append(dict(op="rmsnorm", M=m, dim=d, bytes=BF16 * (2 * m * d + d)))
            for e, k in routes:
                rows["misc"].append(dict(op=f"softmax_topk{k}_of{e}", M=m, dim=e, bytes=BF16 * m * e))
    return rows


# --------------------------------------------------------------------------
# Measurement (torch is imported only here, so --dry-run needs no GPU).
# --------------------------------------------------------------------------

class Bench:
    def __init__(self, args):
        import torch
        import torch.nn.functional as F
        self.torch, self.F = torch, F
        self.dev = torch.device(args.device)
        torch.cuda.set_device(self.dev)
        torch.manual_seed(args.seed)
        props = torch.cuda.get_device_properties(self.dev)
        self.props = props
        self.l2 = int(getattr(props, "L2_cache_size", 0) or 50 * 2 ** 20)
        self.calls = args.calls
        self.min_reps, self.max_reps = args.min_reps, args.max_reps
        self.budget = args.budget_s
        self.rotate_bytes = args.l2_factor * self.l2
        self.gqa_kw = self._gqa_supported()

    def rnd(self, *shape):
        """Random normal BF16, scaled; exact zeros replaced (never zeros)."""
        t = self.torch.randn(*shape, device=self.dev, dtype=self.torch.bfloat16).mul_(0.05)
        return t.masked_fill_(t == 0, 0.01)

    def _gqa_supported(self) -> bool:
        try:
            q = self.rnd(1, 4, 1, 64)
            k = self.rnd(1, 2, 8, 64)
            self.F.scaled_dot_product_attention(q, k, k, enable_gqa=True)
            return True
        except TypeError:
            return False

    def sdpa(self, q, k, v, causal):
        if q.shape[1] != k.shape[1]:
            if self.gqa_kw:
                return self.F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=True)
            rep = q.shape[1] // k.shape[1]
            k, v = k.repeat_interleave(rep, 1), v.repeat_interleave(rep, 1)
        return self.F.scaled_dot_product_attention(q, k, v, is_causal=causal)

    def time_graph(self, make_set, run, set_bytes):
        """Per-call median, p10, p90 (us) and replay count of run over rotating sets."""
        torch = self.torch
        nsets = max(1, min(self.calls, math.ceil(self.rotate_bytes / max(set_bytes, 1))))
        sets = [make_set() for _ in range(nsets)]
        for s in sets:  # eager warm-up: library heuristics, workspace
            run(s)
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for i in range(self.calls):
                run(sets[i % nsets])
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for i in range(self.calls):
                run(sets[i % nsets])
        for _ in range(3):
            graph.replay()
        torch.cuda.synchronize()
        per_call, spent = [], 0.0
        while len(per_call) < self.max_reps:
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            graph.replay()
            end.record()
            end.synchronize()
            ms = start.elapsed_time(end)
            per_call.append(ms * 1e3 / self.calls)
            spent += ms / 1e3
            if len(per_call) >= self.min_reps and spent >= self.budget:
                break
        del graph, sets
        torch.cuda.empty_cache()
        return summarize(per_call)

    # one op per kind ------------------------------------------------------

    def gemm(self, r):
        m, k, n = r["M"], r["K"], r["N"]
        return self.time_graph(lambda: (self.rnd(m, k), self.rnd(k, n)),
                               lambda s: self.torch.matmul(s[0], s[1]), r["bytes"])

    def grouped(self, r):
        e, rows, h, i = r["experts"], r["rows_per_expert"], r["hidden"], r["moe_inter"]
        torch, F = self.torch, self.F

        def block(s):
            x, w_gu, w_d = s
            gate, up = torch.bmm(x, w_gu).chunk(2, dim=-1)
            return torch.bmm(F.silu(gate) * up, w_d)
        return self.time_graph(lambda: (self.rnd(e, rows, h), self.rnd(e, h, 2 * i), self.rnd(e, i, h)),
                               block, r["bytes"])

    def attn(self, r):
        b, lq, lk = r["batch"], r["q_len"], r["kv_len"]
        hq, g, d = r["heads"], r["kv_heads"], r["head_dim"]
        if r["phase"] == "decode_absorbed":
            lat = d - 64  # absorbed MLA: queries over the shared latent+rope, values = latent

            def mla(s):
                q, kv = s
                return self.sdpa(q, kv, kv[..., :lat], causal=False)
            return self.time_graph(lambda: (self.rnd(b, hq, lq, d), self.rnd(b, 1, lk, d)), mla, r["bytes"])
        causal = r["phase"] == "prefill"
        return self.time_graph(lambda: (self.rnd(b, hq, lq, d), self.rnd(b, g, lk, d), self.rnd(b, g, lk, d)),
                               lambda s: self.sdpa(s[0], s[1], s[2], causal), r["bytes"])

    def misc(self, r):
        torch, F = self.torch, self.F
        m, dim = r["M"], r["dim"]
        if r["op"] == "rmsnorm":
            def norm(s):
                x, w = s
                if hasattr(F, "rms_norm"):
                    return F.rms_norm(x, (dim,), w, eps=1e-6)
                xf = x.float()
                return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6)).to(x.dtype) * w
            return self.time_graph(lambda: (self.rnd(m, dim), self.rnd(dim)), norm, r["bytes"])
        k = int(r["op"].split("topk")[1].split("_")[0])

        def route(s):
            return torch.topk(torch.softmax(s[0].float(), dim=-1), k, dim=-1)
        return self.time_graph(lambda: (self.rnd(m, dim),), route, r["bytes"])

    # env.json ceilings ------------------------------------------------------

    def ceilings(self) -> dict:
        torch = self.torch
        n = 1 << 29  # 1 GiB of BF16
        src, dst = self.rnd(n), self.torch.empty(n, device=self.dev, dtype=torch.bfloat16)
        med, _, _, _ = self.time_graph(lambda: (src, dst), lambda s: s[1].copy_(s[0]), 4 * n)
        copy_gbps = 2 * BF16 * n / (med * 1e-6) / 1e9
        del src, dst
        a, b = self.rnd(8192, 8192), self.rnd(8192, 8192)
        med, _, _, _ = self.time_graph(lambda: (a, b), lambda s: torch.matmul(s[0], s[1]), 1 << 40)
        tflops = 2 * 8192 ** 3 / (med * 1e-6) / 1e12
        x = self.rnd(1)
        tiny, _, _, _ = self.time_graph(lambda: (x,), lambda s: s[0].add_(1.0), 1 << 40)
        return {"copy_bw_GBps_read_plus_write": copy_gbps, "bf16_matmul_TFLOPs_8192": tflops,
                "tiny_kernel_us": tiny}


def summarize(xs: list[float]):
    s = sorted(xs)

    def pct(p):
        pos = p * (len(s) - 1)
        lo = math.floor(pos)
        hi = min(lo + 1, len(s) - 1)
        return s[lo] + (s[hi] - s[lo]) * (pos - lo)
    return pct(0.5), pct(0.1), pct(0.9), len(s)


def max_sm_clock_mhz(index: int):
    """The maximum SM clock from nvidia-smi, or None."""
    if not shutil.which("nvidia-smi"):
        return None
    try:
        out = subprocess.run(["nvidia-smi", "-i", str(index), "--query-gpu=clocks.max.sm",
                              "--format=csv,noheader,nounits"], capture_output=True, text=True, timeout=20)
        return float(out.stdout.strip().splitlines()[0])
    except (OSError, ValueError, IndexError, subprocess.SubprocessError):
        return None


def parse_ints(s: str) -> list[int]:
    try:
        vals = sorted({int(v) for v in s.split(",") if v.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(f"{s!r}: want comma-separated integers")
    if not vals or vals[0] < 1:
        raise argparse.ArgumentTypeError(f"{s!r}: want positive integers")
    return vals


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=None, help="output directory (default: profile-<gpu>-<date>)")
    ap.add_argument("--models", default=",".join(MODELS),
                    help="comma-separated models (default: all of " + ", ".join(MODELS) + ")")
    ap.add_argument("--kinds", default=",".join(KINDS), help="comma-separated kinds: gemm,grouped,attn,misc")
    ap.add_argument("--m-values", type=parse_ints, default=DEFAULT_M,
                    help="GEMM token counts M (default: powers of two 1..16384 and 3x powers of two)")
    ap.add_argument("--calls", type=int, default=16, help="back-to-back calls per CUDA graph (16)")
    ap.add_argument("--min-reps", type=int, default=8, help="fewest timed replays (8)")
    ap.add_argument("--max-reps", type=int, default=30, help="most timed replays (30)")
    ap.add_argument("--budget-s", type=float, default=0.1,
                    help="stop replaying a shape after this much replay time, once min-reps ran (0.1)")
    ap.add_argument("--l2-factor", type=float, default=4.0, help="rotating input sets total >= this x L2 (4)")
    ap.add_argument("--max-set-gb", type=float, default=64.0,
                    help="skip shapes whose one input set (weights, activations, KV) exceeds this (64 GB; shapes that run out of memory are skipped too)")
    ap.add_argument("--device", default="cuda:0")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dry-run", action="store_true", help="list the shapes and exit; needs no GPU")
    args = ap.parse_args(argv)

    models = [m.strip() for m in args.models.split(",") if m.strip()]
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    for m in models:
        if m not in MODELS:
            ap.error(f"unknown model {m!r} (known: {', '.join(MODELS)})")
    for k in kinds:
        if k not in KINDS:
            ap.error(f"unknown kind {k!r} (known: {', '.join(KINDS)})")
    if args.min_reps < 1 or args.max_reps < args.min_reps or args.calls < 1:
        ap.error("need 1 <= --min-reps <= --max-reps and --calls >= 1")

    rows = plan(models, kinds, args.m_values, args.max_set_gb * 1e9)
    if args.dry_run:
        try:
            for k in kinds:
                print(f"{k}: {len(rows[k])} shapes")
                for r in rows[k]:
                    print("  " + ",".join(str(r[c]) for c in HEADERS[k][:-4]))
        except BrokenPipeError:
            pass
        return 0

    bench = Bench(args)
    props = bench.props
    date = datetime.date.today().isoformat()
    out = args.out or f"profile-{''.join(c if c.isalnum() else '-' for c in props.name.lower())}-{date}"
    os.makedirs(out, exist_ok=True)
    env = {
        "gpu": props.name,
        "sms": props.multi_processor_count,
        "mem_gb": props.total_memory / 1e9,
        "torch": bench.torch.__version__,
        "cuda": bench.torch.version.cuda,
        "dtype": "bf16",
        "date": date,
        "method": (f"CUDA graph of {args.calls} back-to-back calls on rotating random input sets "
                   f"(>= {args.l2_factor:g}x L2), replays timed with CUDA events; per-call median over replays"),
        "l2_bytes": bench.l2,
    }
    clock = max_sm_clock_mhz(bench.dev.index or 0)
    if clock:
        env["max_sm_clock_mhz"] = clock
    t_all = time.time()
    env.update(bench.ceilings())
    for k in kinds:
        t0 = time.time()
        path = os.path.join(out, f"{k}.csv")
        with open(path, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(HEADERS[k])
            for i, r in enumerate(rows[k]):
                try:
                    med, p10, p90, reps = getattr(bench, k)(r)
                except bench.torch.cuda.OutOfMemoryError:
                    bench.torch.cuda.empty_cache()
                    print(f"{k}: out of memory, skipped {r}", file=sys.stderr)
                    continue
                w.writerow([r[c] for c in HEADERS[k][:-4]] + [f"{med:.3f}", f"{p10:.3f}", f"{p90:.3f}", reps])
                fh.flush()
                if i % 50 == 0:
                    print(f"{k}: {i + 1}/{len(rows[k])}", file=sys.stderr)
        env[f"prof_{k}"] = {"rows": len(rows[k]), "seconds": round(time.time() - t0, 1)}
    env["total_s"] = round(time.time() - t_all, 1)
    with open(os.path.join(out, "env.json"), "w") as fh:
        json.dump(env, fh, indent=1)
    print(f"wrote {out}: load it with  dashlab gpu validate --profile {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
