#!/usr/bin/env bash
# Builds the kernel moac compiles from dsl-examples/kvcache.moa for TARGET with the driver kvcache_steps.c
# (C99, -Wall -Wextra -Werror), then runs T steps for each (T, dk, dv) given.
# usage: MOAC_OPENACC_FLAGS=... run.sh MOAC ROOT TARGET T,dk,dv... (the OpenACC options from CMake)
set -euo pipefail
moac=$1 root=$2 target=$3
shift 3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$moac" compile "$root/dsl-examples/kvcache.moa" --target="$target" -o "$out/kvcache.c" --header "$out/moa_kvcache.h"
case "$target" in
  openmp) flags=-fopenmp ;;
  openacc) flags=${MOAC_OPENACC_FLAGS:?the OpenACC options of cmake/MoacOpenACC.cmake} ;;
  *) flags= ;;
esac
cc -std=c99 -O2 -Wall -Wextra -Werror $flags -I"$root/runtime/include" -I"$out" \
  "$root/tests/kvcache/kvcache_steps.c" "$out/kvcache.c" -lm -o "$out/kvcache_steps"
for config in "$@"; do
  IFS=, read -r T dk dv <<< "$config"
  "$out/kvcache_steps" "$T" "$dk" "$dv"
done
