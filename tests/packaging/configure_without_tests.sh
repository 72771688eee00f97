#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A configure with -DBUILD_TESTING=OFF needs neither Qt Test nor Qt's translation tools: both are hidden from
# find_package here, the configure must succeed and define no test. The same configure with tests on must fail,
# and for the missing Qt Test (so the hiding is real and this check can fail).
# Usage: configure_without_tests.sh SOURCE_DIR
set -euo pipefail
source_dir=$1
work=$(mktemp -d /tmp/sluice-configure.XXXXXX)
trap 'rm -rf "$work"' EXIT

hidden=(-DCMAKE_DISABLE_FIND_PACKAGE_Qt6Test=ON -DCMAKE_DISABLE_FIND_PACKAGE_Qt6LinguistTools=ON)

if ! cmake -S "$source_dir" -B "$work/off" -G Ninja -DBUILD_TESTING=OFF "${hidden[@]}" >"$work/off.log" 2>&1; then
    cat "$work/off.log"
    echo "FAIL: configure with BUILD_TESTING=OFF and no Qt Test failed"
    exit 1
fi
tests=$(ctest --test-dir "$work/off" --show-only=json-v1 \
  | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["tests"]))')
if [ "$tests" != 0 ]; then
    echo "FAIL: BUILD_TESTING=OFF still defines $tests tests"
    exit 1
fi
echo "configure with BUILD_TESTING=OFF, Qt Test and LinguistTools hidden: ok, 0 tests"

if cmake -S "$source_dir" -B "$work/on" -G Ninja -DBUILD_TESTING=ON "${hidden[@]}" >"$work/on.log" 2>&1; then
    echo "FAIL: configure with BUILD_TESTING=ON succeeded although Qt Test was hidden"
    exit 1
fi
# Refused for the hidden Qt Test, not for anything else that could break a configure.
if ! grep -q 'Failed to find required Qt component "Test"' "$work/on.log"; then
    cat "$work/on.log"
    echo "FAIL: configure with BUILD_TESTING=ON failed, but not for the missing Qt Test"
    exit 1
fi
echo "configure with BUILD_TESTING=ON and Qt Test hidden: refused for the missing Qt Test, as it must be"
