#!/usr/bin/python3
"""External verification of moac's generated kernels against PyTorch (CPU).

For every case (a .moa attention program, dims, target, seed) this runs `moac check --keep` (the kernel is
generated, built with cc and run on moac's seeded inputs), `moac run --inputs` (the reference interpreter
on the same files), then computes the paper's standard formula softmax(q @ K.T / sqrt(dk)) @ V with torch
in float64 and float32 on the same inputs (GQA: K and V heads expanded with repeat_interleave) and prints
‖err‖∞ of every pair. A case passes when
  - moac check itself passed (kernel within its tolerance of the interpreter),
  - ‖kernel − torch float64‖∞ and ‖kernel − torch float32‖∞ are at most 2e-7, the paper's bound
    (Tables 1, 5 and 7: "float32 round-off only, ≤ 2×10⁻⁷"; inputs are uniform in [−1, 1)),
  - ‖interpreter − torch float64‖∞ ≤ 4·ε64·(R + 1)·max|ref|, R the most reduction terms on one chain feeding the output (moac
    check's formula with float64's ε): the interpreter and torch agree to double precision.

usage: /usr/bin/python3 tests/pytorch/verify.py --moac build/bin/moac [--suite ci|gpu] [--keep-root DIR]
       [--only SUBSTRING] [--json FILE] [--perturb DELTA [--expect-failure]]
  --keep-root DIR  keep every case's folder (inputs, kernel and interpreter outputs, case.json) under DIR:
                   the input of tests/pytorch/sdpa_gpu.py on the GPU machine
Exit status: 0 all cases pass, 1 a case fails or moac fails, 77 torch cannot be imported (CTest: skipped).
"""

import argparse
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

PAPER_BOUND = 2e-7
EPS64 = 2.0**-53

DECODE = [dict(n=n, dk=64, dv=64) for n in (4, 64, 256, 1024, 4096)]              # Table 1
GQA = [dict(B=1, hq=8, hkv=h, n=64, dk=32, dv=32) for h in (8, 4, 2, 1)]           # Table 5
MHA = [dict(B=1, h=8, n=256, dk=64, dv=64),    # rank 3: one sequence, 8 heads
       dict(B=2, h=4, n=64, dk=32, dv=32),     # rank 4: a batch of 2
       dict(B=3, h=2, n=37, dk=5, dv=3)]       # odd extents
SUITES = {
    "ci": [("decode", d) for d in DECODE] + [("gqa", d) for d in GQA] + [("mha", d) for d in MHA]
          + [("prefill", dict(n=64, dk=16, dv=16))],
}
# What the GPU run should see: the same cases plus Table 6's shape (hq = 32, n = 1024, dk = dv = 64).
SUITES["gpu"] = SUITES["ci"] + [("gqa", dict(B=1, hq=32, hkv=h, n=1024, dk=64, dv=64)) for h in (32, 8, 4, 1)]


moacref = None  # imported by main() once torch is known to be there (it needs numpy)


def judge(rec, cmp):
    """The list of reasons the case fails (empty: it passes)."""
    why = []
    if not rec["check_passed"]:
        why.append(f"moac check failed: ‖k−r‖₂/‖r‖₂ {rec['check']['err']:.3g} > {rec['check']['tol']:.3g} "
                   "(or an element beyond its bound)")
    for key in ("kernel_vs_torch64", "kernel_vs_torch32"):
        if not cmp[key] <= PAPER_BOUND:
            why.append(f"{key} = {cmp[key]:.3g} > {PAPER_BOUND:g}")
    tol64 = 4 * EPS64 * (rec["check"]["terms"] + 1) * cmp["max_ref"]
    if not cmp["interp_vs_torch64"] <= tol64:
        why.append(f"interp_vs_torch64 = {cmp['interp_vs_torch64']:.3g} > {tol64:.3g}")
    return why


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--moac", required=True, help="the moac driver (build/bin/moac)")
    ap.add_argument("--suite", default="ci", choices=sorted(SUITES))
    ap.add_argument("--target", default="c", choices=("c", "openmp", "openacc"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", default="", help="run only cases whose name contains this")
    ap.add_argument("--keep-root", help="keep the case folders here (for sdpa_gpu.py)")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--perturb", type=float, default=0.0,
                    help="add this to the first element of every kernel output before comparing "
                         "(a self-test: with 1e-6 every case must fail)")
    ap.add_argument("--expect-failure", action="store_true",
                    help="invert the verdict: exit 0 only when every case fails (for the self-test)")
    args = ap.parse_args()
    try:
        import torch
    except ImportError as e:
        print(f"SKIP: {sys.executable} cannot import torch ({e}); install it: apt-get install python3-torch")
        return 77
    global moacref
    import moacref
    if not os.access(args.moac, os.X_OK):
        print(f"verify: {args.moac} is not an executable moac driver (build first)", file=sys.stderr)
        return 1

    work = args.keep_root or tempfile.mkdtemp(prefix="moac-pytorch-")
    os.makedirs(work, exist_ok=True)
    print(f"torch {torch.__version__}; reference: softmax(q @ K.T / sqrt(dk)) @ V, float64 and float32")
    print(f"{'case':58} {'kernel-interp':>13} {'kernel-t64':>11} {'kernel-t32':>11} {'interp-t64':>11}  verdict")
    results, failed = [], 0
    try:
        for example, dims in SUITES[args.suite]:
            name = moacref.case_name(example, dims, args.target, args.seed)
            if args.only not in name:
                continue
            try:
                rec = moacref.run_case(args.moac, example, dims, args.target, args.seed, work)
                if args.perturb:
                    moacref.perturb_output(rec, args.perturb)
                cmp = moacref.compare_torch(rec)
                why = judge(rec, cmp)
            except (moacref.MoacError, OSError, ValueError) as e:
                rec, cmp, why = dict(name=name), {}, [str(e)]
            failed += bool(why)
            if cmp:
                print(f"{name:58} {cmp['kernel_vs_interp']:13.3g} {cmp['kernel_vs_torch64']:11.3g} "
                      f"{cmp['kernel_vs_torch32']:11.3g} {cmp['interp_vs_torch64']:11.3g}  "
                      f"{'ok' if not why else 'FAIL'}")
            else:
                print(f"{name:58} FAIL")
            for w in why:
                print(f"    {w}")
            results.append(dict(case={k: v for k, v in rec.items() if k != "check_report"},
                                compare=cmp, failures=why))
    finally:
        if not args.keep_root:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    if not results:
        print("verify: no case matched", file=sys.stderr)
        return 1
    print(f"{len(results) - failed} of {len(results)} cases pass" + (f"; {failed} FAIL" if failed else ""))
    if args.expect_failure:
        print("expected every case to fail: " + ("they do" if failed == len(results) else "SOME PASS"))
        return 0 if failed == len(results) else 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
