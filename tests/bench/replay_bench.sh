#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Replay benchmark: a generated nginx combined log (realistic lines, a heavy-tailed client population)
# read by `sluicectl replay` against 4 candidate policies beside GoAccess's own parse of the same file
# (`goaccess --process-and-exit`, one thread), in turns, ROUNDS rounds; prints each tool's lines/s and
# peak resident memory (medians), the ratio, and `sluicectl suggest` on the same log. Targets: Sluice's
# parse and replay at least as fast as GoAccess's parse alone; under 1 GiB for 1 million subjects and 4
# candidates. Exits non-zero only when it cannot measure (a tool fails), never on a figure.
#
# Usage: tests/bench/replay_bench.sh [BUILD_DIR [LINES [ROUNDS]]]
#   CI runs 1,000,000 lines; by hand: tests/bench/replay_bench.sh build 10000000 1
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
lines=${2:-1000000}
rounds=${3:-3}
ctl="$build/app/sluicectl"
here=$(dirname "$(readlink -f "$0")")
began=$(date +%s)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for tool in goaccess python3 /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "replay_bench: $tool is missing" >&2; exit 1; }
done

# Half the requests from a population of max(lines / 10, 100,000) addresses: 1 million lines hold about
# 400,000 distinct clients, 10 million about 1 million.
population=$(( lines / 10 > 100000 ? lines / 10 : 100000 ))
python3 "$here/generate_access_log.py" "$lines" "$population" 1 > "$work/access.log"
cat > "$work/candidates.json" <<'JSON'
{"policies": [
  {"name": "tb-60", "algorithm": "token_bucket", "limit": 60, "window_ms": 60000, "burst": 20},
  {"name": "fw-100", "algorithm": "fixed_window", "limit": 100, "window_ms": 60000},
  {"name": "sw-100", "algorithm": "sliding_window", "limit": 100, "window_ms": 60000},
  {"name": "gcra-2", "algorithm": "gcra", "limit": 2, "window_ms": 1000, "burst": 10}]}
JSON

# measure NAME COMMAND...: "seconds peak_kb" of one run; a failed run ends the benchmark.
measure() {
  local name=$1; shift
  if ! /usr/bin/time -f '%e %M' -o "$work/time" "$@" > "$work/$name.out" 2> "$work/$name.err"; then
    echo "replay_bench: $name failed:" >&2
    cat "$work/$name.err" >&2
    exit 1
  fi
  cat "$work/time"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

: > "$work/goaccess.rounds"
: > "$work/sluice.rounds"
for round in $(seq 1 "$rounds"); do
  # Which tool goes first alternates, so a busy moment does not always fall on the same one.
  if (( round % 2 )); then order="goaccess sluice"; else order="sluice goaccess"; fi
  for tool in $order; do
    if [ "$tool" = goaccess ]; then
      measure goaccess goaccess "$work/access.log" --log-format=COMBINED --no-global-config --process-and-exit \
        --no-progress >> "$work/goaccess.rounds"
    else
      measure sluice "$ctl" replay "$work/access.log" --define "$work/candidates.json" --json >> "$work/sluice.rounds"
    fi
  done
done

subjects=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["subjects"])' "$work/sluice.out")
requests=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["requests"])' "$work/sluice.out")
[ "$requests" = "$lines" ] || { echo "replay_bench: sluicectl replayed $requests of $lines lines" >&2; exit 1; }
ga_s=$(cut -d' ' -f1 "$work/goaccess.rounds" | median)
ga_kb=$(cut -d' ' -f2 "$work/goaccess.rounds" | median)
sl_s=$(cut -d' ' -f1 "$work/sluice.rounds" | median)
sl_kb=$(cut -d' ' -f2 "$work/sluice.rounds" | median)
read -r suggest_s suggest_kb < <(measure suggest "$ctl" suggest "$work/access.log" --algorithm token_bucket \
  --window 1m --reject-at-most 0.1% --of subjects --json)
suggested=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["suggested_limit"], d["passes"])' \
  "$work/suggest.out")

awk -v lines="$lines" -v subjects="$subjects" -v ga_s="$ga_s" -v ga_kb="$ga_kb" -v sl_s="$sl_s" -v sl_kb="$sl_kb" \
    -v rounds="$rounds" -v su_s="$suggest_s" -v su_kb="$suggest_kb" -v suggested="$suggested" 'BEGIN {
  printf "replay benchmark: %d combined lines, %d distinct clients, 4 candidates; medians of %d rounds\n", lines, subjects, rounds
  printf "  %-44s %10s %14s %12s\n", "", "seconds", "lines/s", "peak RSS"
  printf "  %-44s %10.2f %14.0f %9.0f MiB\n", "goaccess --process-and-exit (parse only)", ga_s, lines / ga_s, ga_kb / 1024
  printf "  %-44s %10.2f %14.0f %9.0f MiB\n", "sluicectl replay (parse + 4 candidates)", sl_s, lines / sl_s, sl_kb / 1024
  printf "  sluice / goaccess lines per second: %.2fx (target: at least 1.0x)\n", ga_s / sl_s
  printf "  sluice memory: %.0f bytes per distinct client with 4 candidates (target: under 1 GiB for 1 million: %.0f MiB)\n", sl_kb * 1024 / subjects, sl_kb * 1024 / subjects * 1000000 / 1048576
  split(suggested, s, " ")
  printf "  sluicectl suggest (token bucket per minute, 0.1%% of clients): limit %s in %d replays, %.2f s, %.0f MiB\n", s[1], s[2], su_s, su_kb / 1024
}'
echo "replay benchmark took $(( $(date +%s) - began )) s"
