#!/usr/bin/env bash
# The command line as a compiler's (issue 18 item 5, docs/cli.md "Usage errors").
# Usage: usage.sh MOAC DSL_EXAMPLES WORKDIR CASE
#   suggest     a misspelt subcommand, option or option value gets "did you mean" the nearest name
#   enum-names  option values by name only: --target=2, --target=OpenMP, --emit=CODE, --offload=1 are refused
#   style       usage errors of every subcommand: one line `moac: error: …`, exit 2, nothing on stdout
#   json        --diagnostics-format=json: one JSON array (python3's json parses it) with file, line, column,
#               severity, message and notes, on every subcommand; unlocated diagnostics have null locations
#   verbose     moac check -v: each step as it starts and its time when it ends, in order; --time: a summary
set -uo pipefail
moac=$1 examples=$2 work=$3 case=$4
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
# usage MESSAGE ARGS...: moac ARGS exits 2 with exactly one line on stderr, `moac: error: MESSAGE`, and no stdout
usage() {
  local want=$1 out err rc
  shift
  out=$("$moac" "$@" 2>err.txt)
  rc=$?
  err=$(cat err.txt)
  [ $rc -eq 2 ] || fail "moac $*: exit $rc, expected 2: $err"
  [ -z "$out" ] || fail "moac $*: wrote to stdout: $out"
  [ "$(wc -l <err.txt)" -eq 1 ] || fail "moac $*: more than one line: $err"
  [ "$err" = "moac: error: $want" ] || fail "moac $*: said '$err', expected 'moac: error: $want'"
  echo "ok   moac $*"
}
printf 'dim n\nin x : f32[n]\nout y = x * 2.0\n' >k.moa
decode=$examples/decode.moa
case $case in
suggest)
  usage "unknown subcommand 'compil'; did you mean 'compile'?" compil k.moa
  usage "unknown subcommand 'chek'; did you mean 'check'?" chek k.moa
  usage "unknown subcommand 'frobnicate' (expected compile, explain, check, run)" frobnicate k.moa
  usage "unknown option '--emti' for 'moac compile'; did you mean '--emit'?" compile k.moa --emti=code
  usage "unknown option '--tagret' for 'moac explain'; did you mean '--target'?" explain k.moa --tagret openmp
  usage "unknown option '--offlaod' for 'moac check'; did you mean '--offload'?" check k.moa --dims n=2 --offlaod=nvptx
  usage "unknown option '--inptus' for 'moac run'; did you mean '--inputs'?" run k.moa --dims n=2 --inptus d
  usage "unknown option '--zzzzzz' for 'moac run'" run k.moa --zzzzzz
  usage "--target: 'opnemp' is not one of c, openmp, openacc, cuda; did you mean 'openmp'?" compile k.moa --target=opnemp
  usage "--emit: 'dfn' is not one of tokens, ast, shapes, dnf, onf, code; did you mean 'dnf'?" compile k.moa --emit dfn
  usage "--color: 'nevr' is not one of auto, always, never; did you mean 'never'?" run k.moa --dims n=2 --color=nevr
  usage "--diagnostics-format: 'jsn' is not one of text, json; did you mean 'json'?" compile k.moa --diagnostics-format=jsn
  ;;
enum-names)
  usage "--target: '2' is not one of c, openmp, openacc, cuda" compile k.moa --target=2
  usage "--target: '0' is not one of c, openmp, openacc, cuda" check k.moa --dims n=2 --target=0
  usage "--target: 'OpenMP' is not one of c, openmp, openacc, cuda; did you mean 'openmp'?" explain k.moa --target=OpenMP
  usage "--emit: 'CODE' is not one of tokens, ast, shapes, dnf, onf, code; did you mean 'code'?" compile k.moa --emit=CODE
  usage "--offload: '1' is not one of none, nvptx" check k.moa --dims n=2 --offload=1
  usage "--color: '1' is not one of auto, always, never" compile k.moa --color=1
  for t in c openmp openacc; do
    "$moac" compile k.moa --target=$t >/dev/null || fail "--target=$t refused"
  done
  echo "ok   every target by name"
  ;;
