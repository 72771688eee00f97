# SPDX-License-Identifier: GPL-3.0-or-later
# Sourced by the benchmarks that count the server's instructions under callgrind (instruction_bench.sh,
# rules_bench.sh), after pinned_server.sh started the server with
# server_wrapper=(valgrind --tool=callgrind '--callgrind-out-file=@work@/callgrind.%p').

# callgrind_on_server OPTION: callgrind_control OPTION on the server (-z zeroes the counts, -d dumps
# them). It exits 0 even when it failed, so its output is what tells.
callgrind_on_server() {
  local output
  output=$(callgrind_control "$1" "$server_pid" 2>&1)
  if grep -qi 'error' <<<"$output"; then
    echo "$bench_name: callgrind_control $1 failed: $(grep -i -m1 'error' <<<"$output")" >&2
    exit 1
  fi
}

# instructions_per_call CALLS COMMAND...: the server's instructions per call over CALLS calls of COMMAND
# (redis-benchmark: 4 connections, pipeline 16, __rand_int__ over 10,000), counted from zero.
instructions_per_call() {
  local calls=$1 dump
  shift
  callgrind_on_server -z
  checked_benchmark redis-benchmark -p "$port" -n "$calls" -r 10000 -c 4 -P 16 -q "$@" >/dev/null
  callgrind_on_server -d
  # The newest dump: callgrind numbers the dumps asked for from 1.
  dump="$work/callgrind.$server_pid.$(find "$work" -maxdepth 1 -name "callgrind.$server_pid.*" | wc -l)"
  if ! grep -q '^summary:' "$dump" 2>/dev/null; then
    echo "$bench_name: callgrind wrote no dump for $*" >&2
    exit 1
  fi
  echo $(($(grep -m1 '^summary:' "$dump" | cut -d' ' -f2) / calls))
}
