#!/usr/bin/env bash
# `moac check` removes its temporary folder when SIGINT or SIGTERM stops it, and dies of that signal. The
# signal comes from the --cc command itself (this script, re-entered with --cc), which finds its moac among
# its ancestors: it arrives while moac waits for the compiler, deterministically, without a sleep.
# Usage: check-signal.sh MOAC EXAMPLE.moa WORKDIR INT|TERM
set -uo pipefail
if [ "${1:-}" = --cc ]; then
  p=$PPID
  while [ "$p" -gt 1 ] && [ "$(cat /proc/$p/comm)" != moac ]; do p=$(cut -d' ' -f4 /proc/$p/stat); done
  kill -"$2" "$p"
  exit 1
fi
moac=$1 example=$2 work=$3 sig=$4
rm -rf "$work" && mkdir -p "$work/tmp" || exit 1
TMPDIR=$work/tmp "$moac" check "$example" --dims n=8,dk=4,dv=4 --cc "$0 --cc $sig" >"$work/out.txt" 2>&1
rc=$?
want=$((128 + $(kill -l "$sig")))
[ $rc -eq $want ] || { echo "FAIL: moac check exit status $rc, expected $want (killed by SIG$sig)"; cat "$work/out.txt"; exit 1; }
left=$(ls -A "$work/tmp")
[ -z "$left" ] || { echo "FAIL: SIG$sig left $left in TMPDIR"; exit 1; }
echo "ok   SIG$sig: moac check stopped ($rc) and removed its temporary folder"
