#!/bin/sh
# expect.sh STATUS PATTERN COMMAND ARGS...: runs COMMAND, then checks its exit status is STATUS and that its
# standard output and error, together, match the extended regular expression PATTERN.
expected=$1
pattern=$2
shift 2
output=$("$@" 2>&1)
status=$?
printf '%s\n' "$output"
if [ "$status" -ne "$expected" ]; then
  echo "FAIL: exit status $status, expected $expected" >&2
  exit 1
fi
if ! printf '%s\n' "$output" | grep -Eq -- "$pattern"; then
  echo "FAIL: output does not match '$pattern'" >&2
  exit 1
fi
