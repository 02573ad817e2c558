#!/usr/bin/env bash
# User mistakes that were internal errors (issue 13 item 6): each is a usage error (exit 2) or an error
# (exit 1) with a clear message, never exit 70.
# Usage: errors.sh MOAC DSL_EXAMPLES WORKDIR CASE
#   header-name  --header names with a quote, a backslash, a newline or a trigraph: #include "…" could not
#                spell them (exit 2, nothing written)
#   check-dims   moac check with extents past the interpreter's limit, overflowing int64, or guards whose
#                sides overflow: located errors like moac run's (exit 1)
#   name         --name values that cannot name a C kernel (exit 2, nothing written); a name that a
#                parameter has renames the parameter; the name gives the functions, the guard and macros;
#                parameters named NAME_… are renamed (C, and CUDA where nvcc is present)
#   torch        --torch without what the operator needs (exit 2, nothing written)
#   oom          the interpreter out of memory (an allowed 2^28-element intermediate under ulimit -v)
set -uo pipefail
moac=$1 examples=$2 work=$3 case=$4
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
# expect RC MESSAGE ARGS...: moac ARGS exits RC and says MESSAGE
expect() {
  local rc=$1 want=$2 out got
  shift 2
  out=$("$moac" "$@" 2>&1)
  got=$?
  [ $got -eq "$rc" ] || fail "moac $*: exit $got, expected $rc: $out"
  [[ $out == *"$want"* ]] || fail "moac $*: message '$out' lacks '$want'"
  [[ $out != *"internal error"* ]] || fail "moac $*: internal error"
  echo "ok   moac $*: exit $rc"
}
printf 'dim n\nin x : f32[n]\nout y = x * 2.0\n' >k.moa
case $case in
header-name)
  for name in 'a"b.h' 'a\b.h' $'a\nb.h' 'a??=b.h' "a'b.h" 'sub/x"y.h'; do
    expect 2 'cannot be written in #include' compile k.moa -o k.c --header "$name"
  done
  [ "$(ls)" = k.moa ] || fail "a refused compilation wrote files: $(ls)"
  expect 0 '' compile k.moa -o k.c --header 'plain-ü.h'
  grep -q '#include "plain-ü.h"' k.c || fail "k.c does not include its header"
  ;;
check-dims)
  expect 1 "decode.moa:4:5: error: an array of shape [4000000000000, 64] has more than 268435456 elements" \
    check "$examples/decode.moa" --dims n=4000000000000,dk=64,dv=64
  printf 'dim n\nin x : f32[n * n]\nout y = +/ x\n' >square.moa
  expect 1 "square.moa:2:4: error: extent n*n cannot be evaluated: integer overflow" check square.moa --dims n=4000000000000
  expect 1 "shape guard t + 1 <= cap does not hold" \
    check "$examples/kvcache.moa" --dims t=9223372036854775807,cap=9223372036854775807,dk=4,dv=4
  ;;
name)
  for name in 1k k-1 'k 1' int class printf size_t _k k__1 moart_k MOART_k 'é' v v_k; do
    expect 2 'cannot name a kernel' compile k.moa -o k.c --header k.h --name="$name"
  done
  [ "$(ls)" = k.moa ] || fail "a refused compilation wrote files: $(ls)"
  expect 0 '' compile k.moa -o k.c --header k.h --name=y
  grep -q '^#ifndef y_H$' k.h && grep -q '^size_t y_workspace_bytes(int64_t n);$' k.h &&
    grep -q '^#define y_x_LIFTED_BLOCK 0' k.h && grep -q '^int y(int64_t n, const float \*MOART_RESTRICT x, float \*v_y,' k.h ||
    fail "k.h does not name the kernel y (and rename the output y): $(cat k.h)"
  for cc in gcc clang; do
    $cc -std=c99 -Wall -Wextra -Werror -I "$examples/../runtime/include" -c k.c -o k.o || fail "$cc rejects k.c"
  done
  # Parameters named like the kernel's own names (NAME_…: the header's guard, its macros, CUDA's stages and
  # host functions) are renamed, on every target.
  sed 's/\bK\b/y_stage0/g; s/\bV\b/y_H/g; s/\bq\b/y_q_LIFTED_BLOCK/g; s/\bdv\b/y_workspace_layout/g' \
    "$examples/decode.moa" >own.moa
  expect 0 '' compile own.moa -o own.c --header own.h --name=y
  tr -s ' \n' ' ' <own.h | grep -q 'int y(int64_t n, int64_t dk, int64_t v_y_workspace_layout, const float \*MOART_RESTRICT v_y_q_LIFTED_BLOCK, const float \*MOART_RESTRICT v_y_stage0, const float \*MOART_RESTRICT v_y_H, float \*o, void \*workspace);' ||
    fail "own.h does not rename the parameters named like the kernel's own names: $(cat own.h)"
  for cc in gcc clang; do
    $cc -std=c99 -Wall -Wextra -Werror -I "$examples/../runtime/include" -c own.c -o own.o || fail "$cc rejects own.c"
  done
  nvcc=${MOAC_NVCC:-/usr/local/cuda/bin/nvcc}
  if [ -x "$nvcc" ]; then
    expect 0 '' compile own.moa --target=cuda -o own.cu --header own.cuda.h --name=y
    "$nvcc" -gencode arch=compute_90,code=sm_90 -I "$examples/../runtime/include" -c own.cu -o own.cu.o ||
      fail "nvcc rejects own.cu"
  else
    echo "no nvcc at $nvcc: own.moa's CUDA output not compiled"
  fi
  ;;
torch)
  expect 2 'needs --emit=code, -o FILE, --header FILE and --target=c, openmp or cuda' compile k.moa -o k.c --torch k.cpp
  expect 2 'needs --emit=code' compile k.moa -o k.c --header k.h --torch k.cpp --target=openacc
  expect 2 'needs --emit=code' compile k.moa --emit=onf -o k.c --header k.h --torch k.cpp
  expect 2 'not with --schedule layout=lifted' compile k.moa -o k.c --header k.h --torch k.cpp --schedule=layout=lifted
  [ "$(ls)" = k.moa ] || fail "a refused compilation wrote files: $(ls)"
  ;;
oom)
  printf 'dim n\nin x : f32[n]\nout y = +/ +/ (x o.* x)\n' >outer.moa
  (ulimit -v 1500000 && expect 1 "out of memory" run outer.moa --dims n=16384) || exit 1
  ;;
*) fail "unknown case $case" ;;
esac
echo PASS
