#!/usr/bin/env bash
# Limiter benchmark: ops/s and server microseconds per call for every algorithm on the allow path
# (random subjects, buckets already warm) and the deny path (one hot key), next to the Spring Cloud
# Gateway-compatible script, EVALSHA "return 1" and plain INCR, in one run against one private
# redis-server pinned to CPU 1, with redis-benchmark pinned to CPU 0. Prints a table and the ratios
# the data-plane issue targets; exits non-zero only when it cannot measure (a command fails, the server
# dies), never on a figure.
#
# Usage: tests/bench/limiter_bench.sh [BUILD_DIR] [ROUNDS]    (defaults: build, 3)
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
rounds=${2:-3}
ctl="$build/app/sluicectl"
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
requests=200000
subjects=100000

# shellcheck source=tests/bench/pinned_server.sh
source "$(dirname "$0")/pinned_server.sh"

# shellcheck source=tests/bench/limiter_cases.sh
source "$(dirname "$0")/limiter_cases.sh"
algorithms=(token_bucket fixed_window sliding_log sliding_window leaky_bucket gcra concurrency)
publish_bench_policies "${algorithms[@]}"
load_case_scripts

# bench ARGS...: prints "ops/s usec_per_call" for one redis-benchmark run of ARGS.
bench() {
  cli CONFIG RESETSTAT >/dev/null
  local output rps usec
  output=$(checked_benchmark taskset -c 0 redis-benchmark -p "$port" -n "$requests" -c 32 -P 16 -r "$subjects" -q "$@")
  rps=$(grep -o '[0-9.]* requests per second' <<<"$output" | tail -1 | cut -d' ' -f1)
  usec=$(cli INFO commandstats | grep -E '^cmdstat_(fcall|evalsha|incr):' \
    | sed 's/.*usec_per_call=\([0-9.]*\).*/\1/' | head -1)
  echo "$rps $usec"
}

cases=(scg_allow scg_deny evalsha_return_1 incr floor_admit floor_reject floor_count floor_count_hot)
for algorithm in "${algorithms[@]}"; do
  cases+=("${algorithm}_allow" "${algorithm}_deny")
done

run_case() { # run_case NAME: one measurement
  local args
  read -r -a args <<<"$(case_command "$1")"
  bench "${args[@]}"
}

echo "Sluice limiter benchmark: $(redis-server --version | cut -d' ' -f3), $rounds rounds of $requests calls" \
     "(32 connections, pipeline 16, $subjects subjects), server on CPU $server_cpu, client on CPU 0"
echo "warming up (every bucket of the allow path exists before measuring)..."
for name in "${cases[@]}"; do run_case "$name" >/dev/null; done

declare -A rps_samples usec_samples
for round in $(seq "$rounds"); do
  for name in "${cases[@]}"; do
    measured=$(run_case "$name") # an assignment, so that a failed run stops the benchmark (set -e)
    read -r rps usec <<<"$measured"
    rps_samples[$name]+="$rps "
    usec_samples[$name]+="$usec "
  done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
declare -A rps_of usec_of
for name in "${cases[@]}"; do
  rps_of[$name]=$(median <<<"${rps_samples[$name]}")
  usec_of[$name]=$(median <<<"${usec_samples[$name]}")
done

printf '\n| %-18s | %12s | %9s | %12s | %9s |\n' "script" "allow ops/s" "allow us" "deny ops/s" "deny us"
printf '|%s|%s|%s|%s|%s|\n' "--------------------" "--------------" "-----------" "--------------" "-----------"
printf '| %-18s | %12.0f | %9s | %12.0f | %9s |\n' "SCG-compatible" "${rps_of[scg_allow]}" "${usec_of[scg_allow]}" \
  "${rps_of[scg_deny]}" "${usec_of[scg_deny]}"
for algorithm in "${algorithms[@]}"; do
  printf '| %-18s | %12.0f | %9s | %12.0f | %9s |\n' "$algorithm" \
    "${rps_of[${algorithm}_allow]}" "${usec_of[${algorithm}_allow]}" \
    "${rps_of[${algorithm}_deny]}" "${usec_of[${algorithm}_deny]}"
done
printf '| %-18s | %12.0f | %9s | %12.0f | %9s |\n' "floor: string" "${rps_of[floor_admit]}" "${usec_of[floor_admit]}" \
  "${rps_of[floor_reject]}" "${usec_of[floor_reject]}"
printf '| %-18s | %12.0f | %9s | %12.0f | %9s |\n' "floor: counter" "${rps_of[floor_count]}" "${usec_of[floor_count]}" \
  "${rps_of[floor_count_hot]}" "${usec_of[floor_count_hot]}"
printf '| %-18s | %12.0f | %9s | %12s | %9s |\n' 'EVALSHA "return 1"' \
  "${rps_of[evalsha_return_1]}" "${usec_of[evalsha_return_1]}" "" ""
printf '| %-18s | %12.0f | %9s | %12s | %9s |\n' "INCR" "${rps_of[incr]}" "${usec_of[incr]}" "" ""

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
verdict() { awk -v r="$1" -v t="$2" 'BEGIN {print (r >= t) ? "meets" : "BELOW"}'; }
echo
# The floor rows do only the Redis calls and reply any library keeping the contract must make (see
# tests/bench/floor.lua): their ratio is the most an algorithm could reach on this server.
for check in "token_bucket allow 1.3 floor_admit" "token_bucket deny 1.4 floor_reject" \
             "fixed_window allow 2.5 floor_count" "fixed_window deny 2.5 floor_count_hot"; do
  read -r algorithm path target floor <<<"$check"
  r=$(ratio "${rps_of[${algorithm}_$path]}" "${rps_of[scg_$path]}")
  f=$(ratio "${rps_of[$floor]}" "${rps_of[scg_$path]}")
  u=$(ratio "${usec_of[scg_$path]}" "${usec_of[${algorithm}_$path]}")
  echo "$algorithm $path path: ${r}x the SCG-compatible script's throughput" \
       "(target ${target}x: $(verdict "$r" "$target"); the floor reaches ${f}x; ${u}x in server microseconds per call)"
done
