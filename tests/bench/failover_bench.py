# SPDX-License-Identifier: GPL-3.0-or-later
"""Failover benchmark: 16 clients call one subject's fixed window through docs/snippets/limiter.py while the
primary holding it is killed (kill -9), under Sentinel (one primary, two replicas, one Sentinel) and in a
Cluster (3 primaries, two replicas each; a replica is promoted), each run on private servers started afresh.

A run: the clients call until half the limit is admitted, the primary is killed, and they go on until the
new primary has rejected everything for 1.5 s. What the clients were told was admitted, minus the limit, is the
over-admission: admissions the old primary acknowledged and lost with it, which the new one grants again.
Plain calls and strict calls (UNCONFIRMED_REFUSED: WAIT 1 behind each FCALL) run the same way. Before the
first run of each topology, strict's cost is measured side by side with plain calls on the healthy servers.

Prints, per topology and mode, the worst over-admission of RUNS runs and its failover window (from the kill to
the first admission by the new primary). With --check it exits non-zero when a strict run admitted above the
limit; otherwise only when it could not measure.

Usage: failover_bench.py BUILD_DIR [RUNS] [--check]   (10 runs by hand: tests/bench/failover_bench.py build 10)
"""
import atexit
import collections
import contextlib
import logging
import os
import random
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "docs", "snippets"))
import limiter  # noqa: E402 (docs/snippets/limiter.py)
import redis  # noqa: E402

CLIENTS = 16
# Two replicas per primary: after a failover the new primary keeps one, so strict calls (WAIT 1) go on. With
# one, a strict call admits nothing until a replica is back.
REPLICAS = 2
POLICY, PROBE = "failover", "probe"
USER = "sluice-service"


class CouldNotMeasure(Exception):
    pass


def quiet_port():
    """A free port p with p + 10000 (a Cluster bus) free too, below the ephemeral range (loopback_ports.sh)."""
    ephemeral_low = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
    span = max(ephemeral_low - 20200, 1000)
    while True:
        port = 10000 + random.randrange(span)
        if all(_free(candidate) for candidate in (port, port + 10000)):
            return port


def _free(port):
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def delay_proxy(listen_port, target_port, delay_ms):
    """Runs as a process of its own: a replica's link to its primary, the replication stream delayed by
    delay_ms (a replica in another zone), the replica's acknowledgements passed at once. When the primary dies,
    what is still in flight is lost with it, as on a network."""
    listener = socket.create_server(("127.0.0.1", listen_port))
    while True:
        replica, _ = listener.accept()
        try:
            primary = socket.create_connection(("127.0.0.1", target_port))
        except OSError:  # the primary is gone
            replica.close()
            continue
        in_flight, lock = collections.deque(), threading.Condition()

        def upstream(replica=replica, primary=primary):
            while data := _receive(replica):
                try:
                    primary.sendall(data)
                except OSError:  # the primary was killed: the link goes with it
                    break
            _close(replica, primary)

        def downstream(replica=replica, primary=primary, in_flight=in_flight, lock=lock):
            while data := _receive(primary):
                with lock:
                    in_flight.append((time.monotonic() + delay_ms / 1000, data))
                    lock.notify()
            _close(replica, primary)  # the primary is gone: what is in flight is dropped
            with lock:
                in_flight.clear()
                in_flight.append((0, b""))
                lock.notify()

        def deliver(replica=replica, in_flight=in_flight, lock=lock):
            while True:
                with lock:
                    while not in_flight:
                        lock.wait()
                    due, data = in_flight.popleft()
                if not data:
                    return
                time.sleep(max(0, due - time.monotonic()))
                try:
                    replica.sendall(data)
                except OSError:
                    return

        for part in (upstream, downstream, deliver):
            threading.Thread(target=part, daemon=True).start()


def _receive(connection):
    try:
        return connection.recv(65536)
    except OSError:
        return b""


def _close(*connections):
    for connection in connections:
        try:
            connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


