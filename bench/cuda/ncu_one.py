#!/usr/bin/env python3
# One call of a moac CUDA kernel (a library bench/run-cuda built), for ncu: bench/cuda/ncu.sh runs it.
# usage: python3 bench/cuda/ncu_one.py LIBRARY B hq hkv n f32|bf16 (dk = dv = 128)
import sys, torch
sys.path.insert(0, "bench/cuda")
import cuda_bench as cb
lib = cb.Library(sys.argv[1]); B, hq, hkv, n = map(int, sys.argv[2:6]); half = sys.argv[6] == "bf16"
store = torch.bfloat16 if half else torch.float32
q = torch.randn(B, hq, cb.D, device="cuda").to(store)
K = torch.randn(B, hkv, n, cb.D, device="cuda").to(store); V = torch.randn(B, hkv, n, cb.D, device="cuda").to(store)
decode = B == hq == hkv == 1
out = torch.empty(B, hq, cb.D, device="cuda").to(store)
call = cb.moac_call(lib, B, hq, hkv, n, q.float() if half and decode else q, K, V, out, "_bf16" if half else "")
call(); torch.cuda.synchronize()
