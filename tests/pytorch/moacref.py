"""moacref - run moac on a .moa attention program and compare its kernel with PyTorch.

Shared by tests/pytorch/verify.py (the CPU test), tests/pytorch/sdpa_gpu.py (the GPU reference) and
scripts/reproduce-paper. numpy only at import time; torch is imported by the functions that need it.

One *case* is (example, dims, target, seed). run_case() does, in a folder of its own:
  1. `moac check FILE --dims D --target T --seed S --keep DIR`: the generated kernel is built and run on
     moac's seeded inputs; DIR keeps the inputs (q.moarr, K.moarr, V.moarr, f32 as declared) and the
     kernel's outputs (out_o.moarr, f32); the printed report gives the check's own verdict and tolerance
     and the traffic model with numbers;
  2. `moac run FILE --exact --dims D --inputs DIR --outputs DIR/interp`: the reference interpreter on the
     same files, every f32 value computed in f64 (interp/o.moarr, f64);
  3. case.json: what the folder holds, so sdpa_gpu.py can read it without knowing the example.
compare_torch() then computes softmax(q @ K.T / sqrt(dk)) @ V in float64 and float32 with torch on the
same inputs and reports ‖err‖∞ of every pair.
"""

import json
import math
import os
import re
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import moarr  # noqa: E402  (scripts/moarr.py)

EPS32 = 2.0**-24  # unit roundoff of float32

# The attention programs this module knows: where they are and how their arrays are called.
#   decode  q : [dk],        K : [n, dk],        V : [n, dv]        -> o : [dv]
#   heads   Q : [B, H, dk],  K : [B, Hkv, n, dk], V : [B, Hkv, n, dv] -> O : [B, H, dv]  (Hkv divides H)
#   prefill Q : [m, dk],     K : [n, dk],        V : [n, dv]        -> O : [m, dv]   (no mask)
EXAMPLES = {
    "decode": dict(path="dsl-examples/decode.moa", kind="decode", q="q", k="K", v="V", out="o"),
    "gqa": dict(path="dsl-examples/gqa.moa", kind="heads", q="Q", k="K", v="V", out="O"),
    "mha": dict(path="dsl-examples/mha.moa", kind="heads", q="Q", k="K", v="V", out="O"),
    "prefill": dict(path="tests/pytorch/prefill.moa", kind="prefill", q="Q", k="K", v="V", out="O"),
    "kvcache": dict(path="dsl-examples/kvcache.moa", kind="kvcache", q="q", k="K", v="V", out="o"),
}


class MoacError(RuntimeError):
    """moac failed (the message has its command line and output)."""


def dims_text(dims):
    return ",".join(f"{k}={v}" for k, v in dims.items())


def case_name(example, dims, target, seed, schedule=None):
    name = f"{example}-{target}-s{seed}-" + "-".join(f"{k}{v}" for k, v in dims.items())
    return name + ("-" + re.sub(r"[^A-Za-z0-9]+", "", schedule) if schedule else "")


def _run(cmd, env=None, expect_ok=True):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    if expect_ok and p.returncode != 0:
        raise MoacError(f"exit {p.returncode}: {' '.join(cmd)}\n{p.stdout}")
    return p


# ---------------------------------------------------------------------------------------------------
# The traffic model, as `moac explain` and `moac check` print it.

_SECTION = re.compile(r"^(minimum traffic|materialised intermediates|standard traffic) \(.*?\): (.*)$")
_FORMULA_OK = re.compile(r"^[A-Za-z0-9_+*() ]+$")


def eval_formula(formula, dims):
    """The value of a traffic formula such as '(n*dk + n*dv + dk + dv) × 4 B' for these dims."""
    f = formula.strip()
    f = re.sub(r"\s*=\s*\d+ B.*$", "", f)  # check's "= 33280 B (0.03 MB)" suffix
    f = re.sub(r"\s*B$", "", f).replace("×", "*")
    if not _FORMULA_OK.match(f):
        raise ValueError(f"cannot evaluate traffic formula {formula!r}")
    names = set(re.findall(r"[A-Za-z_]\w*", f))
    missing = names - set(dims)
    if missing:
        raise ValueError(f"traffic formula {formula!r} needs dims {sorted(missing)}")
    return int(eval(f, {"__builtins__": {}}, dict(dims)))  # only digits, dims, + * ( ) reach here


def parse_traffic(text):
    """{section: {"formula": str, "value": int|None, "items": [(label, kind, formula, factor)]}}.

    kind is "read"/"write" for the minimum's items, "" otherwise; factor is 2 for the standard
    traffic's "written and read" items (they count twice in its total), else 1."""
    out, cur = {}, None
    for line in text.splitlines():
        m = _SECTION.match(line)
        if m:
            formula = m.group(2)
            v = re.search(r"=\s*(\d+) B", formula)
            cur = out[m.group(1)] = dict(formula=re.sub(r"\s*=\s*\d+ B.*$", "", formula),
                                          value=int(v.group(1)) if v else None, items=[])
            continue
        if cur is None:
            continue
        if not line.startswith("  ") or not line.strip():
            cur = None
            continue
        label, _, size = line.strip().rpartition(" : ")
        factor = 2 if size.endswith(", written and read") else 1
        size = size.replace(", written and read", "")
        kind = ""
        mk = re.match(r"^(read|write)\s+(.*)$", label)
        if mk and cur is out.get("minimum traffic"):
            kind, label = mk.group(1), mk.group(2)
        cur["items"].append((label, kind, size, factor))
    return out


