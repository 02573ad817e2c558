#!/usr/bin/env python3
"""The CUDA kernels' guarded paths, on a machine with a GPU (not part of ctest: CI has none).

usage: python3 tests/cuda/misaligned.py LIBDIR|LIBRARY

LIBDIR holds a library that bench/run-cuda built (libmoabench-*.so: decode.moa and gqa.moa for
--target=cuda; the first by name is taken), or LIBRARY is one. For each set of dims below, every input and the output are passed once 16-byte aligned and
once 4 bytes past an alignment (so the 16-byte paths' run-time tests fail and the scalar paths run), and
with extents that are not multiples of four or exceed one group a lane (so the held registers are not
used). Every output is compared with the formula in float64: max |err| / max |ref| < 1e-5. Exit 1 on any
mismatch. Then the same for the bf16 programs (decode-bf16.moa, gqa-bf16.moa), where the library has
them: bf16 inputs 1, 2 or 4 elements past an alignment (the 8-byte group loads' tests fail for 1 and 2),
within 2^-8 (the output is rounded to bf16).
"""
import ctypes
import glob
import math
import sys

import torch


def load(libdir):
    path = libdir if libdir.endswith(".so") else sorted(glob.glob(libdir + "/libmoabench-*.so"))[0]
    lib = ctypes.CDLL(path)
    i64, p = ctypes.c_int64, ctypes.c_void_p
    for fn, dims in (("moa_decode", 3), ("moa_gqa", 6), ("moa_decode_bf16", 3), ("moa_gqa_bf16", 6)):
        if not hasattr(lib, fn):
            continue
        getattr(lib, fn).argtypes = [i64] * dims + [p] * 6
        getattr(lib, fn).restype = ctypes.c_int
        getattr(lib, fn + "_workspace_bytes").argtypes = [i64] * dims
        getattr(lib, fn + "_workspace_bytes").restype = ctypes.c_size_t
    return lib


def placed(t, shift):
    """A copy of t whose data starts `shift` floats past a 256-byte boundary."""
    buf = torch.empty(t.numel() + 64, dtype=t.dtype, device="cuda")
    view = buf[shift:shift + t.numel()].view(t.shape)
    view.copy_(t)
    return view


def run_cases(lib, cases, half):
    """Every case with each set of shifts; the number of failures."""
    failures = 0
    store = torch.bfloat16 if half else torch.float32
    suffix, tolerance = ("_bf16", 2.0 ** -8) if half else ("", 1e-5)
    element_shifts = [(0, 0, 0, 0), (1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 0, 1), (1, 1, 1, 1)]
    if half:
        element_shifts += [(2, 2, 2, 2), (0, 4, 4, 0)]
    for B, hq, hkv, n, dk, dv in cases:
        torch.manual_seed(n)
        decode = B == hq == hkv == 1
        q = torch.randn(B, hq, dk, device="cuda").to(store)
        K = torch.randn(B, hkv, n, dk, device="cuda").to(store)
        V = torch.randn(B, hkv, n, dv, device="cuda").to(store)
        if half and decode:
            q = q.float()  # decode-bf16.moa's q is f32
        rep = hq // hkv
        s = torch.einsum("bhd,bhnd->bhn", q.double(), K.double().repeat_interleave(rep, 1)) / math.sqrt(dk)
        ref = torch.einsum("bhn,bhnd->bhd", torch.softmax(s, -1), V.double().repeat_interleave(rep, 1))
        dims = (n, dk, dv) if decode else (B, hq, hkv, n, dk, dv)
        name = ("moa_decode" if decode else "moa_gqa") + suffix
        fn, ws_fn = getattr(lib, name), getattr(lib, name + "_workspace_bytes")
        ws = torch.empty(ws_fn(*dims) + 64, dtype=torch.uint8, device="cuda")
        for shifts in element_shifts:
            qs, Ks, Vs = placed(q, shifts[0]), placed(K, shifts[1]), placed(V, shifts[2])
            out = placed(torch.full((B, hq, dv), float("nan"), device="cuda").to(store), shifts[3])
            status = fn(*dims, qs.data_ptr(), Ks.data_ptr(), Vs.data_ptr(), out.data_ptr(), ws.data_ptr(),
                        ctypes.c_void_p(torch.cuda.current_stream().cuda_stream))
            torch.cuda.synchronize()
            err = ((out.double() - ref).abs().max() / ref.abs().max()).item()
            ok = status == 0 and err < tolerance
            failures += not ok
            print(f"{'PASS' if ok else 'FAIL'} {name} B={B} hq={hq} hkv={hkv} n={n} dk={dk} dv={dv} "
                  f"shift(q,K,V,out)={shifts}: status {status}, error {err:.1e}")
    return failures


def main():
    lib = load(sys.argv[1])
    cases = [(1, 1, 1, 1000, 128, 128), (1, 1, 1, 999, 132, 132), (1, 1, 1, 500, 64, 64), (1, 1, 1, 300, 126, 126),
             (2, 8, 2, 777, 128, 128), (1, 4, 1, 257, 60, 68), (1, 1, 1, 5000, 8, 4),
             # packed split passes (query heads four to a warp): a last pack cut short (hq = 6, 5, 3), MQA,
             # MHA, and a row too long to hold in registers
             (1, 6, 2, 300, 64, 64), (2, 5, 5, 100, 32, 32), (1, 3, 1, 50, 128, 128), (1, 8, 1, 333, 128, 128),
             (1, 4, 4, 200, 128, 128), (1, 4, 2, 100, 132, 132)]
    failures = run_cases(lib, cases, False)
    if hasattr(lib, "moa_gqa_bf16"):
        failures += run_cases(lib, cases, True)
    print(f"misaligned: {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
