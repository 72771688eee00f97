#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Starts or stops every Redis service the test suite needs, on free loopback ports in one folder.
#   services.sh start DIR   start them all; writes DIR/env (export lines for the tests)
#   services.sh stop DIR    stop, by pid, everything started in DIR
# Each server runs with its own config file in DIR, no persistence, and a pid file that stop uses.
set -euo pipefail

cmd=${1:?usage: services.sh start|stop DIR}
dir=${2:?usage: services.sh start|stop DIR}

log() { printf 'services: %s\n' "$*" >&2; }

# shellcheck source=tests/support/loopback_ports.sh
source "$(dirname "$0")/../support/loopback_ports.sh"

# alloc_port VAR: sets VAR to a port p such that p and p+10000 (a cluster bus port) are both free.
# (Not $(...): a subshell would forget which ports it already handed out.)
next_port=$(random_quiet_port)
alloc_port() {
  while port_in_use "$next_port" || port_in_use $((next_port + 10000)); do
    next_port=$((next_port + 1))
  done
  printf -v "$1" '%s' "$next_port"
  next_port=$((next_port + 1))
}

wait_for() { # wait_for SECONDS DESCRIPTION COMMAND...
  local seconds=$1 what=$2; shift 2
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= deadline)); then log "timed out waiting for $what"; return 1; fi
    sleep 0.2
  done
}

# start_redis NAME PORT [extra config lines...]: a redis-server with its config in DIR/NAME.
start_redis() {
  local name=$1 port=$2; shift 2
  mkdir -p "$dir/$name"
  {
    echo "port $port"
    echo "bind 127.0.0.1"
    echo "dir $dir/$name"
    echo "pidfile $dir/$name/redis.pid"
    echo "logfile $dir/$name/redis.log"
    echo "daemonize yes"
    echo 'save ""'
    echo "appendonly no"
    for line in "$@"; do echo "$line"; done
  } > "$dir/$name/redis.conf"
  redis-server "$dir/$name/redis.conf"
  wait_for 30 "$name to write its pid file" test -s "$dir/$name/redis.pid"
}

cli() { redis-cli -h 127.0.0.1 "$@"; }

