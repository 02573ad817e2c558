#!/usr/bin/env python3
"""The CUDA kernels' guarded paths, on a machine with a GPU (not part of ctest: CI has none).

usage: python3 tests/cuda/misaligned.py LIBDIR|LIBRARY

LIBDIR holds a library that bench/run-cuda built (libmoabench-*.so: decode.moa and gqa.moa for
--target=cuda; the first by name is taken), or LIBRARY is one. For each set of dims below, every input and the output are passed once 16-byte aligned and
once 4 bytes past an alignment (so the 16-byte paths' run-time tests fail and the scalar paths run), and
with extents that are not multiples of four or exceed one group a lane (so the held registers are not
used). Every output is compared with the formula in float64: max |err| / max |ref| < 1e-5. Exit 1 on any
mismatch.
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
    for fn, dims in (("moa_decode", 3), ("moa_gqa", 6)):
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


def main():
    lib = load(sys.argv[1])
    failures = 0
    cases = [(1, 1, 1, 1000, 128, 128), (1, 1, 1, 999, 132, 132), (1, 1, 1, 500, 64, 64), (1, 1, 1, 300, 126, 126),
             (2, 8, 2, 777, 128, 128), (1, 4, 1, 257, 60, 68), (1, 1, 1, 5000, 8, 4),
             # packed split passes (query heads four to a warp): a last pack cut short (hq = 6, 5, 3), MQA,
             # MHA, and a row too long to hold in registers
             (1, 6, 2, 300, 64, 64), (2, 5, 5, 100, 32, 32), (1, 3, 1, 50, 128, 128), (1, 8, 1, 333, 128, 128),
             (1, 4, 4, 200, 128, 128), (1, 4, 2, 100, 132, 132)]
    for B, hq, hkv, n, dk, dv in cases:
        torch.manual_seed(n)
        q = torch.randn(B, hq, dk, device="cuda")
        K = torch.randn(B, hkv, n, dk, device="cuda")
        V = torch.randn(B, hkv, n, dv, device="cuda")
        rep = hq // hkv
        s = torch.einsum("bhd,bhnd->bhn", q.double(), K.double().repeat_interleave(rep, 1)) / math.sqrt(dk)
        ref = torch.einsum("bhn,bhnd->bhd", torch.softmax(s, -1), V.double().repeat_interleave(rep, 1))
        decode = B == hq == hkv == 1
        dims = (n, dk, dv) if decode else (B, hq, hkv, n, dk, dv)
        fn = lib.moa_decode if decode else lib.moa_gqa
        ws_fn = lib.moa_decode_workspace_bytes if decode else lib.moa_gqa_workspace_bytes
        ws = torch.empty(ws_fn(*dims) + 64, dtype=torch.uint8, device="cuda")
        for shifts in [(0, 0, 0, 0), (1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 0, 1), (1, 1, 1, 1)]:
            qs, Ks, Vs = placed(q, shifts[0]), placed(K, shifts[1]), placed(V, shifts[2])
            out = placed(torch.full((B, hq, dv), float("nan"), device="cuda"), shifts[3])
            status = fn(*dims, qs.data_ptr(), Ks.data_ptr(), Vs.data_ptr(), out.data_ptr(), ws.data_ptr(),
                        ctypes.c_void_p(torch.cuda.current_stream().cuda_stream))
            torch.cuda.synchronize()
            err = ((out.double() - ref).abs().max() / ref.abs().max()).item()
            ok = status == 0 and err < 1e-5
            failures += not ok
            print(f"{'PASS' if ok else 'FAIL'} B={B} hq={hq} hkv={hkv} n={n} dk={dk} dv={dv} "
                  f"shift(q,K,V,out)={shifts}: status {status}, error {err:.1e}")
    print(f"misaligned: {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
