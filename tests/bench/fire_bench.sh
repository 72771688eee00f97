#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Test-fire accuracy: `sluicectl fire` at 2,000 calls a second for 10 s at one subject, once per
# algorithm and seed script, on a private redis-server (pinned to CPU 1, sluicectl to CPU 0). Prints
# the achieved rate beside the requested one and the allowed count beside the reference model's;
# the targets are within 1% of each. Exits non-zero only when a run fails (the others still run) or
# the server dies (nothing more runs), never on a figure.
#
# Usage: tests/bench/fire_bench.sh [BUILD_DIR] [SECONDS] [RATE]
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
seconds=${2:-10}
rate=${3:-2000}
ctl="$build/app/sluicectl"

# shellcheck source=tests/bench/pinned_server.sh
source "$(dirname "$0")/pinned_server.sh"
url="redis://127.0.0.1:$port"

# Each limit well under the traffic, so the curves have rejections to disagree on.
cat > "$work/policies.json" <<'JSON'
{"policies": [
  {"name": "token_bucket", "algorithm": "token_bucket", "limit": 500, "window_ms": 1000, "burst": 1000},
  {"name": "gcra", "algorithm": "gcra", "limit": 500, "window_ms": 1000, "burst": 1000},
  {"name": "leaky_bucket", "algorithm": "leaky_bucket", "limit": 500, "window_ms": 1000, "burst": 1000},
  {"name": "fixed_window", "algorithm": "fixed_window", "limit": 500, "window_ms": 1000},
  {"name": "sliding_window", "algorithm": "sliding_window", "limit": 500, "window_ms": 1000},
  {"name": "sliding_log", "algorithm": "sliding_log", "limit": 500, "window_ms": 1000},
  {"name": "concurrency", "algorithm": "concurrency", "limit": 100, "window_ms": 100}
]}
JSON
"$ctl" -u "$url" apply "$work/policies.json" >/dev/null
"$ctl" -u "$url" publish >/dev/null 2>&1

printf 'sluicectl fire TARGET --rate %s --duration %s (one subject, test-fire keys)\n' "$rate" "$seconds"
printf '%-36s %8s %10s %9s %8s %8s %10s %8s %8s %8s\n' \
  target sent "rate/s" "rate err" allowed model deviation "p50 ms" "p99 ms" "lag ms"
failed=0
for target in token_bucket gcra leaky_bucket fixed_window sliding_window sliding_log concurrency \
              scg_token_bucket:500:1000 fixed_window_counter:500:1 ms_token_bucket:500:1000; do
  if ! json=$(while_server_runs taskset -c 0 "$ctl" -u "$url" fire "$target" --rate "$rate" --duration "$seconds" \
                --json 2>"$work/err"); then
    echo "$target: $(cat "$work/err")" >&2
    server_running || exit 1
    failed=1
    continue
  fi
  python3 - "$target" "$rate" "$json" <<'PY'
import json, sys
target, rate, d = sys.argv[1], float(sys.argv[2]), json.loads(sys.argv[3])
error = (d["achieved_rate"] - rate) / rate * 100
print(f'{target:<36} {d["sent"]:>8} {d["achieved_rate"]:>10.1f} {error:>+8.2f}% {d["allowed"]:>8} '
      f'{d["expected_allowed"]:>8} {d["deviation_percent"]:>+9.2f}% {d["p50_ms"]:>8.3f} {d["p99_ms"]:>8.3f}'
      f' {d["max_lag_ms"]:>8}')
PY
done
echo "targets: rate error within 1%, allowed within 1% of the model, for every algorithm"
exit "$failed"