make_certificates() {
  local tls=$dir/tls
  mkdir -p "$tls"
  openssl req -x509 -new -nodes -newkey rsa:2048 -days 2 -subj "/CN=Sluice Test CA" \
    -keyout "$tls/ca.key" -out "$tls/ca.crt" 2>/dev/null
  openssl req -new -nodes -newkey rsa:2048 -subj "/CN=localhost" \
    -keyout "$tls/server.key" -out "$tls/server.csr" 2>/dev/null
  printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' > "$tls/server.ext"
  openssl x509 -req -in "$tls/server.csr" -CA "$tls/ca.crt" -CAkey "$tls/ca.key" -CAcreateserial \
    -days 2 -extfile "$tls/server.ext" -out "$tls/server.crt" 2>/dev/null
  openssl req -new -nodes -newkey rsa:2048 -subj "/CN=sluice-test-client" \
    -keyout "$tls/client.key" -out "$tls/client.csr" 2>/dev/null
  printf 'extendedKeyUsage=clientAuth\n' > "$tls/client.ext"
  openssl x509 -req -in "$tls/client.csr" -CA "$tls/ca.crt" -CAkey "$tls/ca.key" -CAcreateserial \
    -days 2 -extfile "$tls/client.ext" -out "$tls/client.crt" 2>/dev/null
  # The same client key under a passphrase, as operators often keep theirs.
  openssl pkey -in "$tls/client.key" -aes256 -passout pass:client-key-passphrase \
    -out "$tls/client-encrypted.key" 2>/dev/null
  # A second CA that signed nothing: a client trusting only it must reject the server.
  openssl req -x509 -new -nodes -newkey rsa:2048 -days 2 -subj "/CN=Untrusted CA" \
    -keyout "$tls/other-ca.key" -out "$tls/other-ca.crt" 2>/dev/null
  chmod 600 "$tls"/*.key
}

start_all() {
  mkdir -p "$dir"
  local env=$dir/env
  : > "$env"

  local standalone; alloc_port standalone
  start_redis standalone "$standalone" "unixsocket $dir/standalone/redis.sock" "unixsocketperm 700"
  echo "export SLUICE_TEST_REDIS_URL=redis://127.0.0.1:$standalone" >> "$env"
  echo "export SLUICE_TEST_REDIS_SOCKET=$dir/standalone/redis.sock" >> "$env"

  make_certificates
  local tls_port mutual_port
  alloc_port tls_port; alloc_port mutual_port
  local tls_common=("port 0" "tls-cert-file $dir/tls/server.crt" "tls-key-file $dir/tls/server.key"
                    "tls-ca-cert-file $dir/tls/ca.crt")
  start_redis tls "$tls_port" "${tls_common[@]}" "tls-port $tls_port" "tls-auth-clients no"
  start_redis tls-mutual "$mutual_port" "${tls_common[@]}" "tls-port $mutual_port" "tls-auth-clients yes"
  {
    echo "export SLUICE_TEST_TLS_URL=rediss://127.0.0.1:$tls_port"
    echo "export SLUICE_TEST_TLS_MUTUAL_URL=rediss://127.0.0.1:$mutual_port"
    echo "export SLUICE_TEST_TLS_CA=$dir/tls/ca.crt"
    echo "export SLUICE_TEST_TLS_OTHER_CA=$dir/tls/other-ca.crt"
    echo "export SLUICE_TEST_TLS_CLIENT_CERT=$dir/tls/client.crt"
    echo "export SLUICE_TEST_TLS_CLIENT_KEY=$dir/tls/client.key"
    echo "export SLUICE_TEST_TLS_CLIENT_ENCRYPTED_KEY=$dir/tls/client-encrypted.key"
    echo "export SLUICE_TEST_TLS_CLIENT_KEY_PASSPHRASE=client-key-passphrase"
  } >> "$env"

  # ACL: the default user is off; "limiter" has the service role of `sluicectl acl service` (it may call the
  # limiter on sluice:* keys and nothing else; tst_acl_connection checks the two agree), "admin" may do anything.
  local acl_port; alloc_port acl_port
  local service_role="resetchannels ~sluice:* -@all +ping +client|setname +fcall +fcall_ro +time +get +set"
  service_role+=" +setrange +hincrby +hlen +hgetall +hdel +pexpire +pexpireat +zrange +zadd +zremrangebyscore"
  service_role+=" +zrem +zincrby +zscore +pttl +incrby +decrby +wait +cluster|slots"
  start_redis acl "$acl_port" \
    "user default off" \
    "user admin on >admin-secret ~* &* +@all" \
    "user limiter on >limiter-secret $service_role"
  {
    echo "export SLUICE_TEST_ACL_URL=redis://127.0.0.1:$acl_port"
    echo "export SLUICE_TEST_ACL_ADMIN=admin:admin-secret"
    echo "export SLUICE_TEST_ACL_RESTRICTED=limiter:limiter-secret"
  } >> "$env"

  # Cluster: 3 primaries, 3 replicas.
  local cluster_ports=() nodes=() p
  for i in 1 2 3 4 5 6; do
    alloc_port p
    cluster_ports+=("$p"); nodes+=("127.0.0.1:$p")
    rm -f "$dir/cluster-$i/nodes.conf" # left by an earlier start in the same folder
    start_redis "cluster-$i" "$p" "cluster-enabled yes" "cluster-config-file $dir/cluster-$i/nodes.conf" \
      "cluster-node-timeout 2000" "cluster-require-full-coverage no"
  done
  cli --cluster create "${nodes[@]}" --cluster-replicas 1 --cluster-yes >"$dir/cluster-create.log" 2>&1 \
    || { log "cluster create failed: $(tail -5 "$dir/cluster-create.log")"; return 1; }
  for p in "${cluster_ports[@]}"; do
    wait_for 90 "cluster node $p to report cluster_state:ok" \
      bash -c "redis-cli -h 127.0.0.1 -p $p cluster info | grep -q 'cluster_state:ok'"
  done
  wait_for 90 "cluster replicas to attach" \
    bash -c "[ \$(redis-cli -h 127.0.0.1 -p ${cluster_ports[0]} cluster nodes | grep -c slave) -eq 3 ]"
  echo "export SLUICE_TEST_CLUSTER_SEEDS=$(IFS=,; echo "${nodes[*]}")" >> "$env"

  # Sentinel: one primary, one replica, one sentinel watching service "sluice-primary".
  local primary replica sentinel
  alloc_port primary; alloc_port replica; alloc_port sentinel
  start_redis sentinel-primary "$primary"
  start_redis sentinel-replica "$replica" "replicaof 127.0.0.1 $primary"
  mkdir -p "$dir/sentinel"
  cat > "$dir/sentinel/sentinel.conf" <<CONF
port $sentinel
bind 127.0.0.1
dir $dir/sentinel
pidfile $dir/sentinel/redis.pid
logfile $dir/sentinel/redis.log
daemonize yes
sentinel monitor sluice-primary 127.0.0.1 $primary 1
sentinel down-after-milliseconds sluice-primary 1000
sentinel failover-timeout sluice-primary 5000
CONF
  redis-server "$dir/sentinel/sentinel.conf" --sentinel
  wait_for 30 "sentinel to write its pid file" test -s "$dir/sentinel/redis.pid"
  wait_for 60 "the replica to sync" \
    bash -c "redis-cli -h 127.0.0.1 -p $replica info replication | grep -q 'master_link_status:up'"
  wait_for 60 "sentinel to see the replica" \
    bash -c "redis-cli -h 127.0.0.1 -p $sentinel sentinel replicas sluice-primary | grep -q $replica"
  {
    echo "export SLUICE_TEST_SENTINEL=127.0.0.1:$sentinel"
    echo "export SLUICE_TEST_SENTINEL_SERVICE=sluice-primary"
  } >> "$env"

  log "all services up; environment in $env"
}

stop_all() {
  # Every pid first: a server removes its pid file as it shuts down, so it cannot be read later.
  local pidfile pid pids=()
  for pidfile in "$dir"/*/redis.pid; do
    pid=$(cat "$pidfile" 2>/dev/null) || continue
    [ -n "$pid" ] && pids+=("$pid")
  done
  for pid in "${pids[@]}"; do
    # Frozen servers (SIGSTOP in a test that died) must be thawed to handle SIGTERM.
    kill -CONT "$pid" 2>/dev/null || true
    kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
}

case "$cmd" in
  start) start_all ;;
  stop) stop_all ;;
  *) echo "usage: services.sh start|stop DIR" >&2; exit 2 ;;
esac
