"""test_npy.py - libmoart's .npy files against numpy (via moarr_tool): np.load reads what the C library
writes, bit for bit and with numpy's own header; the C library reads what np.save writes (format 1.0 and
2.0); and every file it cannot hold as a moart_array (big-endian, Fortran order, other dtypes) or that is
malformed is refused with a message naming the problem.
Run by test_moarr_py.sh: test_npy.py MOARR_TOOL SCRIPTS_DIR WORK_DIR."""

import io
import os
import subprocess
import sys

import numpy as np

tool, scripts, work = sys.argv[1:4]
sys.path.insert(0, scripts)
import moarr  # noqa: E402  (its fill is the C fill, bit for bit: test_moarr.py)

CASES = [("f32", ()), ("f32", (7,)), ("f64", (3, 4)), ("i64", (2, 3, 5)),
         ("f64", (2, 0, 3)), ("f32", (37, 3)), ("i64", ()), ("f64", (1, 2, 1, 2, 1, 2, 1, 2)),
         ("i32", (3, 5))]
NUMPY_DTYPE = {"f32": "<f4", "f64": "<f8", "i64": "<i8", "i32": "<i4"}
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def path(name):
    return os.path.join(work, name)


def npy_bytes(array, version=(1, 0)):
    out = io.BytesIO()
    np.lib.format.write_array(out, array, version=version)
    return out.getvalue()


for n, (dtype, shape) in enumerate(CASES):
    seed, stream = 2000 + n, n % 3
    what = f"{dtype}{list(shape)}"
    want = moarr.fill(shape, dtype, seed, stream)
    # C writes, numpy reads: the same elements, dtype and shape, and the bytes np.save writes.
    c_file = path(f"c{n}.npy")
    subprocess.run([tool, "fill", c_file, dtype, str(seed), str(stream)] + [str(e) for e in shape], check=True)
    got = np.load(c_file)
    check(got.dtype == np.dtype(NUMPY_DTYPE[dtype]) and got.shape == shape and got.tobytes() == want.tobytes(),
          "np.load of the C file == the fill: " + what)
    with open(c_file, "rb") as f:
        check(f.read() == npy_bytes(want), "the C file == np.save's bytes: " + what)
    # numpy writes (1.0 and 2.0), C reads.
    for version in ((1, 0), (2, 0)):
        py_file = path(f"p{n}-{version[0]}.npy")
        with open(py_file, "wb") as f:
            f.write(npy_bytes(want, version))
        result = subprocess.run([tool, "check-fill", py_file, str(seed), str(stream)])
        check(result.returncode == 0, f"C reads np.save's file (format {version[0]}.0) as the fill: " + what)

# A 1-D or 0-d array in Fortran order is the same bytes: accepted.
one_d = path("fortran-1d.npy")
with open(one_d, "wb") as f:
    f.write(npy_bytes(np.asfortranarray(np.arange(5, dtype="<f8"))).replace(b"'fortran_order': False",
                                                                             b"'fortran_order': True "))
result = subprocess.run([tool, "print", one_d, "x"], capture_output=True, text=True)
check(result.returncode == 0 and result.stdout == "x : f64[5]\n0 1 2 3 4\n", "a 1-D Fortran-order file reads")

# float16 is f16; '<u2' holds bf16 bit patterns (0x3fc0 is 1.5, 0xc020 is -2.5)
half = path("half.npy")
with open(half, "wb") as f:
    f.write(npy_bytes(np.array([0.5, -3.0, 65504.0], dtype="<f2")))
result = subprocess.run([tool, "print", half, "h"], capture_output=True, text=True)
check(result.returncode == 0 and result.stdout == "h : f16[3]\n0.5 -3 65504\n", "a float16 file reads as f16")
bf = path("bf16.npy")
with open(bf, "wb") as f:
    f.write(npy_bytes(np.array([0x3fc0, 0xc020], dtype="<u2")))
