#!/usr/bin/env bash
# The CUDA target's check path and the build-here, run-there flow (docs/cli.md, "moac check"):
#   device     moac check --target=cuda builds the kernel and harness with nvcc; without a GPU it says so
#              and exits 77, with one it passes (exit 77 from this script: no nvcc here)
#   kept       --no-run writes the sets and run.sh, run.sh runs them, --compare passes; a changed output
#              fails the comparison (on target c, so that it runs everywhere)
#   usage      --no-run or --compare without --keep, both at once, --verify-output for cuda: usage errors
#   onf        --emit=onf prints CUDA's split count as its launcher computes it
#   wider      a tiled split pass of the default pack is also printed at twice the pack, a host function testing the
#              packed index's floor divisions, called by the layout function and the launcher, whose split counts
#              then count the wider kernel's frames; not with pack= or mma=off, not for f32 (docs/schedule.md)
#   explain    moac explain --target=cuda, text and --html, for every example (fused and fuse=off): the page
#              maps the CUDA kernels' lines to the loop IR (an internal error before)
# Usage: cuda.sh MOAC DSL_EXAMPLES WORKDIR CASE
set -uo pipefail
moac=$1 examples=$2 work=$3 case=$4
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
expect() { # expect RC MESSAGE ARGS...: moac ARGS exits RC and says MESSAGE
  local rc=$1 want=$2 out got
  shift 2
  out=$("$moac" "$@" 2>&1)
  got=$?
  [ $got -eq "$rc" ] || fail "moac $*: exit $got, expected $rc: $out"
  [[ $out == *"$want"* ]] || fail "moac $*: message '$out' lacks '$want'"
  echo "ok   moac $*: exit $rc"
}
case $case in
device)
  nvcc=${MOAC_NVCC:-/usr/local/cuda/bin/nvcc}
  [ -x "$nvcc" ] || command -v nvcc >/dev/null || { echo "skip: no nvcc"; exit 77; }
  out=$("$moac" check "$examples/decode.moa" --target=cuda --dims n=300,dk=16,dv=8 --keep kept 2>&1)
  rc=$?
  case $rc in
  77) [[ $out == *"no CUDA device here: the kernel and its harness were built, not run"* ]] || fail "exit 77 without the message: $out"
      [ -x kept/harness ] && [ -f kept/moa_decode.cu ] || fail "no harness or kernel in kept/" ;;
  0) [[ $out == *PASS* ]] || fail "exit 0 without PASS: $out" ;;
  *) fail "exit $rc: $out" ;;
  esac
  echo "ok   moac check --target=cuda: exit $rc" ;;
kept)
  args=(check "$examples/gqa.moa" --target=c --dims B=1,hq=4,hkv=2,n=50,dk=8,dv=8 --keep kept)
  expect 0 "run kept/run.sh there" "${args[@]}" --no-run
  [ -d kept/set1 ] && [ -d kept/set2 ] && [ -f kept/set1/Q.moarr ] || fail "no input sets in kept/"
  [ ! -e kept/set1/out_O.moarr ] || fail "--no-run ran the kernel"
  sh kept/run.sh || fail "run.sh failed"
  expect 0 PASS "${args[@]}" --compare
  # a kernel that gave other numbers: the comparison must see it (the second set's output, first set's bytes)
  cp kept/set1/out_O.moarr kept/set2/out_O.moarr
  expect 1 FAIL "${args[@]}" --compare
  rm kept/set2/out_O.moarr
  expect 1 "out_O.moarr" "${args[@]}" --compare ;;
usage)
  expect 2 "--no-run needs --keep DIR" check "$examples/decode.moa" --dims n=4,dk=2,dv=2 --no-run
  expect 2 "--compare needs --keep DIR" check "$examples/decode.moa" --dims n=4,dk=2,dv=2 --compare
  expect 2 "two steps" check "$examples/decode.moa" --dims n=4,dk=2,dv=2 --keep k --no-run --compare
  expect 2 "--verify-output checks C" compile "$examples/decode.moa" --target=cuda --verify-output -o k.cu ;;
