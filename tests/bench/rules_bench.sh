#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Subject rules benchmark (issue 40): what overrides and penalties cost, in the server's instructions per
# call under callgrind (the same on every run, however busy the machine).
#
#  1. Before and after, in one run: the library as it was before overrides, penalties and calendars
#     (commit $before_rev, its parts read from git) and the library of this build, both loaded with the
#     same plain policies, on the plain paths (token bucket, fixed and sliding window, admitted and
#     rejected, the lean entry point), and the library before once more, to show what the same code
#     measures twice. Target: at most 2% more instructions after.
#  2. A policy with 10,000 overrides beside the same policy without: a subject that has an override, one
#     that has none, on the allow and deny paths; a penalised subject while blocked; the library's load
#     time and Lua memory with the overrides.
#  3. The same plain policy in a namespace whose allow and deny lists hold 1,000 entries (500 exact
#     subjects, 500 prefixes of 8 lengths), for a subject on none of them.
# Exits non-zero only when it cannot measure (a command fails, the server dies), never on a figure; a
# source tree without the old commit's history says so and measures the rest.
#
# Usage: tests/bench/rules_bench.sh [BUILD_DIR] [CALLS]    (defaults: build, 10000)
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
calls=${2:-10000}
ctl="$build/app/sluicectl"
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
# The last commit before the subject rules: what "before" means.
before_rev=665fb94
started=$SECONDS

server_wrapper=(valgrind --tool=callgrind '--callgrind-out-file=@work@/callgrind.%p')
# shellcheck source=tests/bench/pinned_server.sh
source "$(dirname "$0")/pinned_server.sh"

# The static part of the library before: its parts in the order its lua/CMakeLists.txt joined them. A
# source tree without that history (an archive, a shallow clone) measures the rest and says so.
git_show() { git -c safe.directory='*' -C "$source_dir" show "$before_rev:$1" 2>/dev/null; }
sides=(old001 new001 old002)
if old_cmake=$(git_show lua/CMakeLists.txt); then
  for part in $(sed -n '/^set(limiter_parts/,/)/p' <<<"$old_cmake" | sed 's/^set(limiter_parts//; s/)//'); do
    git_show "lua/limiter/$part.lua" >> "$work/before.lua"
  done
  [ -s "$work/before.lua" ] || { echo "$bench_name: the library of $before_rev is empty" >&2; exit 1; }
else
  sides=()
fi

# library NAME STATIC: a library of the plain policies (namespace NAME) around a static part, made the way
# the publisher makes one (model/limiter/limiter_library.cpp) so that only the static part differs.
library() {
  cat <<EOF
#!lua name=$1
local LIBRARY = {name = "$1", version = 1, digest = "$1", code = "bench", lease_secret = "00000000000000000000000000000000"}
local NAMESPACE = "$1"
local DATABASE = 0
local POLICIES = {
    ["fw_allow"] = {algorithm = "fixed_window", limit = 1000000000, window_ms = 3600000, burst = 1000000000, shadow = false, description = ""},
    ["fw_deny"] = {algorithm = "fixed_window", limit = 1, window_ms = 3600000, burst = 1, shadow = false, description = ""},
    ["tb_allow"] = {algorithm = "token_bucket", limit = 1000000000, window_ms = 3600000, burst = 1000000000, shadow = false, description = ""},
    ["tb_deny"] = {algorithm = "token_bucket", limit = 1, window_ms = 3600000, burst = 1, shadow = false, description = ""},
    ["sw_allow"] = {algorithm = "sliding_window", limit = 1000000000, window_ms = 3600000, burst = 1000000000, shadow = false, description = ""},
    ["sw_deny"] = {algorithm = "sliding_window", limit = 1, window_ms = 3600000, burst = 1, shadow = false, description = ""},
}
local LISTS = ""
EOF
  cat "$source_dir/lua/clock.lua" "$2"
}
# Names of one length, so that keys are too: old001 before, new001 after, and old002 the library before
# loaded again, whose difference from old001 is what the same code measures twice (the noise).
for side in "${sides[@]}"; do
  if [[ $side == new* ]]; then library "$side" "$build/lua/sluice.lua"; else library "$side" "$work/before.lua"; fi \
    > "$work/$side.lua"
  loaded=$(cli -x FUNCTION LOAD REPLACE < "$work/$side.lua")
  [[ $loaded == "$side" ]] || { echo "$bench_name: FUNCTION LOAD of library $side: $loaded" >&2; exit 1; }
