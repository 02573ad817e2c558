"""torch_ops.py - the PyTorch operators of `moac compile --torch` (docs/pytorch.md), built by moac.torch.load.

Builds every dsl-examples program into one extension (one cpp_extension build, about 35 s; a second run
rebuilds nothing), checks that each operator is registered, and checks, in float64 from the same float32
inputs:
  decode   torch.ops.moac.decode(q, K, V)   = softmax(q @ K.T / sqrt(dk)) @ V
  gqa      torch.ops.moac.gqa(Q, K, V)      = the same per (batch, query head), K and V repeat_interleave'd
  kvcache  torch.ops.moac.kvcache(q, k, v, K, V, t) writes row t of K and V in place, leaves the other rows,
           and returns the attention over rows 0 … t; then five steps t = 0 … 4 from an empty cache
  decode_bf16, gqa_bf16 on torch.bfloat16 tensors: a bfloat16 result within one bf16 rounding (half an
           ulp, 2^-8 relative) plus f32 accumulation of the float64 attention of the same bf16 values
and that wrong dtypes, ranks, shapes, non-contiguous tensors, tensors not on the CPU and dims the kernel
refuses are rejected with the operator's TORCH_CHECK messages.
Exit status: 0 all pass, 1 a check fails, 77 torch cannot be imported (CTest: skipped).
"""

import argparse
import glob
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TARGET = "openmp"
DEVICE = "cpu"  # --target=cuda: "cuda"; the inputs are made on the CPU (one generator) and moved there
ROOT = os.path.dirname(os.path.dirname(HERE))
TOL = 1e-5  # inputs and outputs are O(1); the kernels' f32 error here is below 1e-6
failures = []


def check(what, ok, detail=""):
    print(f"{'ok  ' if ok else 'FAIL'} {what}{': ' + detail if detail else ''}")
    if not ok:
        failures.append(what)


def on(*tensors):
    """The tensors on the operator's device."""
    moved = tuple(t.to(DEVICE) for t in tensors)
    return moved if len(moved) > 1 else moved[0]


def attention(torch, q, K, V):
    q, K, V = q.cpu().double(), K.cpu().double(), V.cpu().double()
    return torch.softmax(q @ K.transpose(-1, -2) / math.sqrt(q.shape[-1]), dim=-1) @ V


def close(what, got, want):
    err = (got.cpu().double() - want).abs().max().item()
    check(what, err <= TOL, f"max error {err:.2e}, tolerance {TOL:g}")


def rejects(what, call, message):
    try:
        call()
    except RuntimeError as e:
        text = str(e).splitlines()[0]
        check(f"{what} is rejected", message in text, f"message: {text}")
        return
    check(f"{what} is rejected", False, "no error")


def test_decode(torch, ops):
    g = torch.Generator().manual_seed(1)
    n, dk, dv = 300, 16, 8
    q, K, V = on(*(torch.randn(*s, generator=g) for s in ((dk,), (n, dk), (n, dv))))
    close("decode n=300 dk=16 dv=8", ops.decode(q, K, V), attention(torch, q, K, V))
    rejects("decode: q float64", lambda: ops.decode(q.double(), K, V), "moac.decode: q must be Float (in : f32<dk>), not Double")
    rejects("decode: K of rank 3", lambda: ops.decode(q, K[None], V),
            "moac.decode: K must have 2 dimensions (in : f32<n dk>), not 3")
    rejects("decode: V with 301 rows", lambda: ops.decode(q, K, on(torch.randn(n + 1, dv))),
            "moac.decode: V has shape [301, 8] where <n dv> is [300, 8] for n = 300, dk = 16, dv = 8")
    rejects("decode: K transposed (a view)", lambda: ops.decode(q, K.T.contiguous().T, V),
            "moac.decode: K must be contiguous (row-major)")
    if DEVICE == "cpu":
        rejects("decode: q on the meta device", lambda: ops.decode(q.to("meta"), K, V),
                f"moac.decode: q is on meta: this operator runs the kernel compiled for target {TARGET} on the CPU")
    else:
        rejects("decode: K on the CPU", lambda: ops.decode(q, K.cpu(), V),
                "moac.decode: K is on cpu: this operator runs the kernel compiled for target cuda on one CUDA "
                "device, here cuda:0")


