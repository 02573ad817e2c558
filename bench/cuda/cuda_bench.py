#!/usr/bin/env python3
"""Decode attention on one NVIDIA GPU: moac's CUDA kernels beside the read-only ceiling and PyTorch SDPA,
in one process (the GPU machine's python3 with torch).

usage: python3 bench/cuda/cuda_bench.py LIBDIR [--quick] [--reps N] [--out DIR] [--dtype f32|bf16|both]

LIBDIR holds what bench/run-cuda built here: libmoabench-VARIANT.so (moac's decode.moa, gqa.moa,
decode-bf16.moa and gqa-bf16.moa for --target=cuda with one --schedule each, and bench/cuda/ceiling.cu).
For every config (dk = dv = 128) and element type (--dtype, default both):
  - f32: the inputs are torch.randn on the device, moac's decode.moa (batch 1, one head) or gqa.moa beside
    SDPA f32; bf16: K and V (and the query, which decode-bf16.moa takes in f32) are torch.randn rounded to
    bf16, moac's decode-bf16.moa or gqa-bf16.moa beside SDPA bf16 (FlashAttention where torch picks it);
  - the reference is the standard formula in float64 on the device from the same values; every output
    (moac's, SDPA's) is checked against it: max |err| / max |ref| below 1e-4 (f32), 2^-8 (bf16, whose
    output is rounded to 8 significant bits);
  - each system is timed with CUDA events around one call, median of --reps calls after two warm-up calls,
    systems interleaved call by call; before every timed call a 256 MiB buffer is written, so the 50 MB
    L2 holds none of the inputs (L2 flushed);
  - bandwidth = bytes of K and V / time (2 bytes an element in bf16); the ceiling reads the same number of
    bytes once.
Writes DIR/h200.csv and prints a Markdown table.
"""
import argparse
import ctypes
import math
import os
import statistics
import sys

import torch
import torch.nn.functional as F

CONFIGS = [  # (name, B, hq, hkv, n)
    ("B=1 h=1 n=4k", 1, 1, 1, 4096),
    ("B=1 h=1 n=64k", 1, 1, 1, 65536),
    ("B=1 h=1 n=1M", 1, 1, 1, 1 << 20),
    ("B=1 hq=32 hkv=8 n=32k", 1, 32, 8, 32768),
    ("B=8 hq=32 hkv=8 n=8k", 8, 32, 8, 8192),
    ("B=1 hq=hkv=32 n=32k", 1, 32, 32, 32768),
    ("B=8 hq=32 hkv=1 n=32k", 8, 32, 1, 32768),
    ("B=64 hq=32 hkv=8 n=4k", 64, 32, 8, 4096),
]
QUICK = [("B=1 h=1 n=4k", 1, 1, 1, 4096), ("B=2 hq=4 hkv=2 n=1000", 2, 4, 2, 1000)]
D = 128


class Library:
    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        i64, p = ctypes.c_int64, ctypes.c_void_p
        for fn, dims in (("moa_decode", 3), ("moa_gqa", 6), ("moa_decode_bf16", 3), ("moa_gqa_bf16", 6)):
            if not hasattr(self.lib, fn):  # a library built before the bf16 kernels were benchmarked
                continue
            getattr(self.lib, fn).argtypes = [i64] * dims + [p] * 6
            getattr(self.lib, fn).restype = ctypes.c_int
            getattr(self.lib, fn + "_workspace_bytes").argtypes = [i64] * dims
            getattr(self.lib, fn + "_workspace_bytes").restype = ctypes.c_size_t
        self.lib.bench_read.argtypes = [p, i64, p, p]
        self.lib.bench_read.restype = ctypes.c_int


def stream():
    return ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)


def moac_call(lib, B, hq, hkv, n, q, K, V, out, suffix=""):
    """The moac kernel for this config: decode.moa when B = hq = hkv = 1, else gqa.moa (suffix "_bf16": the
    bf16 programs)."""
    if B == hq == hkv == 1:
        dims = (n, D, D)
        fn = getattr(lib.lib, "moa_decode" + suffix)
        ws_bytes = getattr(lib.lib, "moa_decode" + suffix + "_workspace_bytes")(*dims)
    else:
        dims = (B, hq, hkv, n, D, D)
        fn = getattr(lib.lib, "moa_gqa" + suffix)
        ws_bytes = getattr(lib.lib, "moa_gqa" + suffix + "_workspace_bytes")(*dims)
    ws = torch.empty(max(ws_bytes, 64), dtype=torch.uint8, device="cuda")
    args = dims + (q.data_ptr(), K.data_ptr(), V.data_ptr(), out.data_ptr(), ws.data_ptr())

    def call():
        status = fn(*args, stream())
        if status != 0:
            raise RuntimeError(f"moac kernel returned {status}")
    call.workspace = ws  # kept alive with the closure
    return call


def reference(q, K, V, hq, hkv):
    """softmax(q Kᵀ / √dk) V in float64, GQA by repeating each KV head for its hq / hkv query heads."""
    q64, K64, V64 = q.double(), K.double(), V.double()
    rep = hq // hkv
    K64 = K64.repeat_interleave(rep, dim=1)
    V64 = V64.repeat_interleave(rep, dim=1)
    s = torch.einsum("bhd,bhnd->bhn", q64, K64) / math.sqrt(D)
    return torch.einsum("bhn,bhnd->bhd", torch.softmax(s, dim=-1), V64)


