#!/usr/bin/env bash
# Every file in generated/ compiles cleanly with gcc and clang: -std=c99 -Wall -Wextra -Werror (OpenMP with
# -fopenmp; OpenACC with gcc -fopenacc, and with clang, which has no OpenACC, -Wno-unknown-pragmas).
# With a second argument, the path of moac: the programs of tests/e2e/programs/ instead, compiled for each
# CPU target by it first (the language's forms that no example in generated/ uses).
set -euo pipefail
root=$1
moac=${2:-}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0
sources=("$root"/generated/*.c)
if [ -n "$moac" ]; then
  sources=()
  for program in "$root"/tests/e2e/programs/*.moa; do
    for target in c openmp openacc; do
      name=$(basename "$program" .moa).$target
      "$moac" compile "$program" --target=$target -o "$out/$name.c" --header "$out/$name.h"
      sources+=("$out/$name.c")
    done
  done
fi
for src in "${sources[@]}"; do
  case "$src" in
    *.openmp.c) gccflags=-fopenmp; clangflags=-fopenmp ;;
    *.openacc.c) gccflags=-fopenacc; clangflags=-Wno-unknown-pragmas ;;
    *) gccflags=; clangflags= ;;
  esac
  for cc in gcc clang; do
    command -v $cc >/dev/null || { echo "skip: no $cc"; continue; }
    flags=$gccflags; [ $cc = clang ] && flags=$clangflags
    if ! $cc -std=c99 -Wall -Wextra -Werror $flags -I"$root/runtime/include" -I"$(dirname "$src")" -c "$src" -o "$out/k.o"; then
      echo "FAILED: $cc $flags $src"; status=1
    fi
  done
done
exit $status
