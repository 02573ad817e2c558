#!/usr/bin/env bash
# Generated text is sealed (issue 13 item 7; docs/abi.md, "Generated comments"): file names, the command
# line and the .moa source copied into the generated files' comments cannot change the C, and the files
# do not depend on where the build machine keeps the tree.
# Usage: sealed.sh MOAC RUNTIME_INCLUDE WORKDIR CASE
#   path         an input path holding `*/ int injected; /*`, `??/`, a newline and a bidi control
#   comments     .moa comments ending in `??/` and a backslash, holding bidi controls, `/*` and `*/`
#   int64-min    an integer constant -2^63 in the kernel (was `-INT64_C(9223372036854775808)`)
#   determinism  the same program from two folders of different absolute paths, named relatively and
#                absolutely: the same bytes, and no absolute path in them
set -uo pipefail
moac=$1 include=$2 work=$3 case=$4
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
# builds K.c (with its header K.h beside it) with gcc and clang, -std=c99 -Wall -Wextra -Werror; the
# object must define the kernel and nothing that a comment smuggled in
builds() {
  local c=$1 cc
  for cc in gcc clang; do
    command -v $cc >/dev/null || { echo "skip: no $cc"; continue; }
    $cc -std=c99 -Wall -Wextra -Werror -I"$include" -I"$(dirname "$c")" -c "$c" -o k.o || fail "$cc rejects $c"
    nm k.o | grep -q ' T moa_' || fail "$cc: $c defines no kernel"
    ! nm k.o | grep -q injected || fail "$cc: $c defines what the input path injected"
    echo "ok   $cc -std=c99 -Wall -Wextra -Werror $c"
  done
}
program='dim n
in x : f32[n]
out y = x * 2.0
'
case $case in
path)
  dir=$'x*/ int injected; /*??/\nevil\u202e'
  mkdir -p "$dir" && printf '%s' "$program" >"$dir/k.moa"
  "$moac" compile "$dir/k.moa" -o k.c --header k.h || fail "moac compile"
  builds k.c
  grep -q 'x\* / int injected; / \*?? /<U+000A>evil<U+202E>/k.moa' k.c || fail "the path is not recorded sealed: $(grep 'moac compile' k.c)"
  "$moac" compile "$PWD/$dir/k.moa" -o abs.c --header k.h || fail "moac compile (absolute path)"
  cmp k.c abs.c || fail "the absolute and the relative path give different kernels"
  ;;
comments)
  printf '%s' $'dim n\nin x : f32[n]   # a comment ending in a trigraph ??/\n' \
    $'# bidi: \u202e reversed \u2066 isolated \u2069, and ??= ??( ??) ??< ??> ??! ??\' ??-\n' \
    $'# nested /* opens, */ closes, and a splice follows \\\n' \
    $'out y = x * 2.0 # and a control character \x01 here\n' >k.moa
  "$moac" compile k.moa -o k.c --header k.h || fail "moac compile"
  builds k.c
  for sealed in '?? /' '<U+202E> reversed <U+2066> isolated <U+2069>' '/ \* opens, \* / closes' \
                'splice follows <U+005C>$' '<U+0001> here' "?? = ?? ( ?? ) ?? < ?? > ?? ! ?? ' ?? -"; do
    grep -q -- "$sealed" k.c || fail "k.c lacks the sealed text '$sealed'"
  done
  ! grep -q $'\u202e' k.c || fail "a bidi control reached k.c"
  ;;
int64-min)
  printf 'dim n\nin x : f32[n]\nout y = (iota 3) + (0 - 9223372036854775807 - 1)\nout z = x * (0 - 9223372036854775807 - 1)\n' >k.moa
  "$moac" compile k.moa -o k.c --header k.h || fail "moac compile"
  ! grep -q 'INT64_C(9223372036854775808)' k.c || fail "k.c spells 2^63: $(grep 'INT64_C(9223372036854775808)' k.c)"
  grep -q 'INT64_MIN' k.c || fail "k.c lacks INT64_MIN"
  builds k.c
  ;;
determinism)
  for root in a "b/a much/longer absolute prefix"; do
    mkdir -p "$root/src" "$root/out"
    printf '%s' "$program" >"$root/src/k.moa"
    (cd "$root" && "$moac" compile src/k.moa -o out/rel.c --header out/k.h && cp out/k.h out/rel.h &&
       "$moac" compile "$PWD/src/k.moa" -o out/abs.c --header out/k.h && cp out/k.h out/abs.h &&
       cd src && "$moac" compile "$PWD/k.moa" -o ../out/here.c --header ../out/k.h) || fail "moac compile in $root"
  done
  for f in rel.c rel.h abs.c abs.h here.c k.h; do
    cmp "a/out/$f" "b/a much/longer absolute prefix/out/$f" || fail "$f differs between the two folders"
  done
  cmp a/out/rel.c a/out/abs.c || fail "an absolute input path changed the kernel"
  ! grep -rq -- "$work" a/out "b/a much/longer absolute prefix/out" || fail "an absolute path reached a generated file"
  echo "ok   the same bytes from $work/a and $work/b/a much/longer absolute prefix"
  ;;
*) fail "unknown case $case" ;;
esac
echo PASS
