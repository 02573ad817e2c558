#!/bin/sh
# test_moarr_py.sh - scripts/moarr.py against libmoart: files and the seeded
# fill must agree bit for bit in both directions (test_moarr.py does the work).
# Usage: test_moarr_py.sh MOARR_TOOL SCRIPTS_DIR WORK_DIR [SCRIPT]  (SCRIPT: test_moarr.py by default;
# test_npy.py checks the .npy files against numpy the same way)
# Exits 77 (CTest's skip code) when /usr/bin/python3 cannot import numpy.
set -eu
tool=$1
scripts=$2
work=$3
python=${MOARR_PYTHON:-/usr/bin/python3} # override only to test the skip

if ! "$python" -c 'import numpy' >/dev/null 2>&1; then
  echo "SKIP: $python cannot import numpy (apt-get install python3-numpy)"
  exit 77
fi
rm -rf "$work"
mkdir -p "$work"
exec "$python" "$(dirname "$0")/${4:-test_moarr.py}" "$tool" "$scripts" "$work"
