#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Scale benchmark, policies: the server's instructions per limiter call (valgrind callgrind, so the same on
# every run however busy the machine) as a namespace's policies grow, each size applied and published through
# sluicectl on a private redis-server. Three paths of three of the policies: a token bucket admitting (random
# warm subjects), the same denying (one hot key), and a first-call fixed window through sluice_allow. The
# target is flat: within 5% of the figure at the first size. Writes OUT_DIR/instructions.dat.
#
# Usage: tests/bench/scale_instructions.sh BUILD_DIR OUT_DIR CALLS POLICIES...
# Exits non-zero only when it cannot measure (a command fails, the server dies), never on a figure.
set -euo pipefail
build=$(cd "${1:?usage: scale_instructions.sh BUILD_DIR OUT_DIR CALLS POLICIES...}" && pwd)
out=${2:?usage: scale_instructions.sh BUILD_DIR OUT_DIR CALLS POLICIES...}
calls=${3:?usage: scale_instructions.sh BUILD_DIR OUT_DIR CALLS POLICIES...}
sizes=("${@:4}")
((${#sizes[@]})) || sizes=(10 100 1000)
ctl="$build/app/sluicectl"

server_wrapper=(valgrind --tool=callgrind '--callgrind-out-file=@work@/callgrind.%p')
# shellcheck source=tests/bench/pinned_server.sh
source "$(dirname "$0")/pinned_server.sh"
# shellcheck source=tests/bench/callgrind_counts.sh
source "$(dirname "$0")/callgrind_counts.sh"

# SIZE policies: the three measured first, then token buckets of 100 per minute under other names.
write_policies() {
  {
    echo '{"policies": ['
    echo '{"name": "measured-allow", "algorithm": "token_bucket", "limit": 1000000000, "window_ms": 3600000},'
    echo '{"name": "measured-deny", "algorithm": "token_bucket", "limit": 1, "window_ms": 3600000},'
    echo '{"name": "measured-first-call", "algorithm": "fixed_window", "limit": 1000000, "window_ms": 3600000,'
    echo ' "window_start": "first_call"}'
    local i
    for ((i = 3; i < $1; ++i)); do
      printf ',{"name": "policy-%05d", "algorithm": "token_bucket", "limit": 100, "window_ms": 60000}\n' "$i"
    done
    echo ']}'
  } > "$work/policies.json"
}

paths=(allow deny first_call)
declare -A words_of=(
  [allow]="FCALL sluice_acquire 1 sluice:measured-allow:{__rand_int__} measured-allow"
  [deny]="FCALL sluice_acquire 1 sluice:measured-deny:{hot} measured-deny"
  [first_call]="FCALL sluice_allow 1 sluice:measured-first-call:{__rand_int__} measured-first-call"
)

echo "Instructions per limiter call by policies in the namespace ($(redis-server --version | cut -d' ' -f3)" \
     "under callgrind, $calls calls a path; ratio to ${sizes[0]} policies; target: flat, within 5%)"
printf '| %8s | %12s | %6s | %12s | %6s | %12s | %6s |\n' policies "allow" ratio "deny" ratio "first-call" ratio
echo "# policies allow deny first_call" > "$out/instructions.dat"
declare -A first
for size in "${sizes[@]}"; do
  write_policies "$size"
  "$ctl" -u "redis://127.0.0.1:$port" --timeout 600000 apply "$work/policies.json" >/dev/null
  "$ctl" -u "redis://127.0.0.1:$port" --timeout 600000 publish >/dev/null 2>&1
  row=$(printf '| %8s |' "$size")
  data=$size
  for path in "${paths[@]}"; do
    read -r -a words <<<"${words_of[$path]}"
    if [ "$path" = deny ]; then
      checked_benchmark redis-benchmark -p "$port" -n 1000 -c 4 -P 16 -q "${words[@]}" >/dev/null
    else
      warm_every_subject 10000 "${words[@]}"
    fi
    count=$(instructions_per_call "$calls" "${words[@]}")
    [ -n "${first[$path]:-}" ] || first[$path]=$count
    row+=$(printf ' %12s | %6s |' "$count" "$(awk -v a="$count" -v b="${first[$path]}" 'BEGIN { printf "%.3f", a / b }')")
    data+=" $count"
  done
  echo "$row"
  echo "$data" >> "$out/instructions.dat"
done
