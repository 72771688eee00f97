#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs one language's limiter snippet (docs/snippets/limiter.py or .js) against a private redis-server:
# the policies in policies.json applied and published with sluicectl, the snippet connected as the user
# `sluicectl acl service` prints. A missing interpreter or client library fails the test.
#   run_snippet_tests.sh python|node SLUICECTL NODE_MODULES
set -euo pipefail

language=${1:?usage: run_snippet_tests.sh python|node SLUICECTL NODE_MODULES}
sluicectl=${2:?usage: run_snippet_tests.sh python|node SLUICECTL NODE_MODULES}
node_modules=${3:?usage: run_snippet_tests.sh python|node SLUICECTL NODE_MODULES}
here=$(cd "$(dirname "$0")" && pwd)
snippets=$(cd "$here/../../docs/snippets" && pwd)

fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }

# Debian's interpreter, which python3-redis installs into (a python3 earlier on PATH may lack it).
python=/usr/bin/python3
case $language in
  python)
    [ -x "$python" ] || fail "$python is missing: ./dev.sh test installs python3 and python3-redis"
    "$python" -I -c 'import redis' 2>/dev/null || fail "redis-py is missing: ./dev.sh test installs python3-redis" ;;
  node)
    command -v node >/dev/null || fail "node is missing: ./dev.sh test installs nodejs"
    [ -d "$node_modules/ioredis" ] || fail "no ioredis in $node_modules: ./dev.sh test installs it (npm ci)" ;;
  *) fail "unknown language $language" ;;
esac

# shellcheck source=tests/support/loopback_ports.sh
source "$here/../support/loopback_ports.sh"
work=$(mktemp -d)
servers=()
trap 'exit 1' TERM INT HUP
stop_servers() {
  local pid
  for pid in "${servers[@]}"; do
    kill -CONT "$pid" 2>/dev/null || true
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap stop_servers EXIT
# start_server NAME [redis-server options]: starts a private server; sets port and server (its pid).
# Another process may take the port between the check and the bind: then the server exits, and the
# next attempt takes another port.
start_server() {
  local name=$1 last_log=
  shift
  mkdir -p "$work/$name"
  server=
  for _attempt in 1 2 3 4 5; do
    port=$(random_quiet_port)
    while port_in_use "$port"; do port=$((port + 1)); done
    # The kernel kills the server with this script, however it ends; the trap covers every other way out
    # (SIGCONT first: the checks freeze it).
    setpriv --pdeathsig KILL redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
      --dir "$work/$name" --logfile "$work/$name/redis.log" "$@" &
    server=$!
    servers+=("$server")
    for _ in $(seq 100); do
      redis-cli -p "$port" ping >/dev/null 2>&1 && break
      kill -0 "$server" 2>/dev/null || break
      sleep 0.1
    done
    redis-cli -p "$port" ping >/dev/null 2>&1 && return 0
    last_log=$(tail -5 "$work/$name/redis.log")
    kill -KILL "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
  done
  fail "redis-server ($name) did not start: $last_log"
}
# The primary, and a replica for the strict calls' WAIT.
start_server replica
replica_port=$port replica=$server
start_server primary
redis-cli -p "$replica_port" replicaof 127.0.0.1 "$port" >/dev/null
for _ in $(seq 100); do
  redis-cli -p "$port" info replication | grep -q '^slave0:.*state=online' && break
  sleep 0.1
done
redis-cli -p "$port" info replication | grep -q '^slave0:.*state=online' || fail "the replica did not attach"

# Quiet unless they fail (a server without persistence makes them warn). The same policies in another
# namespace and database, whose library the checks call by its own name.
for where in "" "-n 1 --namespace team.b-c_d"; do
  for step in "apply $here/policies.json" publish; do
    # shellcheck disable=SC2086 # the flags' and the step's words
    output=$("$sluicectl" -p "$port" $where $step 2>&1) || fail "sluicectl $where $step: $output"
  done
done
password=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
read -r -a acl < <("$sluicectl" acl service | grep '^ACL SETUSER')
acl=("${acl[@]/#>CHANGE-ME/>$password}")
[ "$(redis-cli -p "$port" "${acl[@]}")" = OK ] || fail "the service role's ACL SETUSER line was refused"

export SLUICE_SNIPPETS_DIR=$snippets
export SLUICE_SNIPPET_SERVICE_URL=redis://sluice-service:$password@127.0.0.1:$port
export SLUICE_SNIPPET_ADMIN_URL=redis://127.0.0.1:$port
export SLUICE_SNIPPET_SERVER_PID=$server
export SLUICE_SNIPPET_REPLICA_PID=$replica
# For the checks, after they flushed the functions: quiet unless it fails.
export SLUICE_SNIPPET_REPUBLISH="'$sluicectl' -p $port publish >'$work/publish.log' 2>&1 \
  || { cat '$work/publish.log'; exit 1; }"
case $language in
  python) "$python" -I -B "$here/check_limiter.py" ;; # -B: no __pycache__ beside the snippet
  node) NODE_PATH=$node_modules node "$here/check_limiter.js" ;;
esac
