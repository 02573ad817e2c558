#!/usr/bin/env bash
# The bash completion (scripts/moac-completion.bash), driven as bash drives it: COMP_WORDS and COMP_CWORD
# set, _moac called, COMPREPLY checked (issue 18 item 6; docs/cli.md).
# Usage: completion.sh MOAC COMPLETION_SCRIPT WORKDIR
set -uo pipefail
moac=$1 script=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
# shellcheck disable=SC1090
source "$script"
touch "my file.moa" k.moa notes.txt && mkdir "sub dir"
# expect 'A|B|' WORD...: completing the last WORD of `moac WORD...` offers exactly A, B (sorted)
expect() {
  local want=$1 got
  shift
  COMP_WORDS=("$moac" "$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  _moac
  got=$(printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort | tr '\n' '|')
  [ "${#COMPREPLY[@]}" -gt 0 ] || got=
  [ "$got" = "$want" ] || fail "moac $*: offered '$got', expected '$want'"
  echo "ok   moac $* -> $want"
}
stages=$("$moac" --list-stages | cut -f1 | LC_ALL=C sort | tr '\n' '|')
# With COMP_WORDBREAKS holding '=' (bash's default) `--emit=` arrives as three words.
COMP_WORDBREAKS=$' \t\n"\'><=;|&(:'
expect "$stages" compile k.moa --emit =
expect 'onf|' compile k.moa --emit = o
expect 'openacc|openmp|' compile k.moa --target = o
expect 'openacc|openmp|' explain k.moa --target o
expect 'none|nvptx|' check k.moa --offload =
expect 'moarr|npy|' run k.moa --array-format =
expect 'json|text|' compile k.moa --diagnostics-format =
expect 'always|auto|never|' --color =
expect '--offload|' check k.moa --offl
expect 'compile|' comp
# Names with spaces stay whole, typed quoted or escaped; .moa files and folders for the program.
expect 'my file.moa|' compile '"my f'
expect 'my file.moa|' compile "'my f"
expect 'my file.moa|' compile 'my\ f'
expect 'k.moa|my file.moa|sub dir|' run ''
expect 'sub dir|' run k.moa --outputs ''
expect 'k.moa|my file.moa|notes.txt|sub dir|' compile k.moa -o ''
expect 'my file.moa|' compile k.moa --header = '"my'
expect '' run k.moa --dims ''
expect 'k.moa|my file.moa|sub dir|' compile k.moa --ascii ''
# Without '=' in COMP_WORDBREAKS `--emit=` is one word, and so is each offer.
COMP_WORDBREAKS=$' \t\n"\'><;|&(:'
expect '--emit=dnf|' compile k.moa --emit=d
expect '--target=c|--target=cuda|--target=openacc|--target=openmp|' compile k.moa --target=
# Every option of every subcommand's --help is offered after `-`, and nothing else.
for sub in "" compile explain check run; do
  want=$("$moac" $sub --help | grep -oE '^  (-[a-zA-Z],)?--[a-z][-a-z]*' | sed 's/^  //; s/,/\n/' | LC_ALL=C sort |
    tr '\n' '|')
  if [ -n "$sub" ]; then expect "$want" "$sub" k.moa -; else expect "$want" -; fi
  [[ $want == *--help* ]] || fail "no options parsed from moac $sub --help"
done
[[ $("$moac" check --help) == *--offload* ]] || fail "moac check has no --offload"
echo PASS
