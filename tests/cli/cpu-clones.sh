#!/usr/bin/env bash
# A C or OpenMP kernel is cloned per ISA (docs/abi.md, "CPU clones"; moart/kernel.h, MOART_CPU_CLONES):
#   - gcc builds an x86-64-v3 clone of the kernel and of its OpenMP regions (32-byte vectors in the
#     split pass's clone) beside the default one, and a caller in another file links against it;
#   - -DMOART_NO_CPU_CLONES, -march at AVX2 already, or clang (whose clones a caller in another file
#     cannot link: Clang 14 defines them under mangled names only) builds the one plain kernel;
#   - the cloned kernel's outputs are the plain kernel's bit for bit (moac check with either build).
# Skips (77) off x86-64 or glibc, where the macro is empty by design.
# Usage: cpu-clones.sh MOAC RUNTIME_INCLUDE SOURCE_DIR WORKDIR
set -uo pipefail
moac=$1 include=$2 src=$3 work=$4
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
[ "$(uname -m)" = x86_64 ] || { echo "skip: not x86-64"; exit 77; }
case "$(ldd --version 2>&1)" in *GLIBC* | *"GNU libc"*) ;; *) echo "skip: not glibc"; exit 77 ;; esac
"$moac" compile "$src/dsl-examples/decode-bf16.moa" --target=openmp -o k.c --header k.h || fail "moac compile"
grep -q '^MOART_CPU_CLONES$' k.c || fail "the kernel's definition does not start with MOART_CPU_CLONES"
# (symbols into a file, then grep: `nm | grep -q` fails under pipefail when grep stops reading early)
gcc_object() {
  gcc -std=c99 -O3 -fopenmp -Wall -Wextra -Werror -I"$include" -I. "$@" -c k.c -o k.o || fail "gcc $* rejects k.c"
  nm k.o >syms.txt
}
gcc_object
grep -q ' moa_decode_bf16\.arch_x86_64_v3$' syms.txt || fail "gcc: no x86-64-v3 clone of the kernel: $(grep moa_ syms.txt)"
grep -q ' moa_decode_bf16\.default$' syms.txt || fail "gcc: no default clone of the kernel"
grep -q '_omp_fn\.0\.arch_x86_64_v3$' syms.txt || fail "gcc: the OpenMP region is not cloned"
# the split pass (the first region) runs on 32-byte vectors in its clone, on 16-byte ones in the default
objdump -d --no-show-raw-insn k.o | awk '/>:$/ { f = $2 } /ymm/ { n[f]++ } END { for (g in n) print g, n[g] }' >ymm.txt
grep -q '^<moa_decode_bf16._omp_fn.0.arch_x86_64_v3>:' ymm.txt || fail "gcc: the region's clone has no 32-byte vectors"
! grep -q '\.default>:' ymm.txt || fail "gcc: the default clone uses 32-byte vectors"
# a caller in another file links against the cloned kernel (the loader binds it)
printf '#include "k.h"\nint main(void) { return moa_decode_bf16(1, 1, 1, 0, 0, 0, 0, 0); }\n' >caller.c
gcc -std=c99 -fopenmp -I"$include" -I. caller.c k.o -lm -o caller || fail "gcc: a caller does not link the cloned kernel"
./caller; [ $? = 1 ] || fail "gcc: the cloned kernel called with NULL arrays did not return MOART_ERR_ARG (1)"
echo "ok   gcc: kernel and OpenMP regions cloned for x86-64-v3; a caller links and calls it"
for flags in -DMOART_NO_CPU_CLONES -march=x86-64-v3; do
  gcc_object $flags
  ! grep -q 'arch_x86_64_v3' syms.txt || fail "gcc $flags: the kernel is still cloned"
  grep -q ' T moa_decode_bf16$' syms.txt || fail "gcc $flags: no plain kernel"
  echo "ok   gcc $flags: one plain kernel"
done
if command -v clang >/dev/null; then
  clang -std=c99 -O2 -Wall -Wextra -Werror -I"$include" -I. -c k.c -o kc.o || fail "clang rejects k.c"
  nm kc.o >syms-clang.txt
  ! grep -q 'arch_x86-64-v3' syms-clang.txt || fail "clang: the kernel is cloned"
  clang -std=c99 -I"$include" -I. caller.c kc.o -lm -o caller-clang || fail "clang: a caller does not link the kernel"
  echo "ok   clang: one plain kernel, and a caller links it"
else
  echo "skip: no clang"
fi
# the same outputs with and without the clones (which one runs: the CPU's; say which)
grep -qw avx2 /proc/cpuinfo && echo "this CPU has AVX2: the x86-64-v3 clone runs" || echo "this CPU has no AVX2: the default clone runs"
for v in cloned plain; do
  extra=; [ $v = plain ] && extra=-DMOART_NO_CPU_CLONES
  "$moac" check "$src/dsl-examples/decode-bf16.moa" --target=openmp --dims n=3001,dk=100,dv=72 --cc "gcc $extra" \
    --keep $v >$v.log 2>&1 || { cat $v.log; fail "moac check ($v)"; }
done
nm cloned/harness >syms-cloned.txt && nm plain/harness >syms-plain.txt || fail "nm of the harnesses"
grep -q 'arch_x86_64_v3' syms-cloned.txt || fail "the checked harness has no clone"
! grep -q 'arch_x86_64_v3' syms-plain.txt || fail "the plain harness has a clone"
cmp cloned/out_o.moarr plain/out_o.moarr || fail "the cloned and the plain kernel's outputs differ"
echo "ok   the cloned and the plain kernel's outputs are the same bit for bit"