style)
  usage "a subcommand is required: compile, explain, check or run (moac --help lists them)" --color=never
  usage "'moac compile' needs the program: a .moa file, or - for standard input" compile
  usage "unexpected argument 'x.moa' for 'moac compile'" compile k.moa x.moa
  usage "--schedule: unknown schedule key 'bogus' (threads, chunk, block, layout, fuse, reuse, scores, splits, lanes, tile, prefetch, pack, ahead, mma)" compile k.moa --schedule bogus=1
  usage "--schedule: unknown schedule key 'bogus' (threads, chunk, block, layout, fuse, reuse, scores, splits, lanes, tile, prefetch, pack, ahead, mma)" explain k.moa --schedule bogus=1
  usage "--schedule: unknown schedule key 'bogus' (threads, chunk, block, layout, fuse, reuse, scores, splits, lanes, tile, prefetch, pack, ahead, mma)" check k.moa --dims n=2 --schedule bogus=1
  usage "--schedule: schedule value 3 for pack must be a power of two at most 32" compile k.moa --schedule pack=3
  usage "--schedule: schedule value 64 for pack must be a power of two at most 32" compile k.moa --schedule pack=64
  usage "--schedule: schedule value 5 for ahead must be at most 4" compile k.moa --schedule ahead=5
  usage "--schedule: schedule value 1025 for tile must be at most 1024" compile k.moa --schedule tile=1025
  usage "--schedule: schedule value 4097 for prefetch must be from 0 to 4096" compile k.moa --schedule prefetch=4097
  usage "--schedule: schedule value -1 for prefetch must be from 0 to 4096" compile k.moa --schedule prefetch=-1
  usage "--schedule: mma must be on or off, not 'maybe'" compile k.moa --schedule mma=maybe
  usage "--dims: 'n' is not NAME=VALUE (expected e.g. n=8,dk=4)" run k.moa --dims n
  usage "--dims: 'n' is not NAME=VALUE (expected e.g. n=8,dk=4)" check k.moa --dims n
  usage "could not convert: --seed = abc" run k.moa --dims n=2 --seed abc
  usage "--depfile needs -o FILE, and --header FILE if given: a make target is a file" \
    compile k.moa --depfile k.d
  ;;
json)
  printf 'dim n\nin x : f32[n]\ny = x + 1.0\ny = x * 2.0\nout z = y + w\n' >bad.moa
  for sub in compile explain "run --dims n=2" "check --dims n=2"; do
    # shellcheck disable=SC2086
    "$moac" $sub bad.moa --diagnostics-format=json >/dev/null 2>err.json
    rc=$?
    [ $rc -eq 1 ] || fail "moac $sub: exit $rc, expected 1"
    /usr/bin/python3 - err.json <<'PY' || fail "moac $sub: the JSON is not what was expected: $(cat err.json)"
import json, sys
diags = json.load(open(sys.argv[1]))
assert [d["message"] for d in diags] == ["redefinition of 'y'", "unknown name 'w'"], diags
first = diags[0]
assert (first["file"], first["line"], first["column"], first["severity"]) == ("bad.moa", 4, 1, "error"), first
assert first["notes"] == [{"file": "bad.moa", "line": 3, "column": 1, "severity": "note",
                           "message": "previous definition of 'y' is here"}], first["notes"]
assert (diags[1]["line"], diags[1]["column"], diags[1]["notes"]) == (5, 13, []), diags[1]
PY
    echo "ok   moac $sub --diagnostics-format=json"
  done
  "$moac" --diagnostics-format json compile missing.moa 2>err.json
  [ $? -eq 1 ] || fail "missing file: exit status"
  /usr/bin/python3 -c '
