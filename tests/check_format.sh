#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Every C++ file is as .clang-format says (clang-format 14, the one Debian 12 ships: another version formats
# some constructs differently). Fails naming the files and lines that differ; `cmake --build build --target
# format` rewrites them.
# Usage: check_format.sh SOURCE_DIR
set -uo pipefail
root=${1:?usage: check_format.sh SOURCE_DIR}
cd "$root" || exit 1
formatter=$(command -v clang-format-14) || { echo "FAIL: clang-format-14 is not installed"; exit 1; }

mapfile -d '' files < <(find app model redis ui tests -type f \( -name '*.cpp' -o -name '*.h' \) -print0 | sort -z)
if [ "${#files[@]}" -lt 100 ]; then
    echo "FAIL: only ${#files[@]} C++ files found under $root; wrong SOURCE_DIR?"
    exit 1
fi
report=$("$formatter" --dry-run -Werror "${files[@]}" 2>&1)
if [ -z "$report" ]; then
    echo "PASS: ${#files[@]} C++ files formatted as .clang-format says"
    exit 0
fi
printf '%s\n' "$report" | head -80
echo "FAIL: $(printf '%s\n' "$report" | grep -c 'error:') places differ from .clang-format (cmake --build build --target format fixes them)"
exit 1
