#!/bin/sh
# Builds tests/cuda/extrema.cu with nvcc (-Wall -Wextra -Werror for the host code) and runs it: exit 77
# where there is no nvcc or no CUDA device (built, not run), else the program's status.
# Usage: extrema.sh SOURCE_DIR WORKDIR
src=$1 work=$2
nvcc=${MOAC_NVCC:-/usr/local/cuda/bin/nvcc}
[ -x "$nvcc" ] || nvcc=$(command -v nvcc) || { echo "skip: no nvcc"; exit 77; }
mkdir -p "$work" || exit 1
"$nvcc" -std=c++17 -O2 -gencode arch=compute_90,code=sm_90 -Xcompiler -Wall,-Wextra,-Werror -I "$src/runtime/include" \
  "$src/tests/cuda/extrema.cu" -o "$work/extrema" || exit 1
exec "$work/extrema"
