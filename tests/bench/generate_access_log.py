#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes a realistic nginx combined access log on stdout, deterministic for a seed.

Half the requests come from a heavy-tailed set of busy clients (Zipf-like over the first 10,000
addresses), half from a population of POPULATION addresses drawn uniformly, so the log holds many
clients seen once or twice beside a few that send thousands. Paths, methods, statuses, sizes,
referrers and agents vary as a public API's do; LINES lines spread over one day in time order.

Usage: generate_access_log.py LINES POPULATION SEED
"""
import random
import sys
import time

lines, population, seed = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)
start = 1795737600  # 2026-11-27 00:00:00 UTC
paths = ["/api/v1/items", "/api/v1/items/{}", "/api/v1/search?q=term{}", "/login", "/api/v1/orders/{}",
         "/static/app.{}.js", "/healthz", "/api/v1/users/{}/profile"]
agents = ["Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36",
          "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148",
          "curl/8.5.0", "python-requests/2.32.3", "Go-http-client/2.0", "okhttp/4.12.0"]
referrers = ["-", "https://example.com/", "https://example.com/catalog?page=2", "-"]
statuses = [200] * 17 + [201, 204, 301, 304, 400, 401, 404, 429, 500]
users = ["-"] * 6 + ["alice", "bob", "svc-batch", "carol"]


def address(n):
    return "%d.%d.%d.%d" % (10 + (n >> 24) % 200, (n >> 16) & 255, (n >> 8) & 255, n & 255)


out = sys.stdout
seconds_per_line = 86400.0 / lines
buffer = []
for i in range(lines):
    if rng.random() < 0.5:
        client = min(int(rng.paretovariate(1.1)), 10000) - 1
    else:
        client = 10000 + rng.randrange(population)
    when = time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(start + int(i * seconds_per_line)))
    path = rng.choice(paths).format(rng.randrange(100000))
    method = "POST" if path in ("/login",) or rng.random() < 0.1 else "GET"
    buffer.append('%s - %s [%s] "%s %s HTTP/1.1" %d %d "%s" "%s"\n' % (
        address(client), rng.choice(users), when, method, path, rng.choice(statuses), rng.randrange(20, 40000),
        rng.choice(referrers), rng.choice(agents)))
    if len(buffer) == 10000:
        out.write("".join(buffer))
        buffer = []
out.write("".join(buffer))
