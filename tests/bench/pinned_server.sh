# SPDX-License-Identifier: GPL-3.0-or-later
# Sourced by the benchmarks: starts a private redis-server on a free loopback port, pinned to CPU 1
# (CPU 0 when there is one), without persistence, in a temporary folder; with server_wrapper=(PROGRAM
# ARGS...) set before, under that program (valgrind; @work@ in ARGS stands for the folder). Sets $work,
# $port, $server_pid, $server_cpu, cli(), server_running(), while_server_runs() and checked_benchmark().
#
# Every way out stops the server and removes the folder: the EXIT trap runs on success, on a failed
# command (set -e) and on SIGINT or SIGTERM; on SIGKILL the kernel kills the server (setpriv
# --pdeathsig) and only the folder stays. A failed command is named on stderr, and so is a server
# that died under the benchmark.
bench_name=$(basename "$0")
work=$(mktemp -d /tmp/sluice-bench.XXXXXX)
server_pid=

# True while the server runs (a killed child stays a zombie until this shell reaps it).
server_running() {
  [ -n "$server_pid" ] && [[ $(ps -o stat= -p "$server_pid" 2>/dev/null) == [^Z]* ]]
}

stop_server() {
  local status=$?
  if ((status != 0)) && [ -n "$server_pid" ] && ! server_running; then
    echo "$bench_name: its redis-server (pid $server_pid) died during the run" >&2
  fi
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap stop_server EXIT
# A failure inside $(...) stops it too (bash clears -e there by default), so that the assignment
# taking its output fails and stops the benchmark.
shopt -s inherit_errexit
# Names a failed command. Functions and subshells see the ERR trap too; only this shell reports.
report_failure() {
  [ "$BASHPID" != "$$" ] || echo "$bench_name: line $2: $BASH_COMMAND: exit status $1" >&2
}
set -E
trap 'report_failure $? $LINENO' ERR

# shellcheck source=tests/support/loopback_ports.sh
source "$(dirname "${BASH_SOURCE[0]}")/../support/loopback_ports.sh"
port=$(random_quiet_port)
while port_in_use "$port"; do port=$((port + 1)); done
cpus=$(nproc)
server_cpu=$((cpus > 1 ? 1 : 0))
die_with_us=()
if setpriv --help 2>/dev/null | grep -q -- --pdeathsig; then
  die_with_us=(setpriv --pdeathsig KILL)
fi
wrapper=(${server_wrapper+"${server_wrapper[@]//@work@/$work}"})
"${die_with_us[@]}" taskset -c "$server_cpu" "${wrapper[@]}" redis-server --port "$port" --bind 127.0.0.1 --save "" \
  --appendonly no --dir "$work" >"$work/redis.log" 2>&1 &
server_pid=$!
# Up to a minute: a busy machine (or valgrind) starts it slowly.
for _ in $(seq 600); do
  redis-cli -p "$port" ping >/dev/null 2>&1 && break
  if ! server_running; then
    echo "$bench_name: redis-server did not start: $(tail -n 3 "$work/redis.log")" >&2
    exit 1
  fi
  sleep 0.1
done
if ! redis-cli -p "$port" ping >/dev/null 2>&1; then
  echo "$bench_name: redis-server did not answer within a minute" >&2
  exit 1
fi
cli() { redis-cli -p "$port" "$@"; }

# The helpers below exit (the benchmark, or the $(...) they run in) rather than return a failure,
# so that the ERR trap names the caller's line, not theirs.

# while_server_runs COMMAND...: runs COMMAND, but stops it and fails as soon as the server is gone
# (redis-benchmark, for one, waits forever for a server it cannot reach).
while_server_runs() {
  "$@" &
  local job=$! status=0
  while kill -0 "$job" 2>/dev/null; do
    if ! server_running; then
      kill "$job" 2>/dev/null || true
      wait "$job" 2>/dev/null || true
      echo "$bench_name: the redis-server (pid $server_pid) died during: $*" >&2
      exit 1
    fi
    sleep 0.05
  done
  wait "$job" || status=$?
  ((status == 0)) || exit "$status"
}

# checked_benchmark COMMAND...: runs a redis-benchmark command line while the server runs and prints
# its output (a line per figure); fails, naming the error, when it failed. redis-benchmark may print
# an error and still exit 0, so its output is what tells: an error, or no figure.
checked_benchmark() {
  local output status=0 error
  output=$(while_server_runs "$@" 2>&1 | tr '\r' '\n') || status=$?
  if ! server_running; then
    echo "$bench_name: the redis-server (pid $server_pid) died during: $*" >&2
    exit 1
  fi
  error=$(grep -iE -m1 'err|could not|refused|reset by peer' <<<"$output" || true)
  if ((status != 0)) || [ -n "$error" ] || ! grep -q 'requests per second' <<<"$output"; then
    echo "$bench_name: $* failed (exit status $status): ${error:-$(tail -n 2 <<<"$output")}" >&2
    exit 1
  fi
  printf '%s\n' "$output"
}

# warm_every_subject SUBJECTS ARGS...: sends the redis-benchmark command ARGS once for each subject its
# __rand_int__ can name (0 to SUBJECTS-1, twelve digits as redis-benchmark writes them), pipelined, so that
# every bucket of an allow path exists before it is measured. A warm-up of random calls leaves some cold: N
# random calls over N subjects miss e^-1 of them (37%), 2N miss 13.5%. Fails when any call failed.
warm_every_subject() {
  local subjects=$1 summary
  shift
  summary=$(python3 - "$subjects" "$@" <<'PY' | while_server_runs redis-cli -p "$port" --pipe 2>&1
import sys
subjects, words = int(sys.argv[1]), [w.encode() for w in sys.argv[2:]]
out = sys.stdout.buffer
for i in range(subjects):
    number = b'%012d' % i
    args = [w.replace(b'__rand_int__', number) for w in words]
    out.write(b'*%d\r\n' % len(args) + b''.join(b'$%d\r\n%s\r\n' % (len(a), a) for a in args))
PY
)
  if ! grep -q "errors: 0, replies: $subjects" <<<"$summary"; then
    echo "$bench_name: warming $* over $subjects subjects failed: $summary" >&2
    exit 1
  fi
}
