#!/usr/bin/env bash
# .npy array files in moac run and moac check (issue 18 item 4; docs/cli.md "Array files").
# Usage: npy.sh MOAC DSL_EXAMPLES SCRIPTS WORKDIR CASE        (exit 77, skipped, without numpy)
#   run     numpy's files as moac run's inputs give the run of the same values from .moarr files, byte for
#           byte; --outputs --array-format=npy writes what np.load reads, equal to the .moarr files
#   check   moac check --array-format=npy: the harness reads and writes .npy, which np.load reads
#   errors  a .npy of another dtype or shape, a big-endian one, a .npy beside a .moarr of the same input:
#           errors at the input's declaration (exit 1); --array-format=npz is a usage error (exit 2)
set -uo pipefail
moac=$1 examples=$2 scripts=$3 work=$4 case=$5
python=/usr/bin/python3
"$python" -c 'import numpy' 2>/dev/null || { echo "SKIP: $python cannot import numpy"; exit 77; }
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
decode=$examples/decode.moa
dims=n=8,dk=4,dv=4
export PYTHONPATH=$scripts
case $case in
run)
  "$moac" run "$decode" --dims $dims --seed 3 --outputs moarr >first.txt || fail "run --outputs"
  "$python" -c '
import os, moarr, numpy as np
os.mkdir("npy")
for name in "q", "K", "V":
    np.save(f"npy/{name}.npy", moarr.read(f"moarr/{name}.moarr"))' || fail "numpy could not write the inputs"
  "$moac" run "$decode" --dims $dims --inputs npy >again.txt || fail "run --inputs npy"
  cmp first.txt again.txt || fail "numpy's inputs gave another result"
  echo "ok   numpy's .npy inputs give the same run as the .moarr ones"
  "$moac" run "$decode" --dims $dims --seed 3 --outputs out --array-format=npy >third.txt || fail "--array-format=npy"
  cmp first.txt third.txt || fail "--array-format changed the result"
  [ "$(ls out | tr '\n' ' ')" = "K.npy V.npy o.npy q.npy " ] || fail "files: $(ls out)"
  "$python" -c '
import moarr, numpy as np
for name, dtype in ("q", "<f4"), ("K", "<f4"), ("V", "<f4"), ("o", "<f8"):
    a, b = np.load(f"out/{name}.npy"), moarr.read(f"moarr/{name}.moarr")
    assert a.dtype == np.dtype(dtype) and a.shape == b.shape and a.tobytes() == b.tobytes(), name' ||
    fail "np.load of the outputs differs from the .moarr files"
  echo "ok   --array-format=npy writes what np.load reads"
  ;;
check)
  "$moac" check "$decode" --dims $dims --array-format=npy --keep kept --inputs-range=-1,1 >report.txt ||
    fail "check --array-format=npy: $(cat report.txt)"
  grep -q '^PASS$' report.txt || fail "no PASS"
  ls kept/*.moarr 2>/dev/null && fail "a .moarr file was written"
  "$moac" run "$decode" --dims $dims --inputs kept >run.txt || fail "run on the kept .npy inputs"
  "$python" -c '
import numpy as np
o = np.load("kept/out_o.npy")
ref = [float(x) for x in open("run.txt").read().split("\n")[1].split()]
assert o.dtype == np.dtype("<f4") and o.shape == (4,), o
assert np.allclose(o, ref, rtol=1e-5, atol=0), (o, ref)' || fail "the kernel's out_o.npy is not the run's o"
  echo "ok   the harness reads and writes .npy"
  ;;
errors)
  mkdir in
  "$python" -c '
import numpy as np
np.save("in/q.npy", np.zeros(4, np.float64))
np.save("in/K.npy", np.zeros((8, 4), ">f4"))
np.save("in/V.npy", np.zeros((8, 3), np.float32))'
  printf 'junk' >in/V.moarr
  out=$("$moac" run "$decode" --dims $dims --inputs in 2>&1)
  [ $? -eq 1 ] || fail "exit status: $out"
  [[ $out == *"decode.moa:3:5: error: input 'q' in 'in/q.npy' is f64[4] but the program declares f32⟨dk⟩ = f32[4]"* ]] ||
    fail "dtype: $out"
  "$python" -c 'import numpy as np; np.save("in/q.npy", np.zeros(4, np.float32))'
  out=$("$moac" run "$decode" --dims $dims --inputs in 2>&1)
  [[ $out == *"decode.moa:4:5: error: input 'K': in/K.npy: big-endian data ('>f4') is not supported: save a.astype('<f4')"* ]] ||
    fail "big-endian: $out"
  "$python" -c 'import numpy as np; np.save("in/K.npy", np.zeros((8, 4), np.float32))'
  out=$("$moac" run "$decode" --dims $dims --inputs in 2>&1)
  [[ $out == *"decode.moa:5:5: error: input 'V': both in/V.npy and in/V.moarr exist: remove one"* ]] ||
    fail "both files: $out"
  rm in/V.moarr
  out=$("$moac" run "$decode" --dims $dims --inputs in 2>&1)
  [[ $out == *"input 'V' in 'in/V.npy' is f32[8, 3] but the program declares f32⟨n dv⟩ = f32[8, 4]"* ]] ||
    fail "shape: $out"
  out=$("$moac" run "$decode" --dims $dims --outputs o --array-format=npz 2>&1)
  [ $? -eq 2 ] && [ "$out" = "moac: error: --array-format: 'npz' is not one of moarr, npy; did you mean 'npy'?" ] ||
    fail "npz: $out"
  echo "ok   errors"
  ;;
*) fail "unknown case $case" ;;
esac
echo PASS
