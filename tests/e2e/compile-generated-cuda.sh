#!/usr/bin/env bash
# Every CUDA kernel in generated/ compiles with nvcc for sm_90 with every warning an error (nvcc's and the
# host compiler's -Wall -Wextra), and its header compiles as C99 and as C++17. No GPU is needed. Exits 77
# (skipped) where there is no nvcc: $MOAC_NVCC, /usr/local/cuda/bin/nvcc or nvcc on PATH.
# With a second argument, the path of moac: the programs of tests/e2e/programs/ instead, compiled for CUDA
# by it first (the language's forms that no example in generated/ uses).
set -euo pipefail
root=$1
moac=${2:-}
nvcc=${MOAC_NVCC:-}
[ -n "$nvcc" ] || { [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc; } || true
[ -n "$nvcc" ] || nvcc=$(command -v nvcc || true)
[ -n "$nvcc" ] || { echo "skip: no nvcc"; exit 77; }
cudainc=$(dirname "$(dirname "$nvcc")")/include
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0
sources=("$root"/generated/*.cuda.cu)
if [ -n "$moac" ]; then
  sources=()
  for program in "$root"/tests/e2e/programs/*.moa; do
    name=$(basename "$program" .moa)
    "$moac" compile "$program" --target=cuda -o "$out/$name.cuda.cu" --header "$out/$name.cuda.h"
    sources+=("$out/$name.cuda.cu")
  done
fi
for src in "${sources[@]}"; do
  dir=$(dirname "$src")
  if ! "$nvcc" -std=c++17 -O2 -gencode arch=compute_90,code=sm_90 -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror \
      -I"$root/runtime/include" -I"$dir" -c "$src" -o "$out/k.o"; then
    echo "FAILED: nvcc $src"; status=1
  fi
  header=$(basename "$src" .cu).h
  printf '#include "%s"\nint main(void) { return 0; }\n' "$header" > "$out/use.c"
  cp "$out/use.c" "$out/use.cpp"
  for compile in "gcc -std=c99 -x c $out/use.c" "g++ -std=c++17 -x c++ $out/use.cpp"; do
    if ! $compile -Wall -Wextra -Werror -I"$cudainc" -I"$dir" -fsyntax-only; then
      echo "FAILED: $compile ($header)"; status=1
    fi
  done
done
exit $status
