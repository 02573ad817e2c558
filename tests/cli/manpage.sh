#!/usr/bin/env bash
# `man moac` after `cmake --install` (issue 18 item 6): the installed page is what `moac --man-page` prints,
# groff renders it without a warning, and every option of `moac --help` and of each `moac SUB --help`
# appears in the page under that subcommand.
# Usage: manpage.sh MOAC BUILD_DIR WORKDIR        (exit 77, skipped, without man or groff: scripts/setup
# installs man-db and groff-base)
set -uo pipefail
moac=$1 build=$2 work=$3
for tool in man groff; do
  command -v $tool >/dev/null || { echo "SKIP: no $tool"; exit 77; }
done
rm -rf "$work" && mkdir -p "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log" || fail "cmake --install: $(cat "$work/install.log")"
page=$work/prefix/share/man/man1/moac.1
[ -f "$page" ] || fail "the install has no share/man/man1/moac.1"
"$moac" --man-page | cmp -s - "$page" || fail "the installed page is not what moac --man-page prints"
warnings=$(groff -man -Tutf8 -ww -z "$page" 2>&1)
[ -z "$warnings" ] || fail "groff warns: $warnings"
MANPATH=$work/prefix/share/man MANWIDTH=200 man -P cat moac >"$work/moac.txt" 2>"$work/man.err" ||
  fail "man moac: $(cat "$work/man.err")"
grep -q '^NAME' "$work/moac.txt" || fail "man moac shows no NAME section"
[ "$("$work/prefix/bin/moac" --print-include-dir)" = "$work/prefix/include" ] ||
  fail "the installed moac's --print-include-dir is not PREFIX/include"
[ -f "$("$work/prefix/bin/moac" --print-library)" ] || fail "the installed moac's --print-library is no file"
# section SUB: the rendered text of subcommand SUB (the page's OPTIONS for moac itself)
section() {
  if [ -z "$1" ]; then
    sed -n '/^OPTIONS/,/^COMMANDS/p' "$work/moac.txt"
  else
    sed -n "/^   moac $1 FILE.moa/,/^   moac [a-z]* FILE.moa\|^EXIT STATUS/p" "$work/moac.txt" | sed '$d'
  fi
}
for sub in "" compile explain check run; do
  text=$(section "$sub")
  [ -n "$text" ] || fail "no section for '$sub'"
  n=0
  for opt in $("$moac" $sub --help | grep -oE '^  (-[a-zA-Z],)?--[a-z][-a-z]*' | sed 's/^  //; s/,/ /'); do
    grep -qE -- "(^|[ ,])$opt( |,|$)" <<<"$text" || fail "'$opt' of 'moac $sub --help' is not in the page's section"
    n=$((n + 1))
  done
  [ $n -gt 2 ] || fail "too few options found for '$sub'"
  echo "ok   moac $sub: $n options in the page"
done
echo PASS
