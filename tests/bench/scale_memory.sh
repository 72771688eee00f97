#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Scale benchmark, subjects: Redis memory per active subject for each algorithm of the limiter library and
# for the peers' scripts at the same policy (100 per hour, burst 100: no key expires during the run), each
# subject created by one call (redis-cli --pipe, subjects 0 to N - 1, so exactly N), measured the same way:
# used_memory after minus before, over N. Also one subject's keys, their names' bytes and MEMORY USAGE, to
# say what the bytes hold. Writes OUT_DIR/memory.dat (size, then bytes per subject per case).
#
# Usage: tests/bench/scale_memory.sh BUILD_DIR OUT_DIR SUBJECTS...
# Exits non-zero only when it cannot measure (a command fails, the server dies), never on a figure.
set -euo pipefail
build=$(cd "${1:?usage: scale_memory.sh BUILD_DIR OUT_DIR SUBJECTS...}" && pwd)
out=${2:?usage: scale_memory.sh BUILD_DIR OUT_DIR SUBJECTS...}
sizes=("${@:3}")
((${#sizes[@]})) || sizes=(10000 1000000)
ctl="$build/app/sluicectl"
source_dir=$(cd "$(dirname "$0")/../.." && pwd)

# shellcheck source=tests/bench/pinned_server.sh
source "$(dirname "$0")/pinned_server.sh"
# shellcheck source=tests/bench/limiter_cases.sh
source "$(dirname "$0")/limiter_cases.sh"

algorithms=(token_bucket gcra leaky_bucket fixed_window sliding_window sliding_log concurrency)
{
  echo '{"policies": ['
  for algorithm in "${algorithms[@]}"; do
    printf '{"name": "%s_hour", "algorithm": "%s", "limit": 100, "window_ms": 3600000},\n' "$algorithm" "$algorithm"
  done
  echo '{"name": "first_call_hour", "algorithm": "fixed_window", "limit": 100, "window_ms": 3600000,'
  echo ' "window_start": "first_call"}]}'
} > "$work/policies.json"
"$ctl" -u "redis://127.0.0.1:$port" apply "$work/policies.json" >/dev/null
"$ctl" -u "redis://127.0.0.1:$port" publish >/dev/null 2>&1
load_case_scripts
load_peer_calls 3600

# Each case: its name, the algorithm it is compared under, and its command (subject __rand_int__).
declare -A command_of family_of
cases=()
add_case() { cases+=("$1"); family_of[$1]=$2; command_of[$1]=$3; }
for algorithm in "${algorithms[@]}"; do
  add_case "$algorithm" "$algorithm" "FCALL sluice_acquire 1 sluice:${algorithm}_hour:{__rand_int__} ${algorithm}_hour"
done
add_case first_call fixed_window "FCALL sluice_acquire 1 sluice:first_call_hour:{__rand_int__} first_call_hour"
# The gateway's script at 100 per hour: rate 1/36 per second is not a whole number, so 1 per second with a
# burst of 100 (its keys live ceil(2 * burst / rate) s, past the run).
add_case gateway token_bucket "EVALSHA $scg 2 request_rate_limiter.{__rand_int__}.tokens \
request_rate_limiter.{__rand_int__}.timestamp 1 100 1700000000 1"
for peer in "${peer_cases[@]}"; do
  case $peer in
    *fixed_window) family=fixed_window ;;
    *sliding_window) family=sliding_window ;;
    *token_bucket) family=token_bucket ;;
  esac
  add_case "$peer" "$family" "${peer_command[${peer}_allow]}"
done

used_memory() { cli INFO memory | tr -d '\r' | sed -n 's/^used_memory://p'; }

# One subject's keys for CASE: names, their bytes and MEMORY USAGE (key, value and overhead as Redis counts);
# sets name_bytes_of[CASE], the bytes of its keys' names.
declare -A name_bytes_of
describe_keys() {
  local keys=() key
  mapfile -t keys < <(cli --scan)
  name_bytes_of[$1]=0
  for key in "${keys[@]}"; do
    described[${#described[@]}]="$1: $key (${#key} B name, $(cli MEMORY USAGE "$key" SAMPLES 0) B in all)"
    name_bytes_of[$1]=$((name_bytes_of[$1] + ${#key}))
  done
}

declare -A bytes_of
described=()
printf '\nRedis memory per active subject (bytes; used_memory growth over N subjects, one call each; %s)\n' \
  "$(redis-server --version | cut -d' ' -f3)"
header="| subjects |"
for name in "${cases[@]}"; do header+=" $name |"; done
echo "$header"
echo "subjects ${cases[*]}" > "$out/memory.dat"
for size in "${sizes[@]}"; do
  row="| $size |"
  data="$size"
  for name in "${cases[@]}"; do
    cli FLUSHALL >/dev/null
    before=$(used_memory)
    read -r -a words <<<"${command_of[$name]}"
    warm_every_subject "$size" "${words[@]}"
    after=$(used_memory)
    bytes_of[$name,$size]=$(((after - before) / size))
    row+=" ${bytes_of[$name,$size]} |"
    data+=" ${bytes_of[$name,$size]}"
    if [ "$size" = "${sizes[0]}" ]; then
      # One subject alone, to say what its bytes hold.
      cli FLUSHALL >/dev/null
      warm_every_subject 1 "${words[@]}"
      describe_keys "$name"
    fi
  done
  echo "$row"
  echo "$data" >> "$out/memory.dat"
done
cli FLUSHALL >/dev/null

echo
echo "One subject's keys (the name's bytes, MEMORY USAGE: name, value and Redis's overhead):"
printf '  %s\n' "${described[@]}"

# The target: at most the smallest peer's bytes per subject for the same algorithm, or the reason in bytes.
echo
largest=${sizes[-1]}
echo "Against the peers at $largest subjects (target: at most the smallest peer's bytes for the same algorithm):"
for name in "${cases[@]}"; do
  family=${family_of[$name]}
  [[ $name == "$family" || $name == first_call ]] || continue
  smallest= peer_name=
  for peer in "${cases[@]}"; do
    [[ ${family_of[$peer]} == "$family" && $peer != "$family" && $peer != first_call ]] || continue
    if [ -z "$smallest" ] || ((bytes_of[$peer,$largest] < smallest)); then
      smallest=${bytes_of[$peer,$largest]} peer_name=$peer
    fi
  done
  [ -n "$smallest" ] || { echo "  $name: ${bytes_of[$name,$largest]} B (no peer runs this algorithm)"; continue; }
  mine=${bytes_of[$name,$largest]}
  names=$((name_bytes_of[$name] - name_bytes_of[$peer_name]))
  if ((mine <= smallest)); then
    echo "  $name: $mine B, at most $peer_name's $smallest B: meets"
  else
    echo "  $name: $mine B, $((mine - smallest)) B above $peer_name's $smallest B: above; its key names are $names B" \
         "longer (<namespace>:<policy>:{...} against the peer's prefix), the rest is its value (keys above)"
  fi
done
