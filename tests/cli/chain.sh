#!/usr/bin/env bash
# A chain of k bindings, each using the previous one twice (a2 = a1 + a1 * 0.5, …): the generated C must
# grow linearly in k, not as 2^k (issue 13 item 8). Compiles k = 10, 20 and 40 and compares the sizes
# (bytes, not time): the step from 20 to 40 may be at most 2.5 times the step from 10 to 20. A kernel that
# inlines both uses would be 2^10 times larger at k = 20 (and never finish at 40: the test's timeout).
set -euo pipefail
moac=$1 work=$2
mkdir -p "$work"
size() {
  local k=$1 file=$work/chain-$1.moa
  { echo "dim n"; echo "in x : f32[n]"; echo "a1 = x * 2.0"
    for ((i = 2; i <= k; ++i)); do echo "a$i = a$((i - 1)) + a$((i - 1)) * 0.5"; done
    echo "out y = a$k"; } > "$file"
  "$moac" compile "$file" -o "$work/chain-$k.c" --header "$work/chain-$k.h"
  wc -c < "$work/chain-$k.c"
}
s10=$(size 10) s20=$(size 20) s40=$(size 40)
echo "C bytes: k=10 $s10, k=20 $s20, k=40 $s40"
if (( s40 - s20 > 5 * (s20 - s10) / 2 || s20 - s10 <= 0 )); then
  echo "FAIL: the C does not grow linearly with the chain" >&2
  exit 1
fi
# and the value is right: the chain is (1.5^39 · 2) · x
"$moac" check "$work/chain-40.moa" --dims n=7 > "$work/check.log" || { cat "$work/check.log"; exit 1; }
echo PASS
