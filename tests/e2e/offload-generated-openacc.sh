#!/usr/bin/env bash
# Every generated/*.openacc.c links through GCC's nvptx offload compiler at -O0, where GCC inlines nothing:
# a runtime helper that an offloaded kernel calls but kernel.h does not mark `acc routine` stops the link
# ("referenced in offloaded code but hasn't been marked"), as it did for moart_rescalef. Skipped (77) where
# no offload compiler is installed. Usage: offload-generated-openacc.sh ROOT GCC-OFFLOAD-FLAGS...
set -euo pipefail
root=$1; shift
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf 'int main(void) {\n  int x = 0;\n#pragma acc parallel copy(x)\n  x = 1;\n  return !x;\n}\n' > "$out/probe.c"
if ! gcc -std=c99 "$@" "$out/probe.c" -o "$out/probe" >/dev/null 2>&1; then
  echo "skip: gcc does not link OpenACC with offloading to nvptx ($*)"
  exit 77
fi
status=0
for src in "$root"/generated/*.openacc.c; do
  if ! gcc -std=c99 -O0 -fPIC -shared "$@" -I"$root/runtime/include" -I"$root/generated" "$src" -o "$out/k.so" -lm; then
    echo "FAILED: gcc -O0 $* $src"; status=1
  fi
done
exit $status
