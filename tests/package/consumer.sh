#!/usr/bin/env bash
# The installed package, end to end: installs moac from this build tree into a prefix under WORK, builds
# tests/consumer against it (find_package(moac), moac_add_kernel), runs decode-check for every target, and
# checks that the kernels are generated again exactly when they should be: not on a second build, but
# after decode.moa or the moac executable changes (the custom command's DEPENDS and DEPFILE).
# Usage: consumer.sh BUILD_DIR SOURCE_DIR WORK GENERATOR "TARGETS"
set -euo pipefail
build=$1 root=$2 work=$3 generator=$4 targets=$5
ntargets=$(wc -w <<<"$targets")
rm -rf "$work"
mkdir -p "$work"

cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
for f in bin/moac lib/libmoart.a include/moart/kernel.h lib/cmake/moac/moacConfig.cmake \
         lib/cmake/moac/moacConfigVersion.cmake share/bash-completion/completions/moac; do
  [ -e "$work/prefix/$f" ] || { echo "FAIL: the install has no $f"; exit 1; }
done

# A copy of decode.moa, dated in the past so that touching it later is certainly newer than the outputs.
cp "$root/dsl-examples/decode.moa" "$work/decode.moa"
touch -d '2000-01-01' "$work/decode.moa"
cmake -S "$root/tests/consumer" -B "$work/build" -G "$generator" -DCMAKE_PREFIX_PATH="$work/prefix" \
      -DMOAC_DECODE="$work/decode.moa" "-DMOAC_TARGETS=${targets// /;}" >"$work/configure.log" 2>&1 \
  || { cat "$work/configure.log"; exit 1; }

# Builds and checks how many kernels were generated ("moac: generating" is the custom command's comment).
expect_generated() {
  local step=$1 want=$2 got
  cmake --build "$work/build" -j2 >"$work/$step.log" 2>&1 || { cat "$work/$step.log"; exit 1; }
  got=$(grep -c "moac: generating" "$work/$step.log" || true)
  if [ "$got" != "$want" ]; then
    echo "FAIL: $step generated $got kernels, expected $want"
    cat "$work/$step.log"
    exit 1
  fi
  echo "ok   $step: $got kernels generated"
}

expect_generated first-build "$ntargets"
for t in $targets; do
  ACC_DEVICE_TYPE=host OMP_NUM_THREADS=2 "$work/build/decode-check-$t"
  grep -q "decode.moa" "$work/build/decode_$t/decode.d" || { echo "FAIL: decode_$t/decode.d names no decode.moa"; exit 1; }
done
expect_generated second-build 0
touch "$work/decode.moa"
expect_generated after-touching-decode.moa "$ntargets"
# moac leaves an output that holds the same bytes untouched, so nothing that depends on it is rebuilt.
if grep -E "Building C object .*decode\.c\.o" "$work/after-touching-decode.moa.log"; then
  echo "FAIL: the unchanged kernels were compiled again after touching decode.moa"
  exit 1
fi
echo "ok   after-touching-decode.moa: no kernel compiled again (its C did not change)"
expect_generated build-after-the-unchanged-kernels 0
touch "$work/prefix/bin/moac"
expect_generated after-touching-moac "$ntargets"