import json, sys
[d] = json.load(open("err.json"))
assert d["file"] is None and d["line"] is None and d["column"] is None, d
assert d["message"].startswith("cannot read '"'"'missing.moa'"'"'"), d' || fail "unlocated: $(cat err.json)"
  "$moac" compile k.moa --diagnostics-format=json >/dev/null 2>err.json || fail "a clean program failed"
  [ "$(cat err.json)" = "[]" ] || fail "a clean program's diagnostics are not []: $(cat err.json)"
  echo "ok   unlocated diagnostics and a clean program"
  # a usage error found once the command line is parsed is an element too, with exit status 2
  for sub in "compile k.moa --schedule bogus=1" "explain k.moa --schedule bogus=1" \
    "check k.moa --dims n=2 --schedule bogus=1" "compile k.moa -o k.moa"; do
    # shellcheck disable=SC2086
    "$moac" $sub --diagnostics-format=json >/dev/null 2>err.json
    rc=$?
    [ $rc -eq 2 ] || fail "moac $sub: exit $rc, expected 2"
    /usr/bin/python3 -c '
import json
[d] = json.load(open("err.json"))
assert (d["file"], d["line"], d["column"], d["severity"], d["notes"]) == (None, None, None, "error", []), d
assert d["message"].startswith("--schedule: unknown schedule key") or "k.moa" in d["message"], d' ||
      fail "moac $sub: the usage error is not one JSON element: $(cat err.json)"
  done
  echo "ok   usage errors in the JSON array"
  ;;
verbose)
  "$moac" check k.moa --dims n=5 -v --inputs-range=-1,1 >out.txt 2>err.txt || fail "check -v failed: $(cat err.txt)"
  grep -q PASS out.txt || fail "no PASS"
  steps=$(sed -n 's/^moac check: \([a-z]*\): .*/\1/p' err.txt | uniq | tr '\n' ' ')
  [ "$steps" = "compile build run reference compare " ] || fail "steps: '$steps' in $(cat err.txt)"
  grep -q '^moac check: build: cc -std=c99 .*harness.c' err.txt || fail "no build command: $(cat err.txt)"
  [ "$(grep -c 'done in [0-9.]* s$' err.txt)" -eq 5 ] || fail "not one time per step: $(cat err.txt)"
  "$moac" check k.moa --dims n=5 --time >out.txt 2>err.txt || fail "check --time failed"
  kinds=$(sed -n 's/^moac check: time: \([a-z]*\) .* s$/\1/p' err.txt | tr '\n' ' ')
  [ "$kinds" = "compile build run reference compare total " ] || fail "--time: '$kinds' in $(cat err.txt)"
  "$moac" check k.moa --dims n=5 >out.txt 2>err.txt || fail "check failed"
  [ ! -s err.txt ] || fail "check without -v wrote to stderr: $(cat err.txt)"
  # on a terminal (script(1) gives one), each step is a progress line, erased when it ends
  if command -v script >/dev/null; then
    script -qec "'$moac' check k.moa --dims n=5 >/dev/null" progress.txt </dev/null >/dev/null ||
      fail "check on a terminal failed"
    /usr/bin/python3 -c '
text = open("progress.txt", "rb").read().decode()
if text.startswith("Script started"):  # the typescript header and trailer of script(1)
    text = text.split("\n", 1)[1]
    text = text.rsplit("\nScript done", 1)[0].rstrip("\r\n") if "Script done" in text else text
erase = "\r\033[K"
shown = [part for part in text.split(erase) if part]
kinds = [line.split(":")[1].strip() for line in shown]
assert kinds[:2] == ["compile", "build"] and "run" in kinds and kinds[-1] == "compare", kinds
assert text.endswith(erase), "the last progress line is not erased"
assert "\n" not in text, "a progress line ended a line"' || fail "progress lines: $(cat -v progress.txt)"
  fi
  echo "ok   -v and --time"
  ;;
*) fail "unknown case $case" ;;
esac
echo PASS
