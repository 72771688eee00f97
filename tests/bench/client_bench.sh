#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Client benchmark: `sluicectl bench` (RedisClient, pipelined, several connections, on the test-fire
# engine) beside redis-benchmark, same FCALL, same private redis-server (pinned to CPU 1), each load
# generator pinned to CPU 0, in one run. Prints a table and the ratio the connectivity and test-fire
# issues target (at least 0.9x); exits non-zero only when it cannot measure (a command fails, the
# server dies), never on a figure.
#
# Usage: tests/bench/client_bench.sh [BUILD_DIR]
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
ctl="$build/app/sluicectl"
connections=4
depth=16
seconds=3

# shellcheck source=tests/bench/pinned_server.sh
source "$(dirname "$0")/pinned_server.sh"
url="redis://127.0.0.1:$port"

echo '{"policies": [{"name": "bench", "algorithm": "token_bucket", "limit": 1000000000, "window_ms": 1000}]}' \
  > "$work/policies.json"
"$ctl" -u "$url" apply "$work/policies.json" >/dev/null
"$ctl" -u "$url" publish >/dev/null 2>&1

# redis-benchmark's ops/s for a fixed number of requests of ARGS (extra redis-benchmark flags first).
reference() {
  local requests=$1; shift
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

printf '%-72s %14s %15s %7s %8s %8s\n' "command ($connections connections x $depth in flight)" \
  "redis-benchmark" "sluicectl bench" "ratio" "p50 ms" "p99 ms"
row() { # label, our ops/s, p50, p99, their ops/s
  printf '%-72s %14.0f %15.0f %6.2fx %8s %8s\n' "$1" "$5" "$2" \
    "$(awk -v a="$2" -v b="$5" 'BEGIN { print a / b }')" "$3" "$4"
}

# One subject's bucket, as a service calls it (--real-keys: sluice_acquire on the policy's key).
# Each measurement is an assignment of its own, so that a failed one stops the benchmark (set -e).
measured=$(ours --real-keys --subject subject)
read -r ops p50 p99 command <<<"$measured"
read -ra args <<<"$command"
theirs=$(reference 400000 -- "${args[@]}")
row "$command" "$ops" "$p50" "$p99" "$theirs"
# A random one of 100,000 subjects (redis-benchmark draws them with __rand_int__).
measured=$(ours --real-keys --random 100000)
read -r ops p50 p99 command <<<"$measured"
theirs=$(reference 400000 -r 100000 -- FCALL sluice_acquire 1 'sluice:bench:{test-fire-__rand_int__}' bench 1)
row "FCALL sluice_acquire 1 sluice:bench:{<random of 100000>} bench 1" "$ops" "$p50" "$p99" "$theirs"
# What sluicectl bench sends by default: sluice_check in the test-fire key space.
measured=$(ours --subject subject)
read -r ops p50 p99 command <<<"$measured"
read -ra args <<<"$command"
theirs=$(reference 400000 -- "${args[@]}")
row "${command:0:72}" "$ops" "$p50" "$p99" "$theirs"
echo "target: sluicectl bench at least 0.9x redis-benchmark on the same FCALL and server"