done

# Through the product's own path: one policy with 10,000 exact overrides (the subjects the allow path's
# random keys name, 000000000000 to 000000009999), the same policy without, and a penalised one.
{
  echo '{"policies": ['
  printf '{"name": "plain_allow", "algorithm": "token_bucket", "limit": 1000000000, "window_ms": 3600000},\n'
  printf '{"name": "plain_deny", "algorithm": "token_bucket", "limit": 1, "window_ms": 3600000},\n'
  printf '{"name": "blocked_deny", "algorithm": "token_bucket", "limit": 1, "window_ms": 3600000, "block_ms": 2678400000},\n'
  printf '{"name": "penalty_allow", "algorithm": "token_bucket", "limit": 1000000000, "window_ms": 3600000, "block_ms": 60000},\n'
  overrides=$(for ((i = 0; i < 10000; i++)); do printf '"%012d": {"limit": 999999999}, ' "$i"; done)
  printf '{"name": "rules_allow", "algorithm": "token_bucket", "limit": 1000000000, "window_ms": 3600000, "overrides": {%s}},\n' \
    "${overrides%, }"
  printf '{"name": "rules_deny", "algorithm": "token_bucket", "limit": 1, "window_ms": 3600000, "overrides": {%s}}\n' \
    "${overrides%, }"
  echo ']}'
} > "$work/policies.json"
"$ctl" -u "redis://127.0.0.1:$port" apply "$work/policies.json" >/dev/null
functions_memory() { cli INFO memory | tr -d '\r' | sed -n 's/^used_memory_vm_functions://p'; }
memory_before=$(functions_memory)
load_started=$(date +%s%N)
"$ctl" -u "redis://127.0.0.1:$port" publish >/dev/null 2>&1 # its first call sets the library up: parses the overrides
publish_ms=$((($(date +%s%N) - load_started) / 1000000))
memory_after=$(functions_memory)

# A second namespace with the plain policy and 1,000 list entries (its own library, sluice_listed).
printf '{"policies": [{"name": "plain_allow", "algorithm": "token_bucket", "limit": 1000000000, "window_ms": 3600000}]}' \
  > "$work/listed.json"
for ((i = 0; i < 500; i++)); do
  printf 'exact-%06d,deny\n' "$i"
  printf 'p%0*d-*,allow\n' $((i % 8 + 1)) "$i"
done > "$work/lists.csv"
listed=("$ctl" -u "redis://127.0.0.1:$port" --namespace listed)
"${listed[@]}" apply "$work/listed.json" >/dev/null
"${listed[@]}" lists import "$work/lists.csv" >/dev/null
"${listed[@]}" publish >/dev/null 2>&1

# shellcheck source=tests/bench/callgrind_counts.sh
source "$(dirname "$0")/callgrind_counts.sh"

# measure CASE FUNCTION KEY POLICY: count[CASE] = the server's instructions per call over $calls calls,
# after a warm-up that creates every bucket of the allow path (one call per subject).
declare -A count
measure() {
  local name=$1
  shift
  # Each case on an empty keyspace (functions stay): the same number of keys, so no case pays for the
  # dictionary's incremental rehashing that the keys of earlier cases would cause.
  cli FLUSHALL >/dev/null
  warm_every_subject 10000 FCALL "$1" 1 "$2" "$3"
  count[$name]=$(instructions_per_call "$calls" FCALL "$1" 1 "$2" "$3")
}

for side in "${sides[@]}"; do
  measure "${side}_tb_allow" "${side}_acquire" "$side:tb_allow:{__rand_int__}" tb_allow
  measure "${side}_tb_deny" "${side}_acquire" "$side:tb_deny:{hot}" tb_deny
  measure "${side}_tb_lean_allow" "${side}_allow" "$side:tb_allow:{__rand_int__}" tb_allow
  measure "${side}_fw_allow" "${side}_acquire" "$side:fw_allow:{__rand_int__}" fw_allow
  measure "${side}_fw_deny" "${side}_acquire" "$side:fw_deny:{hot}" fw_deny
  measure "${side}_sw_allow" "${side}_acquire" "$side:sw_allow:{__rand_int__}" sw_allow
  measure "${side}_sw_deny" "${side}_acquire" "$side:sw_deny:{hot}" sw_deny
