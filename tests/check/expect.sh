#!/bin/sh
# expect.sh MOAC EXPECT MUTANT FILE ARGS...: runs `moac check FILE ARGS` with the kernel broken by
# mutate.py MUTANT (none: unbroken) and requires the comparison's verdict EXPECT (PASS or FAIL). A build or
# run failure, or a mutant that finds nothing to break, is an error, never a FAIL that counts.
moac=$1 expect=$2 mutant=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
cc=cc
[ "$mutant" != none ] && cc="$here/mutate.py $mutant cc"
out=$("$moac" check "$@" --cc "$cc" 2>&1)
rc=$?
printf '%s\n' "$out" | grep -E ' : |^PASS|^FAIL|error|mutate'
verdict=$(printf '%s\n' "$out" | tail -n 1)
if [ "$verdict" != PASS ] && [ "$verdict" != FAIL ]; then
  echo "expect.sh: no verdict (exit $rc): the build or the run failed"
  exit 1
fi
if [ "$verdict" != "$expect" ]; then
  echo "expect.sh: $mutant gave $verdict, expected $expect"
  exit 1
fi
[ "$expect" = PASS ] && [ $rc -ne 0 ] && { echo "expect.sh: PASS with exit $rc"; exit 1; }
[ "$expect" = FAIL ] && [ $rc -ne 1 ] && { echo "expect.sh: FAIL with exit $rc"; exit 1; }
exit 0