def traffic_bytes(traffic, section, dims, label=None):
    """Bytes of a whole section (label None) or of one item of it, evaluated for dims."""
    sec = traffic[section]
    if label is None:
        return eval_formula(sec["formula"], dims)
    for lab, _kind, size, _factor in sec["items"]:
        if lab == label:
            return eval_formula(size, dims)
    raise KeyError(f"{section}: no item {label!r} (items: {[i[0] for i in sec['items']]})")


def explain(moac, example):
    return _run([moac, "explain", os.path.join(ROOT, EXAMPLES[example]["path"])]).stdout


# ---------------------------------------------------------------------------------------------------
# moac check --keep and moac run on the kept inputs.

# moac check's line per output (docs/cli.md, "The tolerance"): the normwise relative error, its bound and
# R, the most reduction terms on one chain that fed the output.
_ERRLINE = re.compile(r"^\s+(\S+) : .*?‖k−r‖₂/‖r‖₂ = (\S+) \(bound (\S+) = 2·λ·ε·\(√(\S+) \+")


def run_case(moac, example, dims, target, seed, workdir, schedule=None):
    """Runs check (kept) and the interpreter for one case; returns its record (also in case.json).
    schedule: moac's --schedule KEY=VALUE,... (docs/schedule.md), default none."""
    spec = EXAMPLES[example]
    name = case_name(example, dims, target, seed, schedule)
    keep = os.path.join(workdir, name)
    moa = os.path.join(ROOT, spec["path"])
    env = dict(os.environ, ACC_DEVICE_TYPE="host", OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "2"))
    # One input set, moac's default [-1, 1): the kept inputs are the ones torch is given.
    p = _run([moac, "check", moa, "--dims", dims_text(dims), f"--target={target}", "--seed", str(seed),
              "--inputs-range=-1,1", "--keep", keep] + (["--schedule", schedule] if schedule else []),
             env=env, expect_ok=False)
    if p.returncode not in (0, 1) or not os.path.exists(os.path.join(keep, f"out_{spec['out']}.moarr")):
        raise MoacError(f"moac check failed (exit {p.returncode}) for {name}:\n{p.stdout}")
    check = {}
    for line in p.stdout.splitlines():
        m = _ERRLINE.match(line)
        if m:
            check[m.group(1)] = dict(err=float(m.group(2)), tol=float(m.group(3)), terms=int(float(m.group(4))))
    if spec["out"] not in check:
        raise MoacError(f"no ‖k−r‖₂/‖r‖₂ line for output {spec['out']} in moac check's report:\n{p.stdout}")
    interp = os.path.join(keep, "interp")
    _run([moac, "run", moa, "--exact", "--dims", dims_text(dims), "--inputs", keep, "--outputs", interp])
    for x in (spec["q"], spec["k"], spec["v"]):  # run --outputs copies the inputs too: the kept ones serve
        os.remove(os.path.join(interp, f"{x}.moarr"))
    record = dict(name=name, example=example, kind=spec["kind"], dims=dims, target=target, seed=seed,
                  schedule=schedule,
                  dir=keep, q=spec["q"], k=spec["k"], v=spec["v"], out=spec["out"],
                  check_passed=p.returncode == 0, check=check[spec["out"]], check_report=p.stdout)
    with open(os.path.join(keep, "case.json"), "w") as f:
        json.dump({k: v for k, v in record.items() if k != "check_report"}, f, indent=1)
    return record


def perturb_output(record, delta):
    """Adds delta to the first element of the kept kernel output (to test that comparisons can fail)."""
    path = os.path.join(record["dir"], f"out_{record['out']}.moarr")
    a = moarr.read(path).copy()
    a.reshape(-1)[0] += a.dtype.type(delta)
    moarr.write(path, a)


def load_arrays(record_or_dir):
    """q, K, V (as stored, f32), the kernel's output (f32) and the interpreter's (f64, or None)."""
    d = record_or_dir if isinstance(record_or_dir, str) else record_or_dir["dir"]
    with open(os.path.join(d, "case.json")) as f:
        c = json.load(f)
    interp = os.path.join(d, "interp", f"{c['out']}.moarr")
    return dict(case=c,
                q=moarr.read(os.path.join(d, f"{c['q']}.moarr")),
                K=moarr.read(os.path.join(d, f"{c['k']}.moarr")),
                V=moarr.read(os.path.join(d, f"{c['v']}.moarr")),
                kernel=moarr.read(os.path.join(d, f"out_{c['out']}.moarr")),
                interp=moarr.read(interp) if os.path.exists(interp) else None)


