#!/usr/bin/env python3
"""Several servers against one: redirects, generate and link writes through HAProxy to 1 server
on SQLite, 1 on PostgreSQL, 1 on PostgreSQL with Redis, and 3 on PostgreSQL with Redis, in one
run on this machine, with the CPU time each process spends per request. Then a Free key
(2 requests/s) hammered through the 3 servers for 10 s, and its monthly count in PostgreSQL.

Usage: benches/load/cluster.py      (takes about 7 minutes)
Knobs: DURATION (seconds per case, default 15), CONNS (default 64), THREADS (wrk, default 2),
       SCANS (scans seeded per database, default 10000).
Needs wrk, PostgreSQL, redis-server and haproxy (apt-get install wrk postgresql redis-server
haproxy). PostgreSQL runs with its durable defaults (fsync=on, synchronous_commit=on).
"""

import os
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "faults"))
import cluster_harness as ch  # noqa: E402
import harness  # noqa: E402

LOAD_DIR = os.path.dirname(os.path.abspath(__file__))
DURATION = int(os.environ.get("DURATION", "15"))
CONNS = int(os.environ.get("CONNS", "64"))
THREADS = int(os.environ.get("THREADS", "2"))
SCANS = os.environ.get("SCANS", "10000")
GENERATE = "/api/generate?data=https%3A%2F%2Fqr.example.com%2Fr%2F7K3M9QXZ&size=300&format=png"


def seed(db):
    out = subprocess.run([os.path.join(harness.TARGET, "release", "seed"), db, SCANS],
                         capture_output=True, text=True, check=True)
    return dict(line.split("=", 1) for line in out.stdout.split())


def wrk(url, script, headers, duration):
    cmd = ["wrk", "-t", str(THREADS), "-c", str(CONNS), "-d", f"{duration}s", "--timeout", "10s",
           "-s", os.path.join(LOAD_DIR, script)]
    for h in headers:
        cmd += ["-H", h]
    out = subprocess.run(cmd + [url], capture_output=True, text=True,
                         env=dict(os.environ, LOAD_DIR=LOAD_DIR), check=True).stdout
    line = next(l for l in out.splitlines() if l.startswith("RESULT"))
    return {k: float(v) for k, v in re.findall(r"(\w+)=([\d.]+)", line)}


def cpu(servers, pg, redis, balancer):
    return {
        "servers": [ch.cpu_seconds(s.pid) for s in servers],
        "pg": pg.cpu() if pg else 0.0,
        "redis": redis.cpu() if redis else 0.0,
        "haproxy": balancer.cpu(),
    }


def measure(name, cases, servers, pg, redis, balancer):
    rows = []
    base = f"http://{balancer.addr[0]}:{balancer.addr[1]}"
    for case, path, script, headers in cases:
        wrk(base + path, script, headers, 2)
        lsn = pg.psql("qr", "SELECT pg_current_wal_lsn()") if pg else None
        before = cpu(servers, pg, redis, balancer)
        r = wrk(base + path, script, headers, DURATION)
        after = cpu(servers, pg, redis, balancer)
        n = max(r["requests"], 1)
        wal = (float(pg.psql("qr", f"SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '{lsn}')")) / n
               if pg else 0.0)
        per = lambda k: (after[k] - before[k]) / n * 1e6  # noqa: E731
        server_cpu = [a - b for a, b in zip(after["servers"], before["servers"])]
        total = sum(server_cpu)
        share = "/".join(f"{100 * c / total:.0f}" for c in server_cpu) if total else "-"
        rows.append((name, case, r, total / n * 1e6, share, per("pg"), per("redis"),
                     per("haproxy"), wal))
        print(f"  {case}: {r['rps']:,.0f} requests/s", file=sys.stderr)
    return rows


