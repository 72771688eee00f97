#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# lupdate, without the build's -silent, over every source that holds strings: it must print no warning (a
# tr() whose context it cannot tell files its string under the wrong one, where a translator would not find it).
# Usage: check_translations.sh SOURCE_DIR LUPDATE
set -uo pipefail
root=${1:?usage: check_translations.sh SOURCE_DIR LUPDATE}
lupdate=${2:?usage: check_translations.sh SOURCE_DIR LUPDATE}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$root" || exit 1
find app model redis ui -name '*.cpp' | sort > "$work/sources"
count=$(wc -l < "$work/sources")
[ "$count" -ge 100 ] || { echo "FAIL: only $count sources under $root; wrong SOURCE_DIR?"; exit 1; }
"$lupdate" -I "$root" -locations none "@$work/sources" -ts "$work/sluice.ts" > "$work/out" 2>&1
status=$?
warnings=$(grep -v -e '^Updating ' -e '^ *Found [0-9]* source text' -e '^ *Kept [0-9]* obsolete' "$work/out")
if [ "$status" -ne 0 ] || [ -n "$warnings" ]; then
    cat "$work/out"
    echo "FAIL: lupdate exited $status and printed the warnings above"
    exit 1
fi
contexts=$(grep -c '<context>' "$work/sluice.ts")
echo "PASS: lupdate read $count sources without a warning: $(grep -o 'Found [0-9]* source text(s)' "$work/out" | head -1), $contexts contexts"
