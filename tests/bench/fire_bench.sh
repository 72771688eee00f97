#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Test-fire accuracy: `sluicectl fire` at 2,000 calls a second for 10 s at one subject, once per
# algorithm and seed script, on a private redis-server (pinned to CPU 1, sluicectl to CPU 0). Prints
# the calls the server counted beside those sent, the schedule's lag, and the allowed count beside the
# reference model's. The targets: the rate within 1% (judged on the lag: a call at most L ms behind its
# time keeps the rate over a run of D s within L / D of the target, and the server must count every
# call), and allowed within 1% of the model. Exits non-zero only when a run fails (the others still
# run) or the server dies (nothing more runs), never on a figure.
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

# Limiter calls the server has run so far (FCALL for policies, EVALSHA and EVAL for the seed scripts).
server_calls() {
  cli INFO commandstats | tr -d '\r' | awk -F'[:=,]' '/^cmdstat_(fcall|evalsha|eval):/ {n += $3} END {print n + 0}'
}

printf 'sluicectl fire TARGET --rate %s --duration %s (one subject, test-fire keys)\n' "$rate" "$seconds"
printf '%-36s %8s %8s %8s %10s %8s %8s %10s %8s %8s\n' \
  target sent "server" "lag ms" "rate bound" allowed model deviation "p50 ms" "p99 ms"
failed=0
for target in token_bucket gcra leaky_bucket fixed_window sliding_window sliding_log concurrency \
              scg_token_bucket:500:1000 fixed_window_counter:500:1 ms_token_bucket:500:1000; do
  before=$(server_calls)
  if ! json=$(while_server_runs taskset -c 0 "$ctl" -u "$url" fire "$target" --rate "$rate" --duration "$seconds" \
                --json 2>"$work/err"); then
    echo "$target: $(cat "$work/err")" >&2
    server_running || exit 1
    failed=1
    continue
  fi
  counted=$(($(server_calls) - before))
  python3 - "$target" "$rate" "$seconds" "$counted" "$json" "$work/verdicts" <<'PY'
import json, sys
target, rate, seconds, counted, d, verdicts = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), \
    int(sys.argv[4]), json.loads(sys.argv[5]), sys.argv[6]
# The rate's error bound from the lag: the most any call went out behind its time, over the run's span.
bound = d["max_lag_ms"] / (seconds * 1000) * 100
print(f'{target:<36} {d["sent"]:>8} {counted:>8} {d["max_lag_ms"]:>8} {bound:>9.2f}% {d["allowed"]:>8} '
      f'{d["expected_allowed"]:>8} {d["deviation_percent"]:>+9.2f}% {d["p50_ms"]:>8.3f} {d["p99_ms"]:>8.3f}')
rate_ok = counted == d["sent"] and bound <= 1
model_ok = abs(d["deviation_percent"]) <= 1
with open(verdicts, 'a') as out:
    print(f'{target}: rate {"meets" if rate_ok else "MISSES"} (server counted {counted} of {d["sent"]}, '
          f'lag {d["max_lag_ms"]} ms: within {bound:.3g}%), allowed {"meets" if model_ok else "MISSES"} '
          f'({d["deviation_percent"]:+.3g}% from the model)', file=out)
PY
done
echo
echo "targets: the rate within 1% (every call counted by the server, and at most 1% of the run behind its time)," \
     "allowed within 1% of the model"
cat "$work/verdicts"
exit "$failed"
