# SPDX-License-Identifier: GPL-3.0-or-later
# Sourced by the limiter benchmarks (limiter_bench.sh, instruction_bench.sh): the policies they
# publish and what each case sends, so both measure the same calls. Needs $build, $ctl, $port, $work,
# $source_dir and cli().

# publish_bench_policies ALGORITHM...: one allow policy (never rejects) and one deny policy (1 per
# hour) per algorithm, and the peers' policy (<algorithm>_100s: 100 per second, burst 100), applied and
# published; for the fixed window also fixed_window_first_call_100s, whose windows open at each
# subject's first call.
publish_bench_policies() {
  {
    echo '{"policies": ['
    local first=1 algorithm allow_limit
    for algorithm in "$@"; do
      case $algorithm in
        sliding_log|concurrency) allow_limit=100000 ;;
        *) allow_limit=1000000000 ;; # per hour: warm buckets stay in their window
      esac
      [[ $first == 1 ]] || echo ','
      first=0
      printf '{"name": "%s_allow", "algorithm": "%s", "limit": %s, "window_ms": 3600000},\n' \
        "$algorithm" "$algorithm" "$allow_limit"
      printf '{"name": "%s_deny", "algorithm": "%s", "limit": 1, "window_ms": 3600000},\n' "$algorithm" "$algorithm"
      printf '{"name": "%s_100s", "algorithm": "%s", "limit": 100, "window_ms": 1000}' "$algorithm" "$algorithm"
      [[ $algorithm != fixed_window ]] || printf ',\n{"name": "fixed_window_first_call_100s", "algorithm":
        "fixed_window", "limit": 100, "window_ms": 1000, "window_start": "first_call"}'
    done
    echo ']}'
  } > "$work/policies.json"
  "$ctl" -u "redis://127.0.0.1:$port" apply "$work/policies.json" >/dev/null
  "$ctl" -u "redis://127.0.0.1:$port" publish >/dev/null 2>&1
}

# load_case_scripts: the SCG-compatible script ($scg), EVALSHA "return 1" ($noop), the floor library
# and its floor_reject as a script ($floor_script).
load_case_scripts() {
  scg=$(cli SCRIPT LOAD "$(cat "$source_dir/lua/compat_scg_token_bucket.lua")")
  noop=$(cli SCRIPT LOAD "return 1")
  floor_script=$(cli -x SCRIPT LOAD < "$source_dir/tests/bench/floor_reject_script.lua")
  cli -x FUNCTION LOAD < "$source_dir/tests/bench/floor.lua" >/dev/null
}

# The peers' cases, CASE_allow and CASE_deny each (see tests/bench/peers/peer_calls.js).
peer_cases=(upstash_fixed_window rlflx_fixed_window upstash_sliding_window upstash_token_bucket)
declare -A peer_command

# load_peer_calls [WINDOW_S]: loads each peer's script, taken from its npm package as installed by ./dev.sh test
# (build/peers-node), for 100 calls per WINDOW_S seconds (default 1), and sets peer_command[CASE_PATH]. Without
# the packages (or Node.js) it says so and empties peer_cases, so that the rest is still measured; packages that
# are there but fail are a failure.
load_peer_calls() {
  local modules=$build/peers-node/node_modules name call sha window=${1:-1}
  if ! command -v node >/dev/null || [ ! -d "$modules/@upstash/ratelimit" ] \
     || [ ! -d "$modules/rate-limiter-flexible" ]; then
    echo "$bench_name: the peer rate limiters are not installed in $modules (./dev.sh test installs them with" \
         "npm ci); measuring without them" >&2
    peer_cases=()
    return 0
  fi
  mkdir -p "$work/peers"
  node "$source_dir/tests/bench/peers/peer_calls.js" "$modules" "$work/peers" "$window"
  for name in "${peer_cases[@]/%/_allow}" "${peer_cases[@]/%/_deny}"; do
    sha=$(cli -x SCRIPT LOAD < "$work/peers/$name.lua")
    [[ $sha =~ ^[0-9a-f]{40}$ ]] || { echo "$bench_name: SCRIPT LOAD of $name failed: $sha" >&2; exit 1; }
    call=$(tr '\n' ' ' < "$work/peers/$name.call")
    peer_command[$name]="EVALSHA $sha ${call% }"
  done
}

# case_command NAME: the redis-benchmark arguments of one case (no argument holds a space). The allow
# paths use random subjects (__rand_int__), the deny paths one hot key.
case_command() {
  case $1 in
    scg_allow) echo EVALSHA "$scg" 2 'request_rate_limiter.{__rand_int__}.tokens' \
                 'request_rate_limiter.{__rand_int__}.timestamp' 1000000 1000000000 1700000000 1 ;;
    scg_deny) echo EVALSHA "$scg" 2 'request_rate_limiter.{hot}.tokens' 'request_rate_limiter.{hot}.timestamp' \
                1 1 1700000000 1 ;;
    evalsha_return_1) echo EVALSHA "$noop" 0 ;;
    incr) echo INCR 'counter:{__rand_int__}' ;;
    floor_reply) echo FCALL floor_reply 0 ;;
    floor_admit) echo FCALL floor_admit 1 'floor:{__rand_int__}' ;;
    floor_reject) echo FCALL floor_reject 1 'floor:{hot}' ;;
    floor_reject_script) echo EVALSHA "$floor_script" 1 'floorscript:{hot}' ;;
    floor_count) echo FCALL floor_count 1 'floorcount:{__rand_int__}' ;;
    floor_count_hot) echo FCALL floor_count 1 'floorcount:{hot}' ;;
    floor_window_allow) echo FCALL floor_window 1 'floorwindow:{__rand_int__}' ;;
    floor_window_deny) echo FCALL floor_window 1 'floorwindow:{hot}' ;;
    floor_window_unclocked_allow) echo FCALL floor_window_unclocked 1 'floorunclocked:{__rand_int__}' ;;
    floor_window_unclocked_deny) echo FCALL floor_window_unclocked 1 'floorunclocked:{hot}' ;;
    floor_window_full_allow) echo FCALL floor_window_unclocked_full 1 'floorfull:{__rand_int__}' \
                               fixed_window_first_call_100s ;;
    floor_window_full_deny) echo FCALL floor_window_unclocked_full 1 'floorfull:{hot}' fixed_window_first_call_100s ;;
    floor_window_lean_allow) echo FCALL floor_window_unclocked_lean 1 'floorlean:{__rand_int__}' \
                               fixed_window_first_call_100s ;;
    floor_window_lean_deny) echo FCALL floor_window_unclocked_lean 1 'floorlean:{hot}' fixed_window_first_call_100s ;;
    *_100s_lean_allow) echo FCALL sluice_allow 1 "sluice:${1%_lean_allow}:{__rand_int__}" "${1%_lean_allow}" ;;
    *_100s_lean_deny) echo FCALL sluice_allow 1 "sluice:${1%_lean_deny}:{hot}" "${1%_lean_deny}" ;;
    *_100s_allow) echo FCALL sluice_acquire 1 "sluice:${1%_allow}:{__rand_int__}" "${1%_allow}" ;;
    *_100s_deny) echo FCALL sluice_acquire 1 "sluice:${1%_deny}:{hot}" "${1%_deny}" ;;
    upstash_*|rlflx_*) echo "${peer_command[$1]}" ;;
    *_allow) echo FCALL sluice_acquire 1 "sluice:$1:{__rand_int__}" "$1" ;;
    *_deny) echo FCALL sluice_acquire 1 "sluice:$1:{hot}" "$1" ;;
  esac
}