def test_gqa(torch, ops):
    g = torch.Generator().manual_seed(2)
    B, hq, hkv, n, dk, dv = 2, 8, 2, 37, 16, 12
    Q = on(torch.randn(B, hq, dk, generator=g))
    K, V = on(torch.randn(B, hkv, n, dk, generator=g), torch.randn(B, hkv, n, dv, generator=g))
    Kq, Vq = K.repeat_interleave(hq // hkv, dim=1), V.repeat_interleave(hq // hkv, dim=1)
    want = attention(torch, Q[:, :, None, :], Kq, Vq)[:, :, 0, :]
    close("gqa B=2 hq=8 hkv=2 n=37", ops.gqa(Q, K, V), want)
    rejects("gqa: K of another batch size", lambda: ops.gqa(Q, on(torch.randn(B + 1, hkv, n, dk)), V),
            "moac.gqa: K has shape [3, 2, 37, 16] where <B hkv n dk> is [2, 2, 37, 16] for B = 2, hq = 8")


def test_kvcache(torch, ops):
    g = torch.Generator().manual_seed(3)
    t, cap, dk, dv = 5, 9, 16, 8
    K, V = on(torch.randn(cap, dk, generator=g), torch.randn(cap, dv, generator=g))
    q, k, v = on(torch.randn(dk, generator=g), torch.randn(dk, generator=g), torch.randn(dv, generator=g))
    K0, V0 = K.clone(), V.clone()
    o = ops.kvcache(q, k, v, K, V, t)
    check("kvcache writes row t of K and V", torch.equal(K[t], k) and torch.equal(V[t], v))
    check("kvcache leaves the other rows", torch.equal(K[:t], K0[:t]) and torch.equal(K[t + 1:], K0[t + 1:])
          and torch.equal(V[:t], V0[:t]) and torch.equal(V[t + 1:], V0[t + 1:]))
    close("kvcache t=5 cap=9", o, attention(torch, q, K[:t + 1], V[:t + 1]))
    rejects("kvcache: t = cap (a full cache)", lambda: ops.kvcache(q, k, v, K, V, cap),
            "moac.kvcache: the kernel does not take t = 9, cap = 9, dk = 16, dv = 8")
    # five decode steps from an empty cache, each against causal attention over the rows so far
    K, V = on(torch.zeros(cap, dk), torch.zeros(cap, dv))
    keys, values = on(torch.randn(5, dk, generator=g), torch.randn(5, dv, generator=g))
    worst = 0.0
    for step in range(5):
        q = on(torch.randn(dk, generator=g))
        o = ops.kvcache(q, keys[step], values[step], K, V, step)
        want = attention(torch, q, keys[:step + 1], values[:step + 1])
        worst = max(worst, (o.cpu().double() - want).abs().max().item())
    check("kvcache steps t=0..4 from an empty cache", worst <= TOL, f"max error {worst:.2e}")


def close_bf16(torch, what, got, want):
    # the kernel rounds its f32 result once: half a bf16 ulp (2^-8 relative) plus the f32 arithmetic's error
    ok = got.dtype == torch.bfloat16
    err = (got.cpu().double() - want).abs()
    allowed = want.abs() * 2.0 ** -8 + 1e-5
    worst = (err / allowed).max().item()
    check(what, ok and worst <= 1, f"dtype {got.dtype}, max error / bound {worst:.3g}")


def test_bf16(torch, ops):
    g = torch.Generator().manual_seed(4)
    n, dk, dv = 300, 16, 8
    q = on(torch.randn(dk, generator=g))
    K, V = on(*(torch.randn(*s, generator=g).bfloat16() for s in ((n, dk), (n, dv))))
    close_bf16(torch, "decode-bf16 n=300 dk=16 dv=8", ops.decode_bf16(q, K, V), attention(torch, q, K, V))
    rejects("decode-bf16: K float32", lambda: ops.decode_bf16(q, K.float(), V),
            "moac.decode_bf16: K must be BFloat16 (in : bf16<n dk>), not Float")
    B, hq, hkv, n, dk, dv = 2, 8, 2, 37, 16, 12
    Q = on(torch.randn(B, hq, dk, generator=g).bfloat16())
    K, V = on(torch.randn(B, hkv, n, dk, generator=g).bfloat16(), torch.randn(B, hkv, n, dv, generator=g).bfloat16())
    Kq, Vq = K.repeat_interleave(hq // hkv, dim=1), V.repeat_interleave(hq // hkv, dim=1)
    want = attention(torch, Q[:, :, None, :], Kq, Vq)[:, :, 0, :]
    close_bf16(torch, "gqa-bf16 B=2 hq=8 hkv=2 n=37", ops.gqa_bf16(Q, K, V), want)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--moac", required=True)
    ap.add_argument("--include", default=os.path.join(ROOT, "runtime", "include"), help="the folder of moart/")
    ap.add_argument("--build-dir", required=True, help="where the extension is built (kept between runs)")
    ap.add_argument("--target", default="openmp", choices=["openmp", "c", "cuda"],
                    help="the kernels' target; cuda runs the operators on CUDA tensors (the GPU machine)")
    args = ap.parse_args()
    global DEVICE, TARGET
    TARGET = args.target
    DEVICE = "cuda" if args.target == "cuda" else "cpu"
    try:
        import torch
    except ImportError as e:
        print(f"skipped: torch cannot be imported ({e})")
        return 77
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import moac.torch

    # every example, so that each one's operator is compiled and registered (the headers cost the most)
    examples = sorted(glob.glob(os.path.join(ROOT, "dsl-examples", "*.moa")))
    if DEVICE == "cuda" and not torch.cuda.is_available():
        print("skipped: torch sees no CUDA device")
        return 77
    ops = moac.torch.load(examples, target=args.target, moac=args.moac, include_dir=args.include,
                          build_directory=args.build_dir)
    for path in examples:
        op = os.path.splitext(os.path.basename(path))[0].replace("-", "_")
        schema = str(getattr(ops, op).default._schema)
        check(f"torch.ops.moac.{op} is registered", schema.startswith(f"moac::{op}("), schema)
    test_decode(torch, ops)
    test_gqa(torch, ops)
    test_kvcache(torch, ops)
    test_bf16(torch, ops)
    print(f"{len(failures)} failed" if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