def rel_error(got, ref):
    return ((got.double() - ref).abs().max() / ref.abs().max()).item()


def timed(fns, reps, flush):
    """Median and spread (min, max) in µs of each function, interleaved, L2 flushed before each call."""
    times = {name: [] for name in fns}
    for _ in range(2):
        for fn in fns.values():
            fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(reps):
        for name, fn in fns.items():
            flush.add_(1)
            start.record()
            fn()
            end.record()
            end.synchronize()
            times[name].append(start.elapsed_time(end) * 1000.0)
    return {name: (statistics.median(t), min(t), max(t)) for name, t in times.items()}


def run_config(name, B, hq, hkv, n, dtype, libs, reps, flush, sink, rows):
    """One config in one element type: every system timed, checked and appended to rows; True on a failure."""
    half = dtype == "bf16"
    store = torch.bfloat16 if half else torch.float32
    q = torch.randn(B, hq, D, device="cuda").to(store)
    K = torch.randn(B, hkv, n, D, device="cuda").to(store)
    V = torch.randn(B, hkv, n, D, device="cuda").to(store)
    kv_bytes = (K.numel() + V.numel()) * K.element_size()
    ceiling_data = torch.empty(kv_bytes // 4, dtype=torch.float32, device="cuda").normal_()
    ref = reference(q, K, V, hq, hkv)
    decode = B == hq == hkv == 1
    q_moac = q.float() if half and decode else q  # decode-bf16.moa's q is f32 (the same values)
    suffix = "_bf16" if half else ""
    fns, outs = {}, {}
    first = next(iter(libs.values()))
    fns["ceiling"] = lambda: first.lib.bench_read(ceiling_data.data_ptr(), kv_bytes, sink.data_ptr(), stream())
    for variant, lib in libs.items():
        if not hasattr(lib.lib, ("moa_decode" if decode else "moa_gqa") + suffix):
            continue
        outs[variant] = torch.full((B, hq, D), float("nan"), device="cuda").to(store)
        fns["moac " + variant] = moac_call(lib, B, hq, hkv, n, q_moac, K, V, outs[variant], suffix)
    sdpa_name = "sdpa " + dtype
    sdpa_out = {}

    def sdpa():
        sdpa_out["o"] = F.scaled_dot_product_attention(q.unsqueeze(2), K, V, enable_gqa=hq != hkv)
    fns[sdpa_name] = sdpa
    t = timed(fns, reps, flush)
    errors = {v: rel_error(o, ref) for v, o in outs.items()}
    errors[sdpa_name] = rel_error(sdpa_out["o"].squeeze(2), ref)
    tolerance = 2.0 ** -8 if half else 1e-4
    failed = False
    for system, (med, lo, hi) in t.items():
        err = errors.get(system[len("moac "):] if system.startswith("moac ") else system)
        ok = err is None or err < tolerance
        failed |= not ok
        label = system if not half or system == sdpa_name else system + " bf16"
        rows.append(dict(config=name, system=label, us=med, lo=lo, hi=hi, gbs=kv_bytes / med / 1e3,
                         ceiling_us=t["ceiling"][0], sdpa_us=t[sdpa_name][0], err=err, ok=ok, mb=kv_bytes / 1e6))
    del q, K, V, ceiling_data
    torch.cuda.empty_cache()
    return failed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("libdir")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--out", default=".")
    ap.add_argument("--dtype", choices=("f32", "bf16", "both"), default="both")
    args = ap.parse_args()
    libs = {f[len("libmoabench-"):-3]: Library(os.path.join(args.libdir, f))
            for f in sorted(os.listdir(args.libdir)) if f.startswith("libmoabench-") and f.endswith(".so")}
    torch.manual_seed(0)
    flush = torch.zeros(64 << 20, dtype=torch.float32, device="cuda")  # 256 MiB
    sink = torch.zeros(1, device="cuda")
    rows, failed = [], False
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}", flush=True)
    dtypes = ("f32", "bf16") if args.dtype == "both" else (args.dtype,)
    for name, B, hq, hkv, n in (QUICK if args.quick else CONFIGS):
        for dtype in dtypes:
            failed |= run_config(name, B, hq, hkv, n, dtype, libs, args.reps, flush, sink, rows)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "h200.csv"), "w") as f:
        f.write("config,system,MB,median_us,min_us,max_us,GB/s,pct_ceiling,x_sdpa_same_type,rel_err\n")
        for r in rows:
            f.write(f"{r['config']},{r['system']},{r['mb']:.1f},{r['us']:.2f},{r['lo']:.2f},{r['hi']:.2f},"
                    f"{r['gbs']:.0f},{100 * r['ceiling_us'] / r['us']:.1f},{r['sdpa_us'] / r['us']:.2f},"
                    f"{'' if r['err'] is None else '%.2e' % r['err']}\n")
    print("| config | system | MB of K, V | median µs (min–max) | GB/s | % of ceiling | × SDPA (same type) | max rel. err |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        err = "" if r["err"] is None else f"{r['err']:.1e}" + ("" if r["ok"] else " FAIL")
        print(f"| {r['config']} | {r['system']} | {r['mb']:.0f} | {r['us']:.1f} ({r['lo']:.1f}–{r['hi']:.1f}) | "
              f"{r['gbs']:.0f} | {100 * r['ceiling_us'] / r['us']:.0f} % | {r['sdpa_us'] / r['us']:.2f} | {err} |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
