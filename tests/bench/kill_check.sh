#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Kill check for one benchmark: runs COMMAND, kills -9 the redis-server it started (the Nth, for one
# that starts several) SECONDS after that server appears, and checks that the benchmark notices and
# cleans up:
#   - it exits non-zero (its last lines on stderr are shown: they should say why);
#   - no process it started is still running, its redis-server included;
#   - the server's folder and every new folder under /tmp named after the benchmark (sluice-bench.*,
#     NAME-* from QTemporaryDir) is gone.
# Prints what it saw and PASS or FAIL; exits 0 on PASS. Only processes of COMMAND's tree are touched.
#
# Usage: tests/bench/kill_check.sh [--after SECONDS] [--server N] [--limit SECONDS] -- COMMAND [ARGS...]
#   e.g. tests/bench/kill_check.sh --after 10 -- build/tests/inspector_bench
#        tests/bench/kill_check.sh --after 3 -- tests/bench/limiter_bench.sh build 1
set -euo pipefail
after=5    # seconds between the server's appearance and its kill
nth=1      # which of the servers it starts, in order
limit=600  # seconds the benchmark may take to exit after the kill
while [ $# -gt 0 ]; do
  case $1 in
    --after) after=$2; shift 2 ;;
    --server) nth=$2; shift 2 ;;
    --limit) limit=$2; shift 2 ;;
    --) shift; break ;;
    *) break ;;
  esac
done
if [ $# -eq 0 ]; then
  echo "usage: kill_check.sh [--after SECONDS] [--server N] [--limit SECONDS] -- COMMAND [ARGS...]" >&2
  exit 2
fi

say() { echo "kill_check: $*"; }
name=$(basename "$(for arg in "$@"; do [[ $arg == env || $arg == *=* ]] || { echo "$arg"; break; }; done)")
name=${name%.sh}
logs=$(mktemp -d /tmp/kill-check.XXXXXX)
bench=
trap 'if [ -n "$bench" ] && kill -0 "$bench" 2>/dev/null; then kill -9 "$bench"; fi; rm -rf "$logs"' EXIT

# Folders of ours under /tmp now, to tell which the benchmark made.
tmp_folders() { find /tmp -mindepth 1 -maxdepth 1 -type d -user "$(id -u)" 2>/dev/null | sort; }
tmp_folders >"$logs/before"

# "pid<TAB>start<TAB>args" of every process below ROOT now; the start time tells a reused pid apart.
descendants() {
  ps -e -o pid=,ppid=,lstart=,args= | awk -v root="$1" '
    {
      parent[$1] = $2
      args = $8
      for (i = 9; i <= NF; i++) args = args " " $i
      line[$1] = $1 "\t" $3 " " $4 " " $5 " " $6 " " $7 "\t" args
    }
    END {
      for (pid in parent)
        for (p = parent[pid]; p > 1; p = parent[p])
          if (p == root) { print line[pid]; break }
    }'
}
# alive PID START: the process recorded so still runs (and is not a zombie).
alive() {
  ps -o stat=,lstart= -p "$1" 2>/dev/null \
    | awk -v start="$2" '{ exit !($1 !~ /^Z/ && $2 " " $3 " " $4 " " $5 " " $6 == start) }'
}

"$@" >"$logs/stdout" 2>"$logs/stderr" &
bench=$!
say "started (pid $bench): $*"
started=$SECONDS
touch "$logs/seen"
record() { descendants "$bench" >>"$logs/seen"; }

# The server: the Nth process of the tree to run redis-server (directly or under valgrind).
server=
until [ -n "$server" ]; do
  kill -0 "$bench" 2>/dev/null || break
  record
  server=$(awk -F'\t' -v nth="$nth" '
             $3 ~ /redis-server/ && $3 !~ /--version/ && !seen[$1 $2]++ && ++found == nth { print; exit }' "$logs/seen")
  [ -n "$server" ] || sleep 0.1
done
if [ -z "$server" ]; then
  say "FAIL: the benchmark ended before redis-server number $nth of it appeared"
  cat "$logs/stderr"
  exit 1
fi
IFS=$'\t' read -r server_pid server_start server_args <<<"$server"
# Its folder: the --dir it was given, else its working folder (redis-server changes to that --dir).
server_dir=$(grep -oP -- '--dir \K\S+' <<<"$server_args" || readlink "/proc/$server_pid/cwd" 2>/dev/null || true)
say "its redis-server: pid $server_pid ($server_args), folder ${server_dir:-unknown}"
kill_at=$((SECONDS + after))
while ((SECONDS < kill_at)) && kill -0 "$bench" 2>/dev/null; do
  record
  sleep 0.1
done
if ! kill -0 "$bench" 2>/dev/null; then
  say "FAIL: the benchmark ended before the kill (a smaller --after, or larger parameters, can catch it)"
  tail -n 5 "$logs/stderr"
  exit 1
fi
if ! alive "$server_pid" "$server_start"; then
  say "FAIL: the server ended by itself before the kill"
  tail -n 5 "$logs/stderr"
  exit 1
fi
kill -9 "$server_pid"
killed=$SECONDS
say "killed it with SIGKILL $((killed - started)) s into the run"

# Wait for the benchmark, recording what it starts meanwhile.
status=
while ((SECONDS < killed + limit)); do
  if ! kill -0 "$bench" 2>/dev/null; then
    status=0
    wait "$bench" || status=$?
    break
  fi
  record
  sleep 0.1
done
verdict=PASS
if [ -z "$status" ]; then
  say "FAIL: the benchmark was still running $limit s after the kill; killing it"
  kill -9 "$bench"
  wait "$bench" || true
  status=killed
  verdict=FAIL
fi
bench=
say "the benchmark exited with status $status $((SECONDS - killed)) s after the kill; its last lines on stderr:"
tail -n 5 "$logs/stderr" | sed 's/^/    /'
[ "$status" != 0 ] || { say "FAIL: exit status 0 after its server was killed"; verdict=FAIL; }

sleep 1 # a child's own exit may still be under way
left=()
while IFS=$'\t' read -r pid start args; do
  alive "$pid" "$start" && left+=("$pid $args")
done < <(sort -u "$logs/seen")
if [ ${#left[@]} -eq 0 ]; then
  say "processes it started still running: none ($(sort -u "$logs/seen" | wc -l) seen during the run)"
else
  verdict=FAIL
  say "FAIL: processes it started still running:"
  printf '    %s\n' "${left[@]}"
fi

tmp_folders >"$logs/after"
new=$(comm -13 "$logs/before" "$logs/after" | grep -E "^/tmp/(sluice-bench\.|$name-)" || true)
if [ -n "$server_dir" ] && [ -d "$server_dir" ]; then
  new=$(printf '%s\n%s' "$server_dir" "$new" | grep -v '^$' | sort -u)
fi
if [ -z "$new" ]; then
  say "temporary folders left: none (the server's folder ${server_dir:-?} is gone)"
else
  verdict=FAIL
  say "FAIL: temporary folders left:"
  while read -r folder; do echo "    $folder"; done <<<"$new"
fi
say "$verdict"
[ "$verdict" == PASS ]
