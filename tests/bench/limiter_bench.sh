#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Limiter benchmark: ops/s and server microseconds per call for every algorithm on the allow path
# (random subjects, buckets already warm) and the deny path (one hot key), next to the Spring Cloud
# Gateway-compatible script, EVALSHA "return 1" and plain INCR; then, at the peers' policy (100 per
# second, burst 100, 100,000 subjects, so that the allow path opens fresh windows), Sluice beside the
# scripts of the npm rate limiters users would pick instead, taken from their installed packages
# (tests/bench/peers), with the command each case sends and its instructions per call under callgrind
# (instruction_bench.sh). All in one run against one private redis-server pinned to CPU 1, with
# redis-benchmark pinned to CPU 0. Prints tables and the ratios the issues target; exits non-zero only
# when it cannot measure (a command fails, the server dies), never on a figure. Without the peers'
# packages it says so and measures the rest.
#
# Usage: tests/bench/limiter_bench.sh [BUILD_DIR] [ROUNDS]    (defaults: build, 3)
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
rounds=${2:-3}
ctl="$build/app/sluicectl"
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
requests=200000
# Calls of each case's warm-up run (after every subject's first call, for the allow paths).
warm_requests=20000
# Calls per client in a pair measured at once (two clients): each side's server us is the mean over these.
pair_requests=100000
subjects=100000
started=$SECONDS

# shellcheck source=tests/bench/pinned_server.sh
source "$(dirname "$0")/pinned_server.sh"

# shellcheck source=tests/bench/limiter_cases.sh
source "$(dirname "$0")/limiter_cases.sh"
algorithms=(token_bucket fixed_window sliding_log sliding_window leaky_bucket gcra concurrency)
publish_bench_policies "${algorithms[@]}"
load_case_scripts
load_peer_calls

# command_usec NAME: server us per call of command NAME (fcall, evalsha, incr) since the last reset.
command_usec() {
  cli INFO commandstats | grep "^cmdstat_$1:" | sed 's/.*usec_per_call=\([0-9.]*\).*/\1/'
}

# client CONNECTIONS REQUESTS ARGS...: one redis-benchmark run of REQUESTS calls of ARGS over CONNECTIONS
# connections, each pipelining 16 calls, on CPU 0; prints its output, or fails naming the error
# (checked_benchmark).
client() {
  local connections=$1 calls=$2
  shift 2
  checked_benchmark taskset -c 0 redis-benchmark -p "$port" -n "$calls" -c "$connections" -P 16 -r "$subjects" \
    -q "$@"
}

# bench ARGS...: prints "ops/s usec_per_call" for one redis-benchmark run of ARGS.
bench() {
  cli CONFIG RESETSTAT >/dev/null
  local output rps usec
  output=$(client 32 "$requests" "$@")
  rps=$(grep -o '[0-9.]* requests per second' <<<"$output" | tail -1 | cut -d' ' -f1)
  # The one command the case sent (SCRIPT LOAD and the like are not counted after the reset).
  usec=$(command_usec "${1,,}")
  echo "$rps $usec"
}

# paired OURS THEIRS: "ours_us theirs_us" for the FCALL case OURS and the EVALSHA case THEIRS sent at
# once, by two redis-benchmark clients to the one server, each read from its own command's statistics.
# Both meet the same moment of a shared machine: a pair's rounds stay within a few hundredths of each
# other, where the server us of separate runs drift by a third.
paired() {
  cli CONFIG RESETSTAT >/dev/null
  local ours theirs ours_job theirs_job
  read -r -a ours <<<"$(case_command "$1")"
  read -r -a theirs <<<"$(case_command "$2")"
  client 16 "$pair_requests" "${ours[@]}" >/dev/null &
  ours_job=$!
  client 16 "$pair_requests" "${theirs[@]}" >/dev/null &
  theirs_job=$!
  wait "$ours_job"
  wait "$theirs_job"
  echo "$(command_usec fcall) $(command_usec evalsha)"
}

cases=(scg_allow scg_deny evalsha_return_1 incr floor_admit floor_reject floor_count floor_count_hot
       floor_window_allow floor_window_deny floor_window_unclocked_allow floor_window_unclocked_deny
       floor_window_full_allow floor_window_full_deny floor_window_lean_allow floor_window_lean_deny)
