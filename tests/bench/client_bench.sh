#!/usr/bin/env bash
# Client benchmark: RedisClient's pipelined throughput beside redis-benchmark's, same command, same
# private redis-server (pinned to CPU 1), the load generator pinned to CPU 0, in one run. Prints a
# table and the ratio the connectivity issue targets (at least 0.9x); exits non-zero only when a
# command fails, never on a figure.
#
# Usage: tests/bench/client_bench.sh [BUILD_DIR]
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
ctl="$build/app/sluicectl"
client_bench="$build/tests/client_bench"
connections=4
depth=16
seconds=3

# shellcheck source=tests/bench/pinned_server.sh
source "$(dirname "$0")/pinned_server.sh"

echo '{"policies": [{"name": "bench", "algorithm": "token_bucket", "limit": 1000000000, "window_ms": 1000}]}' > "$work/policies.json"
"$ctl" -u "redis://127.0.0.1:$port" apply "$work/policies.json" >/dev/null
"$ctl" -u "redis://127.0.0.1:$port" publish >/dev/null 2>&1

# redis-benchmark's ops/s for a fixed number of requests of ARGS.
reference() {
  local requests=$1; shift
  local output
  output=$(taskset -c 0 redis-benchmark -p "$port" -n "$requests" -c "$connections" -P "$depth" -q "$@" 2>&1 | tr '\r' '\n')
  if grep -qi 'err' <<<"$output"; then
    echo "redis-benchmark $* failed: $(grep -i -m1 'err' <<<"$output")" >&2
    exit 1
  fi
  grep -o '[0-9.]* requests per second' <<<"$output" | tail -1 | cut -d' ' -f1
}

printf '%-52s %14s %14s %8s %10s %10s\n' "command ($connections connections x $depth in flight)" "redis-benchmark" "RedisClient" "ratio" "p50 us" "p99 us"
run() {
  local requests=$1; shift
  local theirs ours p50 p99
  theirs=$(reference "$requests" "$@")
  read -r ours p50 p99 < <(taskset -c 0 "$client_bench" "$port" "$seconds" "$connections" "$depth" "$@")
  printf '%-52s %14.0f %14.0f %7.2fx %10.0f %10.0f\n' "$*" "$theirs" "$ours" "$(awk -v a="$ours" -v b="$theirs" 'BEGIN { print a / b }')" "$p50" "$p99"
}
run 1000000 INCR bench:counter
run 400000 FCALL sluice_acquire 1 "sluice:bench:{subject}" bench
echo "target: RedisClient at least 0.9x redis-benchmark on FCALL sluice_acquire (INCR shown for the client's own cost)"
