#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Client benchmark: `sluicectl bench` (RedisClient, pipelined, several connections, on the test-fire
# engine) beside redis-benchmark, same FCALL, same private redis-server (pinned to CPU 1), each load
# generator pinned to CPU 0, in one run. Each case is measured in ROUNDS rounds, the two clients one
# after the other in turn (which goes first alternates), so that a moment of a busy machine weighs on
# one round's ratio, not on the figure: the table shows the medians and every round's ratio. Prints
# the ratio the connectivity and test-fire issues target (at least 0.9x); exits non-zero only when it
# cannot measure (a command fails, the server dies), never on a figure.
#
# Usage: tests/bench/client_bench.sh [BUILD_DIR [ROUNDS]]
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
ctl="$build/app/sluicectl"
rounds=${2:-7}
connections=4
depth=16
seconds=1.5
requests=200000

# shellcheck source=tests/bench/pinned_server.sh
source "$(dirname "$0")/pinned_server.sh"
url="redis://127.0.0.1:$port"

echo '{"policies": [{"name": "bench", "algorithm": "token_bucket", "limit": 1000000000, "window_ms": 1000}]}' \
  > "$work/policies.json"
"$ctl" -u "$url" apply "$work/policies.json" >/dev/null
"$ctl" -u "$url" publish >/dev/null 2>&1

# redis-benchmark's ops/s for $requests requests of ARGS (extra redis-benchmark flags first, then --).
reference() {
  local flags=()
  while [ "${1:-}" != "--" ]; do flags+=("$1"); shift; done
  shift
  local output
  output=$(checked_benchmark taskset -c 0 redis-benchmark -p "$port" -n "$requests" -c "$connections" -P "$depth" \
             "${flags[@]}" -q "$@")
  grep -o '[0-9.]* requests per second' <<<"$output" | tail -1 | cut -d' ' -f1
}

# sluicectl bench's ops/s, p50 and p99 (ms) and the command it sent, for its arguments.
ours() {
  while_server_runs taskset -c 0 "$ctl" -u "$url" bench bench --duration "$seconds" --concurrency "$connections" \
      --pipeline "$depth" --json "$@" \
    | python3 -c 'import json, sys; d = json.load(sys.stdin)
print(round(d["ops_per_second"]), d["p50_ms"], d["p99_ms"], d["command"])'
}

printf '%-72s %14s %15s %7s %8s %8s  %s\n' "command ($connections connections x $depth in flight)" \
  "redis-benchmark" "sluicectl bench" "ratio" "p50 ms" "p99 ms" "ratio by round"

median() {
  tr ' ' '\n' | sort -g \
    | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# measure_case LABEL OURS_ARGS -- REFERENCE_FLAGS -- [REFERENCE_COMMAND]: ROUNDS rounds of both clients,
# then one row of medians. Without REFERENCE_COMMAND, redis-benchmark sends the command sluicectl sent.
# Each measurement is an assignment of its own, so that a failed one stops the benchmark (set -e).
measure_case() {
  local label=$1; shift
  local our_args=() reference_flags=() reference_command=()
  while [ "$1" != "--" ]; do our_args+=("$1"); shift; done
  shift
  while [ "$1" != "--" ]; do reference_flags+=("$1"); shift; done
  shift
  reference_command=("$@")
  local ours_ops=() theirs_ops=() ratios=() p50s=() p99s=() measured theirs ops p50 p99 command round
  for round in $(seq "$rounds"); do
    # redis-benchmark first in even rounds; the first round learns the command sluicectl sends.
    if ((round % 2 == 0)); then theirs=$(reference "${reference_flags[@]}" -- "${reference_command[@]}"); fi
    measured=$(ours "${our_args[@]}")
    read -r ops p50 p99 command <<<"$measured"
    if ((${#reference_command[@]} == 0)); then read -ra reference_command <<<"$command"; fi
    if ((round % 2 == 1)); then theirs=$(reference "${reference_flags[@]}" -- "${reference_command[@]}"); fi
    ours_ops+=("$ops"); theirs_ops+=("$theirs"); p50s+=("$p50"); p99s+=("$p99")
    ratios+=("$(awk -v a="$ops" -v b="$theirs" 'BEGIN { printf "%.2f", a / b }')")
  done
  printf '%-72s %14.0f %15.0f %6.2fx %8s %8s  %s\n' "${label:-${command:0:72}}" \
    "$(median <<<"${theirs_ops[*]}")" "$(median <<<"${ours_ops[*]}")" "$(median <<<"${ratios[*]}")" \
    "$(median <<<"${p50s[*]}")" "$(median <<<"${p99s[*]}")" "${ratios[*]}"
}

# One subject's bucket, as a service calls it (--real-keys: sluice_acquire on the policy's key).
measure_case "" --real-keys --subject subject -- --
# A random one of 100,000 subjects (redis-benchmark draws them with __rand_int__).
measure_case "FCALL sluice_acquire 1 sluice:bench:{<random of 100000>} bench 1" --real-keys --random 100000 \
  -- -r 100000 -- FCALL sluice_acquire 1 'sluice:bench:{test-fire-__rand_int__}' bench 1
# What sluicectl bench sends by default: sluice_check in the test-fire key space.
measure_case "" --subject subject -- --
echo "ratio: the median of the rounds' ratios ($rounds rounds; in each, the two clients one after the other)"
echo "target: sluicectl bench at least 0.9x redis-benchmark on the same FCALL and server"
