#!/usr/bin/env python3
"""moac's kept kernel outputs against torch.nn.functional.scaled_dot_product_attention (the GPU reference).

Reads folders written by `tests/pytorch/verify.py --keep-root DIR` (one per case: the seeded inputs q/Q,
K, V as .moarr, the generated kernel's output out_o/out_O.moarr, the interpreter's interp/o|O.moarr and
case.json) and recomputes every case with PyTorch's SDPA on CUDA when it is available (else on the CPU),
in float32 and float64, with enable_gqa=True when K/V have fewer heads than the query (GQA/MQA: no
repeat_interleave copy on the torch side either). It never runs moac, so it runs on a machine that only
has python3, numpy and torch >= 2.5 (the GPU machine's torch 2.11); it imports moacref.py from its own
folder and ../../scripts/moarr.py, so run it from a checkout of the repository.

usage:
  # on the build machine: make the case folders (the 'gpu' suite adds Table 6's hq = 32, n = 1024 shapes)
  /usr/bin/python3 tests/pytorch/verify.py --moac build/bin/moac --suite gpu --keep-root gpu-cases
  # on the GPU machine, from the repository root:
  python3 tests/pytorch/sdpa_gpu.py gpu-cases [--device cuda|cpu] [--json sdpa.json] [--math-fallback]

  DIR...           case folders, or folders holding case folders
  --device         default: cuda when torch.cuda.is_available(), else cpu (said in the output)
  --math-fallback  when torch has no scaled_dot_product_attention (torch < 2.0, e.g. Debian's 1.13), use
                   the standard formula instead; only for testing this script, the output says so
A case passes when ‖kernel − SDPA‖∞ ≤ 2e-7 in float32 and in float64 (the paper's bound), and
‖interpreter − SDPA float64‖∞ ≤ 4·ε64·(R + 1)·max|ref|. Exit status 0 when every case passes, else 1.
"""

import argparse
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import moacref  # noqa: E402

PAPER_BOUND = 2e-7
EPS64 = 2.0**-53


def find_cases(paths):
    found = []
    for p in paths:
        if os.path.exists(os.path.join(p, "case.json")):
            found.append(p)
        elif os.path.isdir(p):
            found += sorted(os.path.join(p, d) for d in os.listdir(p)
                            if os.path.exists(os.path.join(p, d, "case.json")))
        else:
            raise SystemExit(f"sdpa_gpu: {p}: no such folder")
    if not found:
        raise SystemExit(f"sdpa_gpu: no case folders (with case.json) in {' '.join(paths)}")
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--device", choices=("cuda", "cpu"))
    ap.add_argument("--json")
    ap.add_argument("--math-fallback", action="store_true")
    args = ap.parse_args()

    import torch
    import torch.nn.functional as F
    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    if device == "cuda" and not torch.cuda.is_available():
        raise SystemExit("sdpa_gpu: --device cuda but torch.cuda.is_available() is False")
    sdpa = getattr(F, "scaled_dot_product_attention", None)
    if sdpa is None and not args.math_fallback:
        raise SystemExit(f"sdpa_gpu: torch {torch.__version__} has no scaled_dot_product_attention "
                         "(needs torch >= 2.5 for enable_gqa); --math-fallback tests the script without it")
    torch.backends.cuda.matmul.allow_tf32 = False  # float32 must stay float32 on the tensor cores
    torch.backends.cudnn.allow_tf32 = False
    where = torch.cuda.get_device_name(0) if device == "cuda" else "cpu"
    what = "scaled_dot_product_attention" if sdpa else "standard formula (--math-fallback, NOT SDPA)"
    print(f"torch {torch.__version__} on {where}: {what}")

    def reference(torch_, kind, q, K, V):
        q4, K4, V4, back = moacref.as_heads(kind, q, K, V)
        q4, K4, V4 = (x.to(device) for x in (q4, K4, V4))
        gqa = q4.shape[1] != K4.shape[1]
        if sdpa is None:
            if gqa:
                K4 = K4.repeat_interleave(q4.shape[1] // K4.shape[1], dim=1)
                V4 = V4.repeat_interleave(q4.shape[1] // V4.shape[1], dim=1)
            o = torch.softmax(q4 @ K4.transpose(-2, -1) / math.sqrt(q4.shape[-1]), dim=-1) @ V4
        elif gqa:
            o = sdpa(q4, K4, V4, enable_gqa=True)
        else:
            o = sdpa(q4, K4, V4)
        if device == "cuda":
            torch.cuda.synchronize()
        return back(o).cpu()

    results, failed = [], 0
    print(f"{'case':58} {'kernel-sdpa64':>13} {'kernel-sdpa32':>13} {'interp-sdpa64':>13} {'sdpa32-64':>10}  verdict")
    for d in find_cases(args.dirs):
        case = json.load(open(os.path.join(d, "case.json")))
        try:
            c = moacref.compare_torch(d, reference)
        except Exception as e:  # report and go on: one bad folder should not hide the others
            print(f"{case['name']:58} FAIL: {type(e).__name__}: {e}")
            failed += 1
            results.append(dict(case=case, error=str(e)))
            continue
        why = [f"{k} = {c[k]:.3g} > {PAPER_BOUND:g}" for k in ("kernel_vs_torch64", "kernel_vs_torch32")
               if not c[k] <= PAPER_BOUND]
        tol64 = 4 * EPS64 * (case["check"]["terms"] + 1) * c["max_ref"]
        if "interp_vs_torch64" in c and not c["interp_vs_torch64"] <= tol64:
            why.append(f"interp_vs_torch64 = {c['interp_vs_torch64']:.3g} > {tol64:.3g}")
        failed += bool(why)
        print(f"{case['name']:58} {c['kernel_vs_torch64']:13.3g} {c['kernel_vs_torch32']:13.3g} "
              f"{c.get('interp_vs_torch64', float('nan')):13.3g} {c['torch32_vs_torch64']:10.3g}  "
              f"{'ok' if not why else 'FAIL'}")
        for w in why:
            print(f"    {w}")
        results.append(dict(case=case, compare=c, failures=why))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(torch=torch.__version__, device=where, reference=what, results=results), f,
                      indent=1)
    print(f"{len(results) - failed} of {len(results)} cases pass" + (f"; {failed} FAIL" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