result = subprocess.run([tool, "print", bf, "b"], capture_output=True, text=True)
check(result.returncode == 0 and result.stdout == "b : bf16[2]\n1.5 -2.5\n", "a '<u2' file reads as bf16")

i4 = path("ids.npy")
with open(i4, "wb") as f:
    f.write(npy_bytes(np.array([[0, -1, 2147483647], [-2147483648, 7, 3]], dtype="<i4")))
result = subprocess.run([tool, "print", i4, "ids"], capture_output=True, text=True)
check(result.returncode == 0 and result.stdout == "ids : i32[2, 3]\n0 -1 2147483647\n-2147483648 7 3\n",
      "an '<i4' file reads as i32")

good = npy_bytes(np.arange(6, dtype="<f4").reshape(2, 3))
header_end = good.index(b"\n") + 1
REFUSED = [
    ("big-endian", npy_bytes(np.arange(6, dtype=">f4")), "big-endian data ('>f4') is not supported: save a.astype('<f4')"),
    ("fortran", npy_bytes(np.asfortranarray(np.arange(6.0).reshape(2, 3))),
     "fortran_order arrays are not supported: save np.ascontiguousarray(a)"),
    ("int16", npy_bytes(np.arange(6, dtype="<i2")),
     "dtype '<i2' is not supported (expected '<f4', '<f8', '<i8', '<i4', '<f2' or '<u2'"),
    ("big-endian int32", npy_bytes(np.arange(6, dtype=">i4")), "big-endian data ('>i4') is not supported: save a.astype('<i4')"),
    ("uint8", npy_bytes(np.arange(6, dtype="|u1")), "dtype '|u1' is not supported"),
    ("bool", npy_bytes(np.ones(3, dtype=bool)), "dtype '|b1' is not supported"),
    ("structured", npy_bytes(np.zeros(2, dtype=[("a", "<f4"), ("b", "<i8")])), "structured dtypes are not supported"),
    ("bad magic", b"\x93NUMPZ" + good[6:], "not a .npy file (bad magic)"),
    ("moarr named .npy", b"MOARR\x01\x00\x00" + bytes(8), "not a .npy file (bad magic)"),
    ("version 4", good[:6] + b"\x04\x00" + good[8:], "unsupported .npy version 4.0 (expected 1.0, 2.0 or 3.0)"),
    ("short prefix", good[:7], "truncated header: 7 of 10 bytes"),
    ("short header", good[:40], "truncated header: 30 of 118 bytes"),
    ("truncated data", good[:-1], "truncated data: 24 bytes of elements expected, 23 present"),
    ("trailing bytes", good + b"\0", "1 trailing bytes after the 24 bytes of elements"),
    ("no shape", good[:header_end].replace(b"'shape': (2, 3), ", b"                 ") + good[header_end:],
     "malformed .npy header: it lacks 'descr', 'fortran_order' or 'shape'"),
    ("extra key", good[:header_end].replace(b"'shape': (2, 3), ", b"'shape':(2,3),'x':1") + good[header_end:],
     "malformed .npy header: unexpected key 'x'"),
    ("negative extent", good[:header_end].replace(b"(2, 3)", b"(2,-3)") + good[header_end:],
     "malformed .npy header: an extent is not a non-negative integer"),
    ("rank 9", npy_bytes(np.zeros((1,) * 9, dtype="<f4")), "malformed .npy header: the rank exceeds the maximum of 8"),
    ("huge extent", good[:header_end].replace(b"(2, 3),", b"(2, 99999999999999999999)") + good[header_end:],
     "malformed .npy header: an extent exceeds int64"),
]
for name, blob, message in REFUSED:
    bad = path("bad-" + name.replace(" ", "-") + ".npy")
    with open(bad, "wb") as f:
        f.write(blob)
    result = subprocess.run([tool, "print", bad, "x"], capture_output=True, text=True)
    check(result.returncode == 2 and f"{bad}: {message}" in result.stderr,
          f"refused, {name}: {result.stderr.strip()}")

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("PASS")
