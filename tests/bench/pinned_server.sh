# Sourced by the benchmarks: starts a private redis-server on a free loopback port, pinned to CPU 1
# (CPU 0 when there is one), without persistence, in a temporary folder that goes with it on exit.
# Sets $work, $port and cli().
work=$(mktemp -d /tmp/sluice-bench.XXXXXX)
port=$((20000 + RANDOM % 20000))
while redis-cli -p "$port" ping >/dev/null 2>&1; do port=$((port + 1)); done
cpus=$(nproc)
server_cpu=$((cpus > 1 ? 1 : 0))
taskset -c "$server_cpu" redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no \
  --dir "$work" --daemonize yes --pidfile "$work/redis.pid" --logfile "$work/redis.log"
trap 'kill "$(cat "$work/redis.pid" 2>/dev/null)" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
cli() { redis-cli -p "$port" "$@"; }
