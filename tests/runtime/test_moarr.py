"""test_moarr.py - scripts/moarr.py against the C library (via moarr_tool):
the fill and the file format must agree bit for bit in both directions.
Run by test_moarr_py.sh: test_moarr.py MOARR_TOOL SCRIPTS_DIR WORK_DIR."""

import os
import subprocess
import sys

import numpy as np

tool, scripts, work = sys.argv[1:4]
sys.path.insert(0, scripts)
import moarr  # noqa: E402

CASES = [("f32", ()), ("f32", (7,)), ("f64", (3, 4)), ("i64", (2, 3, 5)),
         ("f64", (2, 0, 3)), ("f32", (37, 3)), ("i64", ()), ("bf16", (5, 7)), ("f16", (300,)),
         ("i32", (4, 9))]
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def same_bits(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def path(name):
    return os.path.join(work, name)


# The Python fill follows the formula with plain integers too.
MASK = (1 << 64) - 1
key = moarr.splitmix64(moarr.splitmix64(42) ^ 7)
for i in (0, 1, 1000):
    want = moarr.splitmix64((key + i * 0x9E3779B97F4A7C15) & MASK)
    check(int(moarr.fill_bits(1001, 42, 7)[i]) == want, f"fill_bits[{i}] by integers")
check(moarr.splitmix64(0) == 0xE220A8397B1DCDAF, "splitmix64(0)")

for n, (dtype, shape) in enumerate(CASES):
    seed, stream = 1000 + n, n % 3
    what = f"{dtype}{list(shape)} seed {seed} stream {stream}"
    # C writes, Python reads and refills.
    c_file = path(f"c{n}.moarr")
    subprocess.run([tool, "fill", c_file, dtype, str(seed), str(stream)] +
                   [str(e) for e in shape], check=True)
    check(same_bits(moarr.read(c_file), moarr.fill(shape, dtype, seed, stream)),
          "C file == Python fill: " + what)
    # Python writes, C reads and refills.
    py_file = path(f"p{n}.moarr")
    moarr.write(py_file, moarr.fill(shape, dtype, seed, stream))
    with open(c_file, "rb") as a, open(py_file, "rb") as b:
        check(a.read() == b.read(), "Python file == C file byte for byte: " + what)
    result = subprocess.run([tool, "check-fill", py_file, str(seed), str(stream)])
    check(result.returncode == 0, "C reads the Python file as its fill: " + what)

# Seeds beyond int64 and streams wrap the same way in both languages.
big = path("big.moarr")
subprocess.run([tool, "fill", big, "f64", str(2**64 - 1), str(2**63 + 5), "9"], check=True)
check(same_bits(moarr.read(big), moarr.fill((9,), "f64", 2**64 - 1, 2**63 + 5)),
      "seed and stream above 2^63")

# Round trips of arbitrary data, a big-endian input, and the C printer's view.
arrays = [np.float32(3.5).reshape(()), np.arange(12, dtype=np.int64).reshape(3, 4) - 6,
          np.linspace(-1, 1, 10).astype(">f8"), np.zeros((1, 2, 1, 2, 1, 2, 1, 2), np.float32)]
for n, a in enumerate(arrays):
    moarr.write(path(f"r{n}.moarr"), a)
    b = moarr.read(path(f"r{n}.moarr"))
    check(b.shape == a.shape and np.array_equal(a, b) and b.dtype == a.dtype.newbyteorder("="),
          f"round trip {a.dtype}{list(a.shape)}")
out = subprocess.run([tool, "print", path("r1.moarr"), "m"], capture_output=True, text=True)
check(out.stdout == "m : i64[3, 4]\n-6 -5 -4 -3\n-2 -1 0 1\n2 3 4 5\n", "C prints a Python file")

# Python rejects what C rejects.
good = open(path("r1.moarr"), "rb").read()
bad = {"magic": b"X" + good[1:], "version": good[:5] + b"\x02" + good[6:],
       "dtype": good[:8] + b"\x07" + good[9:], "truncated": good[:-1], "trailing": good + b"\0",
       "rank": good[:12] + b"\x09" + good[13:], "short": good[:10]}
for name, blob in bad.items():
    with open(path("bad.moarr"), "wb") as f:
        f.write(blob)
    try:
        moarr.read(path("bad.moarr"))
        check(False, f"Python rejects a bad file ({name})")
    except moarr.MoarrError as e:
        check(True, f"Python rejects a bad file ({name}): {e}")
    result = subprocess.run([tool, "print", path("bad.moarr"), "b"], capture_output=True)
    check(result.returncode == 2, f"C rejects a bad file ({name})")
try:
    moarr.write(path("x.moarr"), np.zeros(3, np.int16))
    check(False, "Python refuses to write int16")
except TypeError:
    check(True, "Python refuses to write int16")

print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
