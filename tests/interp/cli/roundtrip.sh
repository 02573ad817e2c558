#!/bin/sh
# roundtrip.sh MOAC PROGRAM DIMS WORKDIR: `moac run --outputs` then `moac run --inputs` on the files it wrote
# must print the same outputs bit for bit, and a different seed must print different ones.
set -u
moac=$1 program=$2 dims=$3 work=$4
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
"$moac" run "$program" --dims "$dims" --outputs "$work/files" >"$work/first.txt" || fail "first run failed"
for f in "$work"/files/*.moarr; do [ -s "$f" ] || fail "missing or empty $f"; done
"$moac" run "$program" --dims "$dims" --inputs "$work/files" >"$work/second.txt" || fail "second run failed"
cmp "$work/first.txt" "$work/second.txt" || fail "outputs differ after the round trip"
"$moac" run "$program" --dims "$dims" --inputs "$work/files" --outputs "$work/files" >"$work/third.txt" ||
  fail "re-writing the inputs in place failed"
cmp "$work/first.txt" "$work/third.txt" || fail "outputs differ after writing the inputs in place"
"$moac" run "$program" --dims "$dims" --seed 1 >"$work/seed1.txt" || fail "seed 1 run failed"
cmp -s "$work/first.txt" "$work/seed1.txt" && fail "seed 1 printed the same outputs as seed 0"
cat "$work/first.txt"
exit 0
