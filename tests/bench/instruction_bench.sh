#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Instruction benchmark: the server's instructions per call (valgrind callgrind, so the same on every
# run, however noisy the machine) for the token bucket and the fixed window beside the Spring Cloud
# Gateway-compatible script and the floor rows of limiter_bench.sh, on the allow path (random warm
# subjects) and the deny path (one hot key). It shows without timing noise what the throughput ratios
# of limiter_bench.sh can reach. Exits non-zero only when it cannot measure (a command fails, the
# server dies), never on a figure.
#
# Usage: tests/bench/instruction_bench.sh [BUILD_DIR] [CALLS] [CASE...]    (defaults: build, 20000)
# With CASEs (names of limiter_cases.sh) it measures those only and prints a line "count CASE N" each:
# limiter_bench.sh takes the peers' table's counts from it.
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
calls=${2:-20000}
only=("${@:3}")
ctl="$build/app/sluicectl"
source_dir=$(cd "$(dirname "$0")/../.." && pwd)

# The server under callgrind, its dumps in the benchmark's folder.
server_wrapper=(valgrind --tool=callgrind '--callgrind-out-file=@work@/callgrind.%p')
# shellcheck source=tests/bench/pinned_server.sh
source "$(dirname "$0")/pinned_server.sh"

# shellcheck source=tests/bench/limiter_cases.sh
source "$(dirname "$0")/limiter_cases.sh"
publish_bench_policies token_bucket fixed_window sliding_window
load_case_scripts
((${#only[@]} == 0)) || load_peer_calls

# shellcheck source=tests/bench/callgrind_counts.sh
source "$(dirname "$0")/callgrind_counts.sh"

# measure CASE: sets count[CASE] to the server's instructions per call over $calls calls, counted
# from zero after a warm-up that creates every bucket of the allow path (one call per subject).
declare -A count
measure() {
  local args
  read -r -a args <<<"$(case_command "$1")"
  if [[ " ${args[*]} " == *__rand_int__* ]]; then
    warm_every_subject 10000 "${args[@]}"
  else
    checked_benchmark redis-benchmark -p "$port" -n 1000 -c 4 -P 16 -q "${args[@]}" >/dev/null
  fi
  count[$1]=$(instructions_per_call "$calls" "${args[@]}")
}

if ((${#only[@]})); then
  for name in "${only[@]}"; do
    measure "$name"
    echo "count $name ${count[$name]}"
  done
  exit 0
fi

echo "Sluice instruction benchmark: $(redis-server --version | cut -d' ' -f3) under callgrind, $calls calls per case" \
     "(4 connections, pipeline 16, 10,000 subjects on the allow path)"
for name in scg_allow scg_deny token_bucket_allow token_bucket_deny fixed_window_allow fixed_window_deny \
            floor_admit floor_reject floor_count floor_count_hot floor_reply evalsha_return_1; do
  measure "$name"
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
row() { # row LABEL ALLOW DENY
  local allow=${count[$2]:-} deny=${count[$3]:-}
  printf '| %-52s | %12s | %6s | %12s | %6s |\n' "$1" "$allow" "${allow:+$(ratio "${count[scg_allow]}" "$allow")x}" \
    "$deny" "${deny:+$(ratio "${count[scg_deny]}" "$deny")x}"
}
printf '\n| %-52s | %12s | %6s | %12s | %6s |\n' \
  "instructions per call (ratio: SCG-compatible / row)" "allow" "ratio" "deny" "ratio"
printf '|%s|%s|%s|%s|%s|\n' "------------------------------------------------------" \
  "--------------" "--------" "--------------" "--------"
row "SCG-compatible script" scg_allow scg_deny
row "token_bucket" token_bucket_allow token_bucket_deny
row "fixed_window" fixed_window_allow fixed_window_deny
row "floor: string (TIME, GET, SET/SETRANGE, reply)" floor_admit floor_reject
row "floor: counter (TIME, HINCRBY, reply)" floor_count floor_count_hot
row "FCALL replying the six-element array, nothing else" floor_reply floor_reply
row 'EVALSHA "return 1"' evalsha_return_1 evalsha_return_1

echo
# The network work of a call (system calls, which callgrind does not count) is the same for every row,
# so on the deny path (one hot key, always in cache) a ratio of instructions is the most the ratio of
# ops/s can reach. On the allow path cache misses weigh more on the script, which touches two keys.
for check in "token_bucket allow 1.3 floor_admit" "token_bucket deny 1.4 floor_reject" \
             "fixed_window allow 2.5 floor_count" "fixed_window deny 2.5 floor_count_hot"; do
  read -r algorithm path target floor <<<"$check"
  echo "$algorithm $path path: $(ratio "${count[scg_$path]}" "${count[${algorithm}_$path]}")x fewer instructions than" \
       "the SCG-compatible script (throughput target ${target}x);" \
       "its floor: $(ratio "${count[scg_$path]}" "${count[$floor]}")x"
done
