#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The limiter library the build joined (BUILD_DIR/lua/sluice.lua, compiled into the binaries) is every part
# in lua/limiter/, each once, in the order lua/CMakeLists.txt declares: nothing left out, doubled or moved.
# Usage: check_library_parts.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
source_dir=${1:?usage: check_library_parts.sh SOURCE_DIR BUILD_DIR}
build_dir=${2:?usage: check_library_parts.sh SOURCE_DIR BUILD_DIR}
order=$build_dir/lua/limiter_parts.txt
joined=$build_dir/lua/sluice.lua
failed=0
fail() { echo "FAIL: $*"; failed=1; }

[ -s "$order" ] || { echo "FAIL: no declared order at $order (configure first)"; exit 1; }
[ -s "$joined" ] || { echo "FAIL: no joined library at $joined"; exit 1; }

mapfile -t declared < "$order"
doubled=$(printf '%s\n' "${declared[@]}" | sort | uniq -d)
[ -z "$doubled" ] || fail "declared more than once: $doubled"

on_disk=$(cd "$source_dir/lua/limiter" && ls -- *.lua | sed 's/\.lua$//' | sort)
listed=$(printf '%s\n' "${declared[@]}" | sort -u)
missing=$(comm -23 <(echo "$on_disk") <(echo "$listed"))
absent=$(comm -13 <(echo "$on_disk") <(echo "$listed"))
[ -z "$missing" ] || fail "parts in lua/limiter/ that the order leaves out: $missing"
[ -z "$absent" ] || fail "parts the order names that lua/limiter/ lacks: $absent"

paths=()
for part in "${declared[@]}"; do paths+=("$source_dir/lua/limiter/$part.lua"); done
if ! cmp -s "$joined" <(cat "${paths[@]}" 2>/dev/null); then
    fail "$joined is not the parts joined in the declared order (rebuild, or the join changed)"
fi

if [ "$failed" -eq 0 ]; then
    echo "PASS: ${#declared[@]} parts joined once each, in the declared order ($(wc -c < "$joined") bytes)"
fi
exit "$failed"
