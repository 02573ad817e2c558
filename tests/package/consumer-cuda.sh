#!/usr/bin/env bash
# moac_add_kernel(... TARGET cuda) from an installed package: installs moac into a prefix under WORK and
# builds tests/consumer-cuda against it with nvcc (no GPU needed to build and link; the program then runs
# its host part). Exits 77 (skipped) where there is no nvcc.
# Usage: consumer-cuda.sh BUILD_DIR SOURCE_DIR WORK GENERATOR
set -euo pipefail
build=$1 root=$2 work=$3 generator=$4
nvcc=${MOAC_NVCC:-/usr/local/cuda/bin/nvcc}
[ -x "$nvcc" ] || nvcc=$(command -v nvcc || true)
[ -n "$nvcc" ] || { echo "skip: no nvcc"; exit 77; }
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
cmake -S "$root/tests/consumer-cuda" -B "$work/build" -G "$generator" -DCMAKE_PREFIX_PATH="$work/prefix" \
      -DCMAKE_CUDA_COMPILER="$nvcc" >"$work/configure.log" 2>&1 || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/build" -j2 >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
grep -q "moac: generating .*decode.cu" "$work/build.log" || { echo "FAIL: no decode.cu generated"; cat "$work/build.log"; exit 1; }
"$work/build/decode-cuda-link" | grep -q "^workspace [0-9]* bytes$" || { echo "FAIL: decode-cuda-link"; exit 1; }
# a project that did not enable CUDA is told to
mkdir -p "$work/nocuda"
printf 'cmake_minimum_required(VERSION 3.20)\nproject(p LANGUAGES C)\nfind_package(moac CONFIG REQUIRED)\nmoac_add_kernel(k SOURCES %s TARGET cuda)\n' \
  "$root/dsl-examples/decode.moa" >"$work/nocuda/CMakeLists.txt"
if cmake -S "$work/nocuda" -B "$work/nocuda/build" -DCMAKE_PREFIX_PATH="$work/prefix" >"$work/nocuda.log" 2>&1; then
  echo "FAIL: TARGET cuda without the CUDA language configured"; exit 1
fi
grep -q "TARGET cuda needs the CUDA language" "$work/nocuda.log" || { cat "$work/nocuda.log"; exit 1; }
echo "ok   TARGET cuda: decode.cu built and linked; without enable_language(CUDA) a clear error"