class Servers:
    """The private redis-server and Sentinel processes of one run; every one is killed on every way out."""

    def __init__(self, work):
        self.work, self.processes = work, {}

    def start(self, name, port, *options, sentinel=False):
        folder = os.path.join(self.work, name)
        os.makedirs(folder)
        if sentinel:
            config = os.path.join(folder, "sentinel.conf")
            with open(config, "w") as file:
                file.write("\n".join(options) + "\n")
            command = ["redis-server", config, "--sentinel", "--port", str(port)]
        else:
            command = ["redis-server", "--port", str(port), "--save", "", "--appendonly", "no", *options]
        command += ["--bind", "127.0.0.1", "--dir", folder, "--logfile", os.path.join(folder, "redis.log")]
        # The kernel kills the server with this process, however it ends.
        self.processes[port] = subprocess.Popen(["setpriv", "--pdeathsig", "KILL", *command],
                                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(f"{name} on port {port} to answer", lambda: admin(port).ping(), 20)
        return port

    def delay(self, target_port, delay_ms):
        """A delaying link to target_port (delay_proxy); returns the port to connect to instead."""
        port = quiet_port()
        self.processes[port] = subprocess.Popen(["setpriv", "--pdeathsig", "KILL", sys.executable, "-I", __file__,
                                                 "--delay-proxy", str(port), str(target_port), str(delay_ms)])
        wait_for(f"the delaying link on port {port}", lambda: not _free(port), 20)
        return port

    def kill(self, port):
        process = self.processes.pop(port)
        process.kill()
        process.wait()

    def stop(self):
        for process in self.processes.values():
            process.kill()
            process.wait()
        self.processes = {}


def in_sync(primary):
    replication = admin(primary).info("replication")
    return all(replication.get(f"slave{number}", {}).get("state") == "online" for number in range(REPLICAS))


def admin(port):
    return redis.Redis(port=port, socket_timeout=2, socket_connect_timeout=2, decode_responses=True)


def wait_for(what, condition, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if condition():
                return
        except redis.RedisError:
            pass
        time.sleep(0.05)
    raise CouldNotMeasure(f"gave up waiting for {what} after {seconds} s")


def publish(sluicectl, port, work, limit):
    """The two policies applied and published (on every primary), and the service role's user on every node."""
    policies = os.path.join(work, "policies.json")
    with open(policies, "w") as file:
        file.write('{"policies": [{"name": "%s", "algorithm": "fixed_window", "limit": %d, "window_ms": 600000, '
                   '"window_start": "first_call"}, {"name": "%s", "algorithm": "token_bucket", '
                   '"limit": 1000000000, "window_ms": 600000}]}' % (POLICY, limit, PROBE))
    for step in (["apply", policies], ["publish"]):
        done = subprocess.run([sluicectl, "-p", str(port), *step], capture_output=True, text=True)
        if done.returncode != 0:
            raise CouldNotMeasure(f"sluicectl {step[0]}: {done.stdout}{done.stderr}")
    acl = subprocess.run([sluicectl, "acl", "service"], capture_output=True, text=True, check=True).stdout
    return next(line for line in acl.splitlines() if line.startswith("ACL SETUSER")).split()[2:]


def add_user(ports, rules, password):
    for port in ports:
        admin(port).execute_command("ACL", "SETUSER", *[rule.replace("CHANGE-ME", password) for rule in rules])


class Sentinel:
    name = "sentinel"
    link_delay_ms = 0
    replica_timeout_ms = 50  # what a strict call waits for a replica's acknowledgement

    def __init__(self, servers):
        self.servers = servers
        self.primary = servers.start("primary", quiet_port())
        # Each replica through a link of its own (the delaying one, or straight to the primary).
        links = [servers.delay(self.primary, self.link_delay_ms) if self.link_delay_ms else self.primary
                 for _ in range(REPLICAS)]
        self.replicas = [servers.start(f"replica-{number}", quiet_port(), "--replicaof", "127.0.0.1", str(link))
                         for number, link in enumerate(links)]
        wait_for("the replicas to attach", lambda: in_sync(self.primary), 30)
        self.sentinel = servers.start("sentinel", quiet_port(), f"sentinel monitor watched 127.0.0.1 {self.primary} 1",
                                      "sentinel down-after-milliseconds watched 1000",
                                      "sentinel failover-timeout watched 5000", sentinel=True)
        wait_for("the Sentinel to see the replicas",
                 lambda: len(admin(self.sentinel).execute_command("SENTINEL", "REPLICAS", "watched")) == REPLICAS, 30)

    def nodes(self):
        return [self.primary, *self.replicas]

    def primaries(self):
        return [self.primary]

    def client(self, password, number):
        return limiter.connect_sentinel([("127.0.0.1", self.sentinel)], "watched", USER, password,
                                        timeout_s=(self.replica_timeout_ms + 50) / 1000,
                                        name=f"client-{number}")

    def primary_of(self, _key):
        return self.primary


class DistantSentinel(Sentinel):
    """Sentinel with the replicas 20 ms away from the primary: what a kill loses is what the link holds."""
    name = "sentinel, replicas 20 ms away"
    link_delay_ms = 20
    replica_timeout_ms = 200


class Cluster:
    name = "cluster"
    replica_timeout_ms = 50

    def __init__(self, servers):
        self.servers = servers
        self.ports = [servers.start(f"node-{number}", quiet_port(), "--cluster-enabled", "yes",
                                    "--cluster-node-timeout", "1000", "--cluster-config-file",
                                    os.path.join(servers.work, f"nodes-{number}.conf"))
                      for number in range(3 * (1 + REPLICAS))]
        created = subprocess.run(["redis-cli", "--cluster", "create", *[f"127.0.0.1:{port}" for port in self.ports],
                                  "--cluster-replicas", str(REPLICAS), "--cluster-yes"], capture_output=True, text=True)
        if created.returncode != 0:
            raise CouldNotMeasure(f"redis-cli --cluster create: {created.stdout[-500:]}")
        wait_for("the Cluster to be ok with its replicas", lambda: all(
            admin(port).cluster("info")["cluster_state"] == "ok" for port in self.ports)
            and admin(self.ports[0]).execute_command("CLUSTER", "NODES").count("slave") == 3 * REPLICAS, 60)
        wait_for("every primary's replicas to be in sync", lambda: all(map(in_sync, self.primaries())), 60)

    def nodes(self):
        return self.ports

    def primaries(self):
        return [port for port in self.ports if admin(port).info("replication")["role"] == "master"]

    def client(self, password, number):
        return limiter.ClusterClients(f"redis://{USER}:{password}@127.0.0.1:{self.ports[0]}",
                                      timeout_s=(self.replica_timeout_ms + 50) / 1000, name=f"client-{number}")

    def primary_of(self, key):
        slot = admin(self.ports[0]).cluster("keyslot", key)
        return next(port for port in self.primaries() if any(
            int(low) <= slot <= int(high) for low, high in
            (span.split("-") if "-" in span else (span, span) for span in _own_slots(port))))


def _own_slots(port):
    myself = next(line for line in admin(port).execute_command("CLUSTER", "NODES").splitlines() if "myself" in line)
    return [field for field in myself.split()[8:] if not field.startswith("[")]


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


@contextlib.contextmanager
def clients_calling(count, one_call):
    """`count` client threads, each running one_call(its number) over and over until the block ends."""
    stop = threading.Event()

    def client(number):
        while not stop.is_set():
            one_call(number)

    threads = [threading.Thread(target=client, args=(number,)) for number in range(count)]
    for thread in threads:
        thread.start()
    try:
        yield
    finally:
        stop.set()
        for thread in threads:
            thread.join()


def calls_per_second(limiters):
    """16 clients calling distinct subjects of the unlimited policy for 0.5 s."""
    counts = [0] * len(limiters)

    def call(number):
        limiters[number].acquire(f"rate-{number}-{counts[number]}", PROBE)
        counts[number] += 1

    with clients_calling(len(limiters), call):
        time.sleep(0.5)
    return sum(counts) / 0.5


def strict_cost(topology, plain, strict):
    """Plain and strict calls side by side on the healthy servers: each client alternates them for 1 s."""
    for port in topology.primaries():
        admin(port).config_resetstat()
    latencies, sequences = {"plain": [], "strict": []}, [0] * len(plain)

    def call(number):
        for mode, limiters in (("plain", plain), ("strict", strict)):
            started = time.perf_counter()
            limiters[number].acquire(f"cost-{number}-{sequences[number]}", PROBE)
            latencies[mode].append(time.perf_counter() - started)
            sequences[number] += 1

    with clients_calling(len(plain), call):
        time.sleep(1)
    usec, calls = {"fcall": 0, "wait": 0}, {"fcall": 0, "wait": 0}
    for port in topology.primaries():
        stats = admin(port).info("commandstats")
        for command in usec:
            usec[command] += stats.get(f"cmdstat_{command}", {}).get("usec", 0)
            calls[command] += stats.get(f"cmdstat_{command}", {}).get("calls", 0)
    if not calls["wait"]:
        raise CouldNotMeasure("no WAIT reached the primaries")
    return {mode: (percentile(values, 0.5) * 1000, percentile(values, 0.99) * 1000)
            for mode, values in latencies.items()} | {
        "fcall_us": usec["fcall"] / calls["fcall"], "wait_us": usec["wait"] / calls["wait"]}


def failover_run(topology, servers, limiters, limit, subject):
    """(admitted, window_ms, refused_unconfirmed): the primary is killed once half the limit is admitted;
    the window runs from the kill to the first admission asked for after it."""
    admissions = [[] for _ in limiters]
    unconfirmed = [0] * len(limiters)

    def call(number):
        asked = time.monotonic()  # an admission asked for after the kill is the new primary's
        decision = limiters[number].acquire(subject, POLICY, on_failure=limiter.FAIL_CLOSED)
        if decision.allowed:
            admissions[number].append(asked)
        elif isinstance(decision.error, limiter.NotConfirmed):
            unconfirmed[number] += 1

    with clients_calling(len(limiters), call):
        victim = topology.primary_of(limiter.bucket_key(POLICY, subject))
        wait_for("half the limit to be admitted", lambda: sum(map(len, admissions)) >= limit // 2, 30)
        servers.kill(victim)
        killed_at = time.monotonic()  # the old primary is gone: it answers no call asked from now on

        def after_kill():
            return [moment for moments in admissions for moment in moments if moment > killed_at]

        wait_for("an admission by the new primary", after_kill, 30)
        recovered_at = min(after_kill())
        # Until the new primary has admitted nothing for 1.5 s: the limit is reached again.
        wait_for("the limit to be reached after the failover",
                 lambda: time.monotonic() - max(after_kill()) > 1.5, 60)
    return sum(map(len, admissions)), (recovered_at - killed_at) * 1000, sum(unconfirmed)


def one_topology(kind, sluicectl, mode, measure_cost):
    work = tempfile.mkdtemp(prefix="sluice-failover-")
    servers = Servers(work)
    atexit.register(servers.stop)
    try:
        topology = kind(servers)
        password = secrets.token_hex(16)
        rules = publish(sluicectl, topology.nodes()[0], work, 1)
        add_user(topology.nodes(), rules, password)
        clients = [topology.client(password, number) for number in range(CLIENTS)]
        plain = [limiter.Limiter(client) for client in clients]
        strict = [limiter.Limiter(client, strict=limiter.UNCONFIRMED_REFUSED,
                                  replica_timeout_ms=topology.replica_timeout_ms) for client in clients]
        cost = strict_cost(topology, plain, strict) if measure_cost else None
        # The limit: about 1.5 s of the clients' calls, so the kill comes while admissions flow.
        limit = max(200, int(calls_per_second(strict if mode == "strict" else plain) * 1.5))
        publish(sluicectl, topology.primaries()[0], work, limit)
        run = failover_run(topology, servers, strict if mode == "strict" else plain, limit, f"run-{mode}")
        return limit, run, cost
    finally:
        servers.stop()
        shutil.rmtree(work, ignore_errors=True)


def main():
    arguments = [argument for argument in sys.argv[1:] if argument != "--check"]
    checking = "--check" in sys.argv
    sluicectl = os.path.join(os.path.abspath(arguments[0] if arguments else "build"), "app", "sluicectl")
    runs = int(arguments[1]) if len(arguments) > 1 else 10
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # the finally blocks stop the servers
    logging.getLogger("limiter").setLevel(logging.ERROR)  # each failed call logs a warning: thousands here
    began = time.monotonic()
    print(f"Failover: {CLIENTS} clients on one subject's fixed window (first call, 10 min), the primary holding it "
          f"killed (kill -9) once half the limit is admitted; {runs} run(s) per row, servers started afresh each run.")
    rows, costs, strict_over = [], {}, []
    for kind in (Sentinel, DistantSentinel, Cluster):
        for mode in ("plain", "strict"):
            results = []
            for number in range(runs):
                limit, (admitted, window_ms, unconfirmed), cost = one_topology(
                    kind, sluicectl, mode, measure_cost=mode == "plain" and number == 0)
                if cost:
                    costs[kind.name] = cost
                results.append((admitted - limit, window_ms, limit, unconfirmed))
                print(f"  {kind.name} {mode} run {number + 1}: limit {limit}, admitted {admitted} "
                      f"({admitted - limit:+d}), failover window {window_ms:.0f} ms, "
                      f"admissions refused as unconfirmed {unconfirmed}", flush=True)
                if mode == "strict":
                    strict_over.append(admitted - limit)
            rows.append((kind.name, mode, results))
    print()
    print(f"{'topology':<30} {'calls':<7} {'runs':>4} {'worst beyond limit':>19} {'its window':>11} "
          f"{'windows':>15} {'median beyond':>14} {'refused unconfirmed':>20}")
    for name, mode, results in rows:
        worst = max(results, key=lambda result: result[0])
        windows = [result[1] for result in results]
        print(f"{name:<30} {mode:<7} {len(results):>4} {max(0, worst[0]):>19} {worst[1]:>8.0f} ms "
              f"{min(windows):>6.0f}-{max(windows):.0f} ms {int(statistics.median(r[0] for r in results)):>14} "
              f"{max(result[3] for result in results):>20}")
    print()
    for name, cost in costs.items():
        print(f"Strict's cost ({name}, healthy, side by side): latency p50 {cost['plain'][0]:.3f} ms plain, "
              f"{cost['strict'][0]:.3f} ms strict; p99 {cost['plain'][1]:.3f} ms plain, {cost['strict'][1]:.3f} ms "
              f"strict; Redis us per call: FCALL {cost['fcall_us']:.2f}, WAIT {cost['wait_us']:.2f}")
    verdict = "0 in every run" if all(over <= 0 for over in strict_over) else "ABOVE THE LIMIT"
    print(f"Strict over-admission: {verdict} ({len(strict_over)} runs); target 0")
    print(f"failover_bench took {time.monotonic() - began:.0f} s")
    if checking and verdict != "0 in every run":
        sys.exit(1)


if __name__ == "__main__" and sys.argv[1:2] == ["--delay-proxy"]:
    delay_proxy(*map(int, sys.argv[2:5]))
elif __name__ == "__main__":
    try:
        main()
    except CouldNotMeasure as problem:
        sys.exit(f"failover_bench: could not measure: {problem}")