for algorithm in "${algorithms[@]}"; do
  cases+=("${algorithm}_allow" "${algorithm}_deny")
done
# The peers' table, family by family: Sluice's rows at the peers' policy (sluice_acquire, then the lean
# sluice_allow; the fixed window in both window starts), then the peers (when installed).
families=(token_bucket fixed_window sliding_window)
declare -A family_sluice=([token_bucket]="token_bucket" [fixed_window]="fixed_window fixed_window_first_call"
                          [sliding_window]="sliding_window")
# The least a library keeping the contract does on each family's lean path, with no logic (floor.lua):
# a string bucket read and written (TIME, GET, SET / SETRANGE), or a first-call window's count (TIME,
# INCRBY, PEXPIRE / PTTL).
declare -A family_floor=([token_bucket]="floor_admit floor_reject" [fixed_window]="floor_window_allow floor_window_deny"
                         [sliding_window]="floor_admit floor_reject")
declare -A family_peers=([token_bucket]="upstash_token_bucket" [fixed_window]="upstash_fixed_window rlflx_fixed_window"
                         [sliding_window]="upstash_sliding_window")
((${#peer_cases[@]})) || family_peers=()
peer_table=()
for family in "${families[@]}"; do
  read -r -a peers <<<"${family_peers[$family]:-}"
  for sluice in ${family_sluice[$family]}; do peer_table+=("${sluice}_100s" "${sluice}_100s_lean"); done
  peer_table+=("${peers[@]}")
done
for name in "${peer_table[@]}"; do cases+=("${name}_allow" "${name}_deny"); done

run_case() { # run_case NAME: one measurement
  local args
  read -r -a args <<<"$(case_command "$1")"
  bench "${args[@]}"
}

echo "Sluice limiter benchmark: $(redis-server --version | cut -d' ' -f3), $requests calls a case" \
     "(32 connections, pipeline 16, $subjects subjects), server on CPU $server_cpu, client on CPU 0"
echo "warming up (every bucket of the allow path exists before measuring)..."
for name in "${cases[@]}"; do
  read -r -a args <<<"$(case_command "$name")"
  if [[ " ${args[*]} " == *__rand_int__* ]]; then warm_every_subject "$subjects" "${args[@]}"; fi
  client 32 "$warm_requests" "${args[@]}" >/dev/null
done

warmed=$SECONDS
# The tables of separate runs are for reading (no verdict rests on them): one run of each case, so that the
# time goes to the ratios measured at once.
declare -A rps_of usec_of
for name in "${cases[@]}"; do
  measured=$(run_case "$name") # an assignment, so that a failed run stops the benchmark (set -e)
  read -r "rps_of[$name]" "usec_of[$name]" <<<"$measured"
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

# Ratios are kept unrounded (nine digits) and rounded only where printed, to three decimals beside a
# verdict, so that a verdict never rests on a rounded figure.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.9g", a / b}'; }
shown() { awk -v r="$1" 'BEGIN {printf "%.3f", r}'; }
verdict() { awk -v r="$1" -v t="$2" 'BEGIN {print (r >= t) ? "meets" : "BELOW"}'; }
# at_most RATIO TARGET: the verdict on a cost ratio, whose target is a ceiling.
at_most() { awk -v r="$1" -v t="$2" 'BEGIN {print (r <= t) ? "meets" : "ABOVE"}'; }
echo "(The table above: one run of each case, one after the other, for reading; no verdict is taken from it.)"

# The peers' table: the same calls' instructions per call, counted by instruction_bench.sh on a server
# of its own under callgrind (fresh windows there too: 10,000 subjects at callgrind's pace).
peer_paths=(floor_count floor_count_hot floor_admit floor_reject floor_window_allow floor_window_deny
            floor_window_unclocked_allow floor_window_unclocked_deny floor_window_full_allow floor_window_full_deny
            floor_window_lean_allow floor_window_lean_deny)
for name in "${peer_table[@]}"; do peer_paths+=("${name}_allow" "${name}_deny"); done
tabled=$SECONDS
declare -A instructions_of
while read -r name count; do
  instructions_of[$name]=$count
done < <("$source_dir/tests/bench/instruction_bench.sh" "$build" 5000 "${peer_paths[@]}" \
           | grep '^count ' | cut -d' ' -f2-)
((${#instructions_of[@]} == ${#peer_paths[@]})) || { echo "$bench_name: instruction counts are missing" >&2; exit 1; }

echo
echo "At the peers' policy: 100 per second, burst 100, $subjects subjects (the allow path opens fresh windows)," \
     "the deny path on one hot key; instructions per call under callgrind"
printf '| %-36s | %10s | %7s | %8s | %10s | %7s | %8s | %s\n' "script" "allow op/s" "allow us" "instr" \
  "deny op/s" "deny us" "instr" "command (allow path; the deny path sends {hot})"
peer_row() { # peer_row LABEL ALLOW_CASE DENY_CASE
  printf '| %-36s | %10.0f | %7s | %8s | %10.0f | %7s | %8s | %s\n' "$1" "${rps_of[$2]}" "${usec_of[$2]}" \
    "${instructions_of[$2]}" "${rps_of[$3]}" "${usec_of[$3]}" "${instructions_of[$3]}" "$(case_command "$2")"
}
for name in "${peer_table[@]}"; do peer_row "$name" "${name}_allow" "${name}_deny"; done
peer_row "floor: counter" floor_count floor_count_hot
peer_row "floor: string bucket" floor_admit floor_reject
peer_row "floor: first-call window, lean reply" floor_window_allow floor_window_deny
peer_row "floor: the same without TIME" floor_window_unclocked_allow floor_window_unclocked_deny
peer_row "floor: the same, acquire's contract" floor_window_full_allow floor_window_full_deny
peer_row "floor: the same, allow's contract" floor_window_lean_allow floor_window_lean_deny

# The ratios the targets are judged on, each measured at once (paired()), once per round: the SCG targets'
# rows and floors against the gateway-compatible script, Sluice's rows and the contract's floors against the
# fastest peer of their family and path (by the table above), and FCALL against EVALSHA for one body.
declare -A fastest_peer pair_rounds
pairs=()
add_pair() { [ -n "${pair_rounds[$1 $2]+set}" ] || { pairs+=("$1 $2"); pair_rounds[$1 $2]=; }; }
# The SCG targets (throughput over the gateway-compatible script: the token bucket 1.3x allowing and 1.4x
# denying, the fixed window 2.5x both ways), each beside the floor of its path (tests/bench/floor.lua: the
# Redis calls and reply any library keeping the contract must make, so the most an algorithm could reach).
scg_targets=("token_bucket allow 1.3 floor_admit" "token_bucket deny 1.4 floor_reject"
             "fixed_window allow 2.5 floor_count" "fixed_window deny 2.5 floor_count_hot")
add_pair floor_reject floor_reject_script
for check in "${scg_targets[@]}"; do
  read -r algorithm path target floor <<<"$check"
  add_pair "${algorithm}_$path" "scg_$path"
  add_pair "$floor" "scg_$path"
done
path_floors() { # path_floors FAMILY PATH: the family's lean floor and the counter floor of PATH
  local floors
  read -r -a floors <<<"${family_floor[$1]}"
  if [[ $2 == allow ]]; then echo "${floors[0]} floor_count"; else echo "${floors[1]} floor_count_hot"; fi
}
for family in "${families[@]}"; do
  for path in allow deny; do
    fastest=
    for peer in ${family_peers[$family]:-}; do
      if [ -z "$fastest" ] || awk -v a="${usec_of[${peer}_$path]}" -v b="${usec_of[$fastest]}" 'BEGIN {exit !(a < b)}'
      then fastest=${peer}_$path; fi
    done
    [ -n "$fastest" ] || continue
    fastest_peer[$family:$path]=$fastest
    for sluice in ${family_sluice[$family]}; do
      add_pair "${sluice}_100s_lean_$path" "$fastest"
      add_pair "${sluice}_100s_$path" "$fastest"
    done
    read -r lean_floor count_floor <<<"$(path_floors "$family" "$path")"
    add_pair "$lean_floor" "$fastest"
    add_pair "$count_floor" "$fastest"
  done
done
# The first-call window (seed 001's, which decides without the clock) against each peer of its family, beside
# sluice_allow's contract floor against the same peer, and its full path against the floor that reads no TIME
# either.
first_call_targets=("allow 1" "deny 1.05")
for check in "${first_call_targets[@]}"; do
  read -r path _ <<<"$check"
  for peer in ${family_peers[fixed_window]:-}; do
    add_pair "fixed_window_first_call_100s_lean_$path" "${peer}_$path"
    add_pair "floor_window_lean_$path" "${peer}_$path"
  done
  fastest=${fastest_peer[fixed_window:$path]:-}
  [ -z "$fastest" ] || { add_pair "floor_window_unclocked_$path" "$fastest"; add_pair "floor_window_full_$path" "$fastest"; }
done
counted=$SECONDS
for _ in $(seq "$rounds"); do
  for pair in "${pairs[@]}"; do
    read -r ours_case theirs_case <<<"$pair"
    measured=$(paired "$ours_case" "$theirs_case")
    read -r ours theirs <<<"$measured"
    pair_rounds[$pair]+="$(ratio "$ours" "$theirs") "
  done
done
paired_at=$SECONDS
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
pair_median() { median <<<"${pair_rounds[$1 $2]}"; }
# rounds_shown OURS THEIRS [inverted]: a pair's rounds, three decimals each (inverted: their us over ours).
rounds_shown() {
  local r listed=
  for r in ${pair_rounds[$1 $2]}; do
    [ -z "${3:-}" ] || r=$(ratio 1 "$r")
    listed+="$(shown "$r") "
  done
  echo "${listed% }"
}

echo
echo "Measured at once (two clients of $pair_requests calls each, one server, $rounds rounds): the Sluice case's server us" \
     "over the other's"
printf '| %-40s | %-30s | %6s | %s\n' "Sluice case (FCALL)" "against (EVALSHA)" "median" "rounds"
for pair in "${pairs[@]}"; do
  read -r ours theirs <<<"$pair"
  printf '| %-40s | %-30s | %6s | %s\n' "$ours" "$theirs" "$(shown "$(pair_median "$ours" "$theirs")")" \
    "$(rounds_shown "$ours" "$theirs")"
done

echo
# The SCG targets, judged round by round on the ratios measured at once: the script's server us over the
# algorithm's (what the throughput ratio is on a server that is the bottleneck).
for check in "${scg_targets[@]}"; do
  read -r algorithm path target floor <<<"$check"
  met=0 total=0
  for r in ${pair_rounds[${algorithm}_$path scg_$path]}; do
    total=$((total + 1))
    [[ $(verdict "$(ratio 1 "$r")" "$target") == meets ]] && met=$((met + 1))
  done
  median_speedup=$(ratio 1 "$(pair_median "${algorithm}_$path" "scg_$path")")
  echo "$algorithm $path path, measured at once with the SCG-compatible script: its server us over the" \
       "algorithm's $(rounds_shown "${algorithm}_$path" "scg_$path" inverted) (median $(shown "$median_speedup")x;" \
       "target ${target}x: $(verdict "$median_speedup" "$target"), $met of $total rounds at least ${target}x;" \
       "the floor reaches $(shown "$(ratio 1 "$(pair_median "$floor" "scg_$path")")")x)"
done

echo "floor_reject through FCALL: $(shown "$(pair_median floor_reject floor_reject_script)")x the server us of the" \
     "same body through EVALSHA (what a Functions library pays per call against a script)"

# The targets: the lean path at least as fast as the fastest peer of its family (a ratio of server us
# of at most 1), the full path within 1.25x of the floor row with the same reply (a counter, six
# elements): both measured against the same peer, so the peer's time cancels out.
for family in "${families[@]}"; do
  for path in allow deny; do
    fastest=${fastest_peer[$family:$path]:-}
    [ -n "$fastest" ] || continue
    read -r lean_floor count_floor <<<"$(path_floors "$family" "$path")"
    for sluice in ${family_sluice[$family]}; do
      full=${sluice}_100s_$path lean=${sluice}_100s_lean_$path
      r=$(ratio "$(pair_median "$full" "$fastest")" "$(pair_median "$count_floor" "$fastest")")
      echo "$full: $(shown "$r")x the server us of $count_floor (target at most 1.25x: $(at_most "$r" 1.25));" \
           "$(shown "$(ratio "${instructions_of[$full]}" "${instructions_of[$count_floor]}")")x its instructions;" \
           "rounds against $fastest: $(rounds_shown "$full" "$fastest") and $(rounds_shown "$count_floor" "$fastest")"
      r=$(pair_median "$lean" "$fastest")
      echo "$lean: $(shown "$r")x the server us of the fastest peer, $fastest (target at most 1:" \
           "$(at_most "$r" 1); rounds $(rounds_shown "$lean" "$fastest"));" \
           "$(shown "$(ratio "${instructions_of[$lean]}" "${instructions_of[$fastest]}")")x its instructions;" \
           "the contract's floor for this path, $lean_floor, is $(shown "$(pair_median "$lean_floor" "$fastest")")x" \
           "its server us and $(shown "$(ratio "${instructions_of[$lean_floor]}" "${instructions_of[$fastest]}")")x" \
           "its instructions"
    done
  done
done

# The first-call window's targets, judged on every round measured at once: its lean path at or below every
# peer's server us allowing and within 1.05x denying, its full path within 1.1x of the floor without TIME.
for check in "${first_call_targets[@]}"; do
  read -r path target <<<"$check"
  lean=fixed_window_first_call_100s_lean_$path
  for peer in ${family_peers[fixed_window]:-}; do
    met=0 total=0
    for r in ${pair_rounds[$lean ${peer}_$path]}; do
      total=$((total + 1))
      [[ $(at_most "$r" "$target") == meets ]] && met=$((met + 1))
    done
    r=$(pair_median "$lean" "${peer}_$path")
    echo "$lean against ${peer}_$path: $(shown "$r")x its server us (target at most ${target}x: $(at_most "$r" "$target")," \
         "$met of $total rounds; rounds $(rounds_shown "$lean" "${peer}_$path"))"
    # The floor of that line: sluice_allow's contract (the policy's name passed, the key checked, three elements
    # replied) with no logic, against the same peer at once.
    contract=floor_window_lean_$path
    floor_r=$(pair_median "$contract" "${peer}_$path")
    echo "$lean against ${peer}_$path: allow's contract floor, $contract, is $(shown "$floor_r")x its server us" \
         "(rounds $(rounds_shown "$contract" "${peer}_$path")); the lean path is $(shown "$(ratio "$r" "$floor_r")")x" \
         "that floor's"
  done
  fastest=${fastest_peer[fixed_window:$path]:-}
  [ -n "$fastest" ] || continue
  full=fixed_window_first_call_100s_$path unclocked=floor_window_unclocked_$path
  r=$(ratio "$(pair_median "$full" "$fastest")" "$(pair_median "$unclocked" "$fastest")")
  echo "$full: $(shown "$r")x the server us of the floor without TIME, $unclocked (target at most 1.1x:" \
       "$(at_most "$r" 1.1)); rounds against $fastest: $(rounds_shown "$full" "$fastest") and" \
       "$(rounds_shown "$unclocked" "$fastest")"
  # The same floor with what sluice_acquire's contract adds to it: the policy's name passed, the key checked to
  # be that policy's bucket, six elements replied.
  contract=floor_window_full_$path
  r=$(ratio "$(pair_median "$full" "$fastest")" "$(pair_median "$contract" "$fastest")")
  echo "$full: $(shown "$r")x the server us of that floor with acquire's argument, key check and reply, $contract;" \
       "that floor is $(shown "$(ratio "$(pair_median "$contract" "$fastest")" "$(pair_median "$unclocked" "$fastest")")")x" \
       "the floor without TIME; rounds against $fastest: $(rounds_shown "$contract" "$fastest")"
done

echo
echo "$bench_name ran in $((SECONDS - started)) s: setting up and warming up $((warmed - started)) s, separate runs $((tabled - warmed)) s," \
     "instructions under callgrind $((counted - tabled)) s, pairs measured at once $((paired_at - counted)) s"
