#!/usr/bin/env python3
"""Plots a benchmark's CSV (bench/run, bench/cuda/cuda_bench.py: config,system,...,GB/s,...) as bandwidth
against n at batch 1 with one head, one line per system, log-scaled n. Needs matplotlib (Debian's
python3-matplotlib, run with /usr/bin/python3).

usage: plot.py RESULTS.csv OUT.png [TITLE]
"""
import csv
import re
import sys


def n_of(config):
    """n of a batch-1, one-head config ("decode n=4096 dk=dv=128", "B=1 h=1 n=1M"), else None."""
    if not (config.startswith("decode") or "B=1 h=1 " in config):
        return None
    m = re.search(r"n=(\d+)([kM]?)", config)
    return int(m.group(1)) * {"": 1, "k": 1024, "M": 1 << 20}[m.group(2)] if m else None


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot.py: no matplotlib (apt-get install python3-matplotlib): no plot", file=sys.stderr)
        return 1
    lines = {}
    with open(sys.argv[1]) as f:
        for row in csv.DictReader(f):
            n = n_of(row["config"])
            if n is not None:
                lines.setdefault(row["system"], []).append((n, float(row["GB/s"])))
    if not lines:
        print("plot.py: no batch-1 one-head rows in " + sys.argv[1], file=sys.stderr)
        return 1
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for system, points in sorted(lines.items()):
        points.sort()
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=system)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("n (rows of K and V), dk = dv = 128")
    ax.set_ylabel("GB/s (bytes of K and V / time)")
    ax.set_title(sys.argv[3] if len(sys.argv) > 3 else "decode attention, batch 1")
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=100, metadata={"Software": None})
    print("wrote " + sys.argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main())