# ---------------------------------------------------------------------------------------------------
# References.

def as_heads(kind, q, K, V):
    """Every kind as [B, H, m, d] query, [B, Hkv, n, d] keys/values (torch tensors), and a function that
    gives the result back the program's output shape."""
    if kind == "decode":   # q [dk], K [n, dk]
        return q[None, None, None, :], K[None, None], V[None, None], lambda o: o[0, 0, 0]
    if kind == "prefill":  # Q [m, dk], K [n, dk]
        return q[None, None], K[None, None], V[None, None], lambda o: o[0, 0]
    if kind == "heads":    # Q [B, H, dk], K [B, Hkv, n, dk]
        return q[:, :, None, :], K, V, lambda o: o[:, :, 0, :]
    raise ValueError(f"unknown kind {kind}")


def standard_attention(torch, kind, q, K, V):
    """The paper's standard formula softmax(q @ K.T / sqrt(dk)) @ V, written in torch, in the dtype of
    its arguments. GQA: the KV heads are expanded to the query heads with repeat_interleave (an
    independent reference: moac itself never materialises that copy)."""
    q4, K4, V4, back = as_heads(kind, q, K, V)
    hq, hkv = q4.shape[1], K4.shape[1]
    if hq != hkv:
        if hq % hkv:
            raise ValueError(f"{hq} query heads are not a multiple of {hkv} KV heads")
        K4 = K4.repeat_interleave(hq // hkv, dim=1)
        V4 = V4.repeat_interleave(hq // hkv, dim=1)
    dk = q4.shape[-1]
    scores = q4 @ K4.transpose(-2, -1) / math.sqrt(dk)
    return back(torch.softmax(scores, dim=-1) @ V4)


def linf(a, b):
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    if a.shape != b.shape:
        raise ValueError(f"shapes differ: {a.shape} vs {b.shape}")
    return float(np.max(np.abs(a - b))) if a.size else 0.0


def compare_torch(record_or_dir, reference=None):
    """‖err‖∞ of the kernel and the interpreter against torch's float64 and float32 results.

    reference(torch, kind, q, K, V) computes the attention (default: standard_attention)."""
    import torch
    reference = reference or standard_attention
    a = load_arrays(record_or_dir)
    kind = a["case"]["kind"]
    t = {dt: [torch.from_numpy(np.ascontiguousarray(a[x], dt)) for x in ("q", "K", "V")]
         for dt in (np.float64, np.float32)}
    with torch.no_grad():
        ref64 = reference(torch, kind, *t[np.float64]).numpy()
        ref32 = reference(torch, kind, *t[np.float32]).numpy()
    scale = float(np.max(np.abs(ref64))) if ref64.size else 0.0
    r = dict(max_ref=scale,
             kernel_vs_torch64=linf(a["kernel"], ref64),
             kernel_vs_torch32=linf(a["kernel"], ref32),
             torch32_vs_torch64=linf(ref32, ref64))
    if a["interp"] is not None:
        r["kernel_vs_interp"] = linf(a["kernel"], a["interp"])
        r["interp_vs_torch64"] = linf(a["interp"], ref64)
    r["rel_kernel_vs_torch64"] = r["kernel_vs_torch64"] / scale if scale else 0.0
    return r


def outputs_bit_equal(dir_a, dir_b, out):
    """(equal?, ‖err‖∞, number of differing elements) of out_OUT.moarr in two kept folders; the
    comparison is of the raw files, so it is exact."""
    fa, fb = (os.path.join(d, f"out_{out}.moarr") for d in (dir_a, dir_b))
    with open(fa, "rb") as f:
        ba = f.read()
    with open(fb, "rb") as f:
        bb = f.read()
    xa, xb = moarr.read(fa), moarr.read(fb)
    diff = int(np.count_nonzero(xa.view(f"u{xa.itemsize}") != xb.view(f"u{xb.itemsize}"))) if xa.shape == xb.shape else -1
    return ba == bb, linf(xa, xb) if xa.shape == xb.shape else float("inf"), diff


def _same_file(a, b):
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read() == fb.read()


def exactness(moac, example, dims, seed, workdir, targets=("openacc", "openmp"), schedule=None):
    """Runs the C kernel and each of targets on the same seeded inputs, all with the same schedule (the
    order of every sum is the schedule's: docs/schedule.md); returns
    {target: (bit-equal?, ‖err‖∞, differing elements)} against C, and the C case's record."""
    base = run_case(moac, example, dims, "c", seed, workdir, schedule=schedule)
    out = {}
    for t in targets:
        rec = run_case(moac, example, dims, t, seed, workdir, schedule=schedule)
        for x in (base["q"], base["k"], base["v"]):
            if not _same_file(os.path.join(base["dir"], f"{x}.moarr"), os.path.join(rec["dir"], f"{x}.moarr")):
                raise MoacError(f"{rec['name']}: input {x} differs from the C run's: not the same inputs")
        out[t] = outputs_bit_equal(base["dir"], rec["dir"], base["out"])
    return out, base
