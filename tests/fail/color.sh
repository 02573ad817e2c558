#!/usr/bin/env bash
# --color and NO_COLOR, for every subcommand: `always` colours (ESC[ in the diagnostics) whether given before
# the subcommand or after it, `never` does not, and `auto` colours on a terminal only when NO_COLOR is
# unset or empty (the terminal comes from script(1); that part is skipped without it).
# Usage: color.sh MOAC PROGRAM.moa (a program with an error)
set -uo pipefail
moac=$1 bad=$2
esc=$'\e['
status=0
expect() { # expect yes|no DESCRIPTION COMMAND...
  local want=$1 what=$2 out
  shift 2
  out=$("$@" 2>&1)
  local got=no
  [[ $out == *"$esc"* ]] && got=yes
  if [ "$got" != "$want" ]; then
    echo "FAIL: $what: colour $got, expected $want"
    status=1
  else
    echo "ok   $what"
  fi
}
for sub in compile explain check run; do
  extra=()
  case $sub in check | run) extra=(--dims n=2) ;; esac
  expect yes "moac --color always $sub" "$moac" --color always $sub "$bad" "${extra[@]}"
  expect yes "moac $sub --color always" "$moac" $sub "$bad" "${extra[@]}" --color always
  expect no "moac --color never $sub" "$moac" --color never $sub "$bad" "${extra[@]}"
  expect no "moac $sub (auto, not a terminal)" "$moac" $sub "$bad" "${extra[@]}"
done
if command -v script >/dev/null; then
  expect yes "auto on a terminal" env -u NO_COLOR script -qec "$moac compile $bad" /dev/null
  expect no "auto on a terminal with NO_COLOR=1" env NO_COLOR=1 script -qec "$moac compile $bad" /dev/null
  expect yes "auto on a terminal with NO_COLOR empty" env NO_COLOR= script -qec "$moac compile $bad" /dev/null
fi
exit $status
