#!/usr/bin/python3
"""Table 2's exactness claim, for several programs and dims: the generated OpenACC kernel run on the host
(ACC_DEVICE_TYPE=host, gcc -fopenacc) and the OpenMP kernel give outputs bit-identical to the generated
sequential C kernel on the same seeded inputs (‖err‖∞ = 0, compared as raw .moarr files) when all three
are given the same schedule: each case runs with the scores inline (the CPU targets' default) and stored
(OpenACC's default, docs/schedule.md). The dims include n > 256, so the split reductions run with several
chunks (moart_chunks > 1).
Negative control: the C kernel under another schedule (threads=1,splits=1: one chunk or split, so every sum runs in a
different order) must NOT be bit-equal at n = 4096, showing the comparison can see an order change.

usage: /usr/bin/python3 tests/paper/openacc_equals_c.py --moac build/bin/moac
Exit status: 0 all bit-equal, 1 otherwise, 77 numpy missing (CTest: skipped).
"""

import argparse
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "pytorch"))

SCHEDULES = ("scores=inline", "scores=stored")

CASES = [
    ("decode", dict(n=1, dk=1, dv=1), 0),
    ("decode", dict(n=1000, dk=7, dv=13), 0),
    ("decode", dict(n=4096, dk=64, dv=64), 1),  # n = 1024, 4096 with seeds 0-2: paper/reproduce
    ("decode", dict(n=70000, dk=4, dv=4), 0),  # P = 274 chunks > chunk = 256: a two-level combine (Q = 2)
    ("gqa", dict(B=2, hq=8, hkv=2, n=300, dk=5, dv=3), 0),
    ("mha", dict(B=2, h=3, n=513, dk=4, dv=5), 0),
    ("prefill", dict(n=300, dk=8, dv=8), 0),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--moac", required=True)
    args = ap.parse_args()
    try:
        import moacref
    except ImportError as e:
        print(f"SKIP: {sys.executable} cannot import numpy ({e})")
        return 77
    work = tempfile.mkdtemp(prefix="moac-exact-")
    bad = 0
    try:
        for example, dims, seed in CASES:
            for schedule in SCHEDULES:
                res, _ = moacref.exactness(args.moac, example, dims, seed, work, schedule=schedule)
                for target, (equal, err, ndiff) in res.items():
                    bad += not equal
                    print(f"{example:8} {moacref.dims_text(dims):32} seed {seed} {schedule:13}: {target:7} vs c  "
                          f"‖err‖∞ = {err:g}  differing elements {ndiff}  {'bit-equal' if equal else 'FAIL'}")
        dims = dict(n=4096, dk=64, dv=64)
        a = moacref.run_case(args.moac, "decode", dims, "c", 0, work)
        b = moacref.run_case(args.moac, "decode", dims, "c", 0, work, schedule="threads=1,splits=1")
        equal, err, ndiff = moacref.outputs_bit_equal(a["dir"], b["dir"], "o")
        bad += equal
        print(f"control: decode {moacref.dims_text(dims)} c vs c --schedule threads=1,splits=1: ‖err‖∞ = {err:g}, "
              f"differing elements {ndiff}  {'FAIL: expected a difference' if equal else 'differs, as expected'}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
