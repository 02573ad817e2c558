#!/usr/bin/env bash
# Every file in generated/ compiles cleanly with gcc and clang: -std=c99 -Wall -Wextra -Werror (OpenMP with
# -fopenmp; OpenACC with gcc -fopenacc, and with clang, which has no OpenACC, -Wno-unknown-pragmas).
set -euo pipefail
root=$1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0
for src in "$root"/generated/*.c; do
  case "$src" in
    *.openmp.c) gccflags=-fopenmp; clangflags=-fopenmp ;;
    *.openacc.c) gccflags=-fopenacc; clangflags=-Wno-unknown-pragmas ;;
    *) gccflags=; clangflags= ;;
  esac
  for cc in gcc clang; do
    command -v $cc >/dev/null || { echo "skip: no $cc"; continue; }
    flags=$gccflags; [ $cc = clang ] && flags=$clangflags
    if ! $cc -std=c99 -Wall -Wextra -Werror $flags -I"$root/runtime/include" -I"$root/generated" -c "$src" -o "$out/k.o"; then
      echo "FAILED: $cc $flags $src"; status=1
    fi
  done
done
exit $status