onf)
  # the ONF's split count is the one CUDA's launcher computes (moart_cuda_splits), not the CPU targets' rule
  expect 0 "warps = 32 · the device's SMs" compile "$examples/gqa-bf16.moa" --target=cuda --emit=onf
  expect 0 "8·⌈√(n)⌉" compile "$examples/decode.moa" --target=cuda --emit=onf
  out=$("$moac" compile "$examples/decode.moa" --target=c --emit=onf 2>&1)
  [[ $out == *"clamp(⌈threads / (1)⌉"* && $out != *warps* ]] || fail "the C target's split count: $out" ;;
wider)
  "$moac" compile "$examples/gqa-bf16.moa" --target=cuda -o g.cu || fail "compile gqa-bf16"
  grep -q "moa_gqa_bf16_stage0_pack8(" g.cu || fail "no kernel of 8 values a warp"
  grep -q "^static int moa_gqa_bf16_wider_P_online(int64_t B, " g.cu || fail "no test of the heads' divisions"
  tr -d ' \n' <g.cu >flat.cu # clang-format's line breaks aside
  grep -q "for(int64_tj=0;moa_wider&&!moa_overflow&&j<hq;++j)moa_wider=moart_floordiv_checked(moart_mul_checked(hkv,j,&moa_overflow),hq,&moa_overflow)==moart_floordiv_checked(moart_mul_checked(moart_mul_checked(8,hkv,&moa_overflow),moart_floordiv_checked(j,8,&moa_overflow),&moa_overflow),hq,&moa_overflow);" flat.cu ||
    fail "the test does not compare the heads' divisions"
  # the layout function and the launcher both make the test and count P over the wider kernel's frames with it
  [ "$(grep -c "const int moa_wider_P_online = moa_gqa_bf16_wider_P_online(B, hq, hkv, n, dk, dv);" g.cu)" = 2 ] ||
    fail "the layout function and the launcher do not both test"
  grep -q "P_online=moart_cuda_splits(moa_wider_P_online?moart_mul_checked(B,moart_floordiv_checked(moart_add_checked(hq,7,&overflow),8,&overflow),&overflow):moart_mul_checked(B,moart_floordiv_checked(moart_add_checked(hq,3,&overflow),4,&overflow),&overflow),n," flat.cu ||
    fail "the layout's split count does not count the wider kernel's frames"
  grep -q "P_online=moart_cuda_splits(moa_wider_P_online?B\*moart_floordiv((hq+7),8):B\*moart_floordiv((hq+3),4),n," flat.cu ||
    fail "the launcher's split count does not count the wider kernel's frames"
  grep -q "((moa_wider_P_online?B\*(((hq)+7)/8)\*P_online:moa_total)+3)/4;if(moa_total>0&&moa_wider_P_online)" flat.cu ||
    fail "the blocks of the wider kernel"
  expect 0 "(B*((hq + 7) div 8)) for (B*((hq + 3) div 4)) where every 8 adjacent values of j read the same rows" \
    compile "$examples/gqa-bf16.moa" --target=cuda --emit=onf
  expect 0 "also a kernel whose warps take 8 values of j" explain "$examples/gqa-bf16.moa" --target=cuda
  for args in "--schedule=pack=4" "--schedule=mma=off" ""; do
    f=$examples/gqa-bf16.moa
    [ -z "$args" ] && f=$examples/gqa.moa
    "$moac" compile "$f" --target=cuda $args -o h.cu || fail "compile $f $args"
    ! grep -q "_pack8\|moa_wider\|_wider_" h.cu || fail "$f $args: a wider kernel"
  done
  echo "ok   the wider pack where tiles run at the default pack, and only there" ;;
explain)
  for f in "$examples"/*.moa; do
    for schedule in fuse=on fuse=off; do
      expect 0 "ONF for CUDA" explain "$f" --target=cuda --schedule "$schedule"
      expect 0 "" explain "$f" --target=cuda --schedule "$schedule" --html -o page.html
      grep -q "generated C (cuda)" page.html || fail "$f: the page has no CUDA pane"
      grep -q "__global__" page.html || fail "$f: the page shows no kernel"
    done
  done ;;
*) fail "unknown case $case" ;;
esac