def main():
    # The access log on, as in benches/load/run.sh: its cost is part of every request's.
    os.environ.setdefault("RUST_LOG", "info")
    harness.build()
    subprocess.run(["cargo", "build", "--release", "--quiet", "-p", "qr-benches", "--bin", "seed"],
                   cwd=harness.ROOT, check=True)
    for program, package in [("wrk", "wrk"), ("redis-server", "redis-server"),
                             ("haproxy", "haproxy"), ("initdb", "postgresql")]:
        ch.need(program, package)
    work = tempfile.mkdtemp(prefix="qr-cluster-load-")
    pg = ch.Postgres(work)
    redis = ch.Redis(work)
    try:
        url = pg.create_database("qr")
        sqlite = os.path.join(work, "qr.db")
        print(f"Seeding {SCANS} scans and 500 links in each database...", file=sys.stderr)
        seeded = {"pg": seed(url), "sqlite": seed(sqlite)}
        log = os.path.join(work, "servers.log")
        # Three servers of two async worker threads each make six threads on two cores; the last
        # configuration gives each one thread, as if each had its own share of the machine.
        configs = [
            ("SQLite, 1 server", sqlite, "sqlite", 1, False, {}),
            ("PostgreSQL, 1 server", url, "pg", 1, False, {}),
            ("PostgreSQL + Redis, 1 server", url, "pg", 1, True, {}),
            ("PostgreSQL + Redis, 3 servers", url, "pg", 3, True, {}),
            ("PostgreSQL + Redis, 3 servers of 1 thread", url, "pg", 3, True,
             {"TOKIO_WORKER_THREADS": "1"}),
        ]
        rows = []
        free_line = ""
        for name, db, which, count, shared, threads in configs:
            env = seeded[which]
            args = ["--trusted-proxies", "127.0.0.1"] + (["--redis", redis.url] if shared else [])
            servers = []
            balancer = None
            try:
                for _ in range(count):
                    servers.append(harness.Server(db, log, env=threads, args=args))
                balancer = ch.Balancer(work, servers)
                rows += run_config(name, env, servers, balancer, pg if which == "pg" else None,
                                   redis if shared else None)
                if count == 3 and not free_line:
                    free_line = free_key(url, servers, balancer, pg)
            finally:
                for s in servers:
                    if s.proc.poll() is None:
                        s.kill(signal.SIGTERM)
                        s.wait()
                if balancer:
                    balancer.close()
        print_table(rows, free_line)
    finally:
        redis.close()
        pg.close()


def run_config(name, env, servers, balancer, pg, redis):
    print(f"{name}:", file=sys.stderr)
    ua = ("User-Agent: Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) "
          "AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1")
    key = f"X-API-Key: {env['KEY_LINKS']}"
    cases = [
        ("redirect", f"/r/{env['REDIRECT_CODE']}", "report.lua", [ua]),
        ("generate", GENERATE, "report.lua", [key]),
        ("link write", "/api/links", "links_write.lua", [key]),
    ]
    return measure(name, cases, servers, pg, redis, balancer)


def free_key(url, servers, balancer, pg):
    """A Free key hammered through the balancer for 10 s; then its count in PostgreSQL."""
    key = harness.qr("keys", "create", "--email", "free@load.example", "--plan", "free",
                     db=url).strip()
    base = f"http://{balancer.addr[0]}:{balancer.addr[1]}"
    started = time.time()
    r = wrk(base + "/api/generate?data=free&size=100", "report.lua", [f"X-API-Key: {key}"], 10)
    elapsed = time.time() - started
    accepted = int(r["requests"] - r["non2xx3xx"])
    for s in servers:
        s.kill(signal.SIGTERM)
        s.wait()
    saved = int(pg.psql("qr", "SELECT count FROM usage JOIN accounts ON accounts.id = usage.account_id "
                              "WHERE accounts.email = 'free@load.example'") or 0)
    verdict = "holds" if accepted <= 2 * 10 + 2 else "BROKEN"
    exact = "equal" if saved == accepted else "DIFFERENT"
    return (f"A Free key (2 requests/s, burst 2) through 3 servers behind HAProxy for {elapsed:.1f} s "
            f"at {CONNS} connections: {int(r['requests']):,} requests, {accepted} accepted "
            f"(limit 2 x 10 + 2 = 22: {verdict}); its monthly count in PostgreSQL after the servers "
            f"stopped: {saved} ({exact} to the accepted requests).")


def print_table(rows, free_line):
    print(f"{DURATION} s per case after a 2 s warm-up, {CONNS} connections through HAProxy, "
          f"{os.cpu_count()} cores shared by wrk, HAProxy, the servers, PostgreSQL and Redis.\n")
    print("| configuration | case | requests/s | p99 ms | server CPU µs/request (split) "
          "| PostgreSQL µs/request | WAL bytes/request | Redis µs/request | HAProxy µs/request "
          "| errors | non-2xx/3xx |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, case, r, srv, share, pg, redis, lb, wal in rows:
        print(f"| {name} | {case} | {r['rps']:,.0f} | {r['p99_ms']:.1f} | {srv:.0f} ({share} %) "
              f"| {pg:.0f} | {wal:,.0f} | {redis:.0f} | {lb:.0f} | {int(r['errors'])} "
              f"| {int(r['non2xx3xx'])} |")
    if free_line:
        print("\n" + free_line)


if __name__ == "__main__":
    main()