done
measure plain_allow sluice_acquire 'sluice:plain_allow:{__rand_int__}' plain_allow
measure rules_with_override sluice_acquire 'sluice:rules_allow:{__rand_int__}' rules_allow
measure rules_without_override sluice_acquire 'sluice:rules_allow:{n__rand_int__}' rules_allow
measure plain_deny sluice_acquire 'sluice:plain_deny:{hot}' plain_deny
measure rules_deny_without_override sluice_acquire 'sluice:rules_deny:{hot}' rules_deny
measure blocked sluice_acquire 'sluice:blocked_deny:{hot}' blocked_deny
measure penalty_allow sluice_acquire 'sluice:penalty_allow:{__rand_int__}' penalty_allow
measure listed_allow sluice_listed_acquire 'listed:plain_allow:{__rand_int__}' plain_allow

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%+.2f%%", (a / b - 1) * 100}'; }
echo "Sluice subject rules benchmark: $(redis-server --version | cut -d' ' -f3) under callgrind, $calls calls per case" \
     "(4 connections, pipeline 16, 10,000 subjects on the allow paths)"
echo
if ((${#sides[@]} == 0)); then
  echo "Plain policies before the subject rules and after: not measured here: git cannot show $before_rev in" \
       "$source_dir (a clone with its history is needed)"
else
echo "Plain policies, the library before the subject rules ($before_rev) and after (this build), one run:"
printf '| %-40s | %12s | %12s | %9s | %14s | %9s |\n' "instructions per call" "before" "after" "change" \
  "before, again" "noise"
printf '|%s|%s|%s|%s|%s|%s|\n' "------------------------------------------" "--------------" "--------------" \
  "-----------" "----------------" "-----------"
for case in "token_bucket, admitted:tb_allow" "token_bucket, rejected:tb_deny" \
            "token_bucket, admitted, sluice_allow:tb_lean_allow" "fixed_window, admitted:fw_allow" \
            "fixed_window, rejected:fw_deny" "sliding_window, admitted:sw_allow" "sliding_window, rejected:sw_deny"; do
  label=${case%%:*} key=${case##*:}
  printf '| %-40s | %12s | %12s | %9s | %14s | %9s |\n' "$label" "${count[old001_$key]}" "${count[new001_$key]}" \
    "$(ratio "${count[new001_$key]}" "${count[old001_$key]}")" "${count[old002_$key]}" \
    "$(ratio "${count[old002_$key]}" "${count[old001_$key]}")"
done
fi
echo
echo "A token bucket with 10,000 exact overrides beside the same policy without (this build):"
printf '| %-52s | %12s | %9s |\n' "instructions per call" "count" "vs plain"
printf '|%s|%s|%s|\n' "------------------------------------------------------" "--------------" "-----------"
printf '| %-52s | %12s | %9s |\n' "plain policy, admitted" "${count[plain_allow]}" ""
printf '| %-52s | %12s | %9s |\n' "10,000 overrides, a subject with one, admitted" "${count[rules_with_override]}" \
  "$(ratio "${count[rules_with_override]}" "${count[plain_allow]}")"
printf '| %-52s | %12s | %9s |\n' "10,000 overrides, a subject without one, admitted" "${count[rules_without_override]}" \
  "$(ratio "${count[rules_without_override]}" "${count[plain_allow]}")"
printf '| %-52s | %12s | %9s |\n' "plain policy, rejected" "${count[plain_deny]}" ""
printf '| %-52s | %12s | %9s |\n' "10,000 overrides, a subject without one, rejected" \
  "${count[rules_deny_without_override]}" "$(ratio "${count[rules_deny_without_override]}" "${count[plain_deny]}")"
printf '| %-52s | %12s | %9s |\n' "penalty, a blocked subject (vs plain, rejected)" "${count[blocked]}" \
  "$(ratio "${count[blocked]}" "${count[plain_deny]}")"
printf '| %-52s | %12s | %9s |\n' "penalty, a subject not blocked, admitted" "${count[penalty_allow]}" \
  "$(ratio "${count[penalty_allow]}" "${count[plain_allow]}")"
printf '| %-52s | %12s | %9s |\n' "namespace lists of 1,000, a subject on none, admitted" "${count[listed_allow]}" \
  "$(ratio "${count[listed_allow]}" "${count[plain_allow]}")"
echo
echo "Publishing 2 x 10,000 overrides (sluicectl publish under callgrind, its first call parsing them):" \
     "${publish_ms} ms; the functions' Lua memory: ${memory_before} B before publishing, ${memory_after} B" \
     "after (the whole library: 6 policies, 20,000 overrides)"
echo "Ran in $((SECONDS - started)) s"
