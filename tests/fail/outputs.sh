#!/usr/bin/env bash
# Outputs never clobber (docs/cli.md, "Output files"): an output naming an input or another output is a
# usage error that writes nothing; outputs are replaced by rename and left alone when unchanged; `moac run
# --outputs` names cannot collide; long names work up to the file system's limit, with a clear error past it.
# Usage: outputs.sh MOAC EXAMPLE.moa WORKDIR CASE
set -uo pipefail
moac=$1 example=$2 work=$3 case=$4
rm -rf "$work" && mkdir -p "$work/sub" && cd "$work" || exit 1
cp "$example" k.moa
fail() { echo "FAIL: $*"; exit 1; }
# refused EXPECTED-MESSAGE ARGS...: exit 2, the message, and k.moa and every existing file as they were
refused() {
  local want=$1 out rc before
  shift
  before=$(ls -l --time-style=+%s.%N; cat k.moa | md5sum)
  out=$("$moac" "$@" 2>&1)
  rc=$?
  [ $rc -eq 2 ] || fail "moac $*: exit $rc, expected 2: $out"
  [[ $out == *"$want"* ]] || fail "moac $*: message '$out' lacks '$want'"
  [ "$before" = "$(ls -l --time-style=+%s.%N; cat k.moa | md5sum)" ] || fail "moac $* changed the folder"
  echo "ok   moac $*: $out"
}
case $case in
input)
  refused "-o 'k.moa' is the input 'k.moa'" compile k.moa -o k.moa
  refused "-o './sub/../k.moa' is the input 'k.moa'" compile k.moa -o ./sub/../k.moa
  refused "-o '$work/k.moa' is the input 'k.moa'" compile k.moa -o "$work/k.moa"
  ln k.moa hard.moa && refused "-o 'hard.moa' is the input 'k.moa'" compile k.moa -o hard.moa
  ln -s k.moa soft.moa && refused "-o 'soft.moa' is the input 'k.moa'" compile k.moa -o soft.moa
  refused "--header 'k.moa' is the input" compile k.moa -o k.c --header k.moa
  refused "--depfile 'k.moa' is the input" compile k.moa -o k.c --depfile k.moa
  refused "-o 'k.moa' is the input" explain k.moa -o k.moa
  [ ! -e k.c ] || fail "a refused compilation wrote k.c"
  ;;
each-other)
  refused "-o 'x.c' and --header 'x.c' are the same file" compile k.moa -o x.c --header x.c
  refused "-o 'x.c' and --header 'sub/../x.c' are the same file" compile k.moa -o x.c --header sub/../x.c
  refused "-o 'x.c' and --depfile 'x.c' are the same file" compile k.moa -o x.c --header x.h --depfile x.c
  refused "--header 'x.h' and --depfile './x.h' are the same file" compile k.moa -o x.c --header x.h --depfile ./x.h
  refused "-o and --header both write to standard output" compile k.moa --header -
  echo old >x.c && refused "-o 'x.c' and --header 'x.c'" compile k.moa -o x.c --header x.c
  ;;
unchanged)
  # The same output again is not rewritten (mtime kept); a different one replaces the file by rename (a
  # new inode), never leaving a temporary file behind.
  "$moac" compile k.moa -o k.c --header k.h --depfile k.d || fail "first compile"
  touch -d @1000000000 k.c k.h k.d
  "$moac" compile k.moa -o k.c --header k.h --depfile k.d || fail "second compile"
  for f in k.c k.h k.d; do
    [ "$(stat -c %Y $f)" = 1000000000 ] || fail "$f was rewritten with the same content"
  done
  inode=$(stat -c %i k.c)
  chmod 640 k.c
  "$moac" compile k.moa -o k.c --target=openmp || fail "third compile"
  [ "$(stat -c %i k.c)" != "$inode" ] || fail "k.c was overwritten in place, not replaced by rename"
  [ "$(stat -c %a k.c)" = 640 ] || fail "k.c lost its permissions: $(stat -c %a k.c)"
  grep -q "omp" k.c || fail "k.c does not hold the new kernel"
  "$moac" run k.moa --dims n=8,dk=4,dv=4 --outputs run >/dev/null || fail "run --outputs"
  touch -d @1000000000 run/*.moarr
  "$moac" run k.moa --dims n=8,dk=4,dv=4 --outputs run >/dev/null || fail "run --outputs again"
  for f in run/*.moarr; do [ "$(stat -c %Y "$f")" = 1000000000 ] || fail "$f was rewritten"; done
  leftovers=$(ls -A . run | grep '^\.moac-') && fail "temporary files left: $leftovers"
  echo "ok   unchanged outputs kept, changed ones renamed into place"
  ;;
run-names)
  # An input named inout_k beside the inout k: the updated k must not overwrite it, so a second run from
  # the written files prints what the first printed.
  cat >u.moa <<'MOA'
dim t, cap
inout k : f64[cap]
in  inout_k : f64[1]
k = (t take k) cat inout_k
out o = (+/ k) + (+/ inout_k)
MOA
  "$moac" run u.moa --dims t=1,cap=3 --outputs files >first.txt || fail "first run"
  "$moac" run u.moa --dims t=1,cap=3 --inputs files >second.txt || fail "second run: $(cat second.txt)"
  cmp first.txt second.txt || fail "the files written by the first run are not its inputs"
  [ -s files/k.updated.moarr ] || fail "no files/k.updated.moarr: $(ls files)"
  cp u.moa files/o.moarr
  refused "output file 'files/o.moarr' is the program 'files/o.moarr'" run files/o.moarr --dims t=1,cap=3 --outputs files
  echo "ok   run --outputs names do not collide"
  ;;
long-names)
  limit=$(getconf NAME_MAX .)
  fits=$(printf 'a%.0s' $(seq $((limit - 6))))   # NAME.moarr is exactly the limit
  printf 'dim n\nin x : f64[n]\nout %s = +/ x\nout %sb = +/ x\n' "$fits" "$fits" >long.moa
  out=$("$moac" run long.moa --dims n=2 --outputs files 2>&1)
  [ $? -eq 1 ] || fail "a file name past the limit: exit status not 1: $out"
  [ -s "files/$fits.moarr" ] || fail "a $limit-byte file name was not written"
  [[ $out == *"the file name has $((limit + 1)) bytes, and this file system allows at most $limit"* ]] ||
    fail "unclear error past the limit: $out"
  echo "ok   run: $out"
  name=$(printf 'c%.0s' $(seq $((limit - 2)))).c
  "$moac" compile k.moa -o "$name" || fail "compile -o with a $limit-byte name"
  out=$("$moac" compile k.moa -o "x$name" 2>&1)
  [ $? -eq 1 ] && [[ $out == *"allows at most $limit"* ]] || fail "compile -o past the limit: $out"
  echo "ok   compile: $out"
  ;;
*) fail "unknown case $case" ;;
esac
exit 0
