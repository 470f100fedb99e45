#!/usr/bin/env python3
"""Several servers against one: redirects, generate and link writes through HAProxy to 1 server
on SQLite, 1 on PostgreSQL, 1 on PostgreSQL with Redis, and 3 on PostgreSQL with Redis, in one
run on this machine, with the CPU time each process spends per request; then the last two again
at a steady rate of the same requests per second per server (paced with wrk's delay); then a
Free key (2 requests/s) hammered through the 3 servers for 10 s, and its monthly count in
PostgreSQL.

The redirect cases send each request from its own visitor address (redirect.lua), so every
redirect records a scan: one visitor's replays of a link count at most 10 times a minute.
"redirect (1 link)" sends every request to one link (a code that goes viral: every scan batch
updates the same rows); "redirect (1,000 links)", on 1 and 3 servers with PostgreSQL + Redis,
spreads them over 1,000 links (imported with `qr links import` after seeding), and the lines
below the table give each one's scaling, 3 servers' requests/s over 1 server's (issue 25).

While each PostgreSQL case runs, a psql session samples pg_stat_activity every 0.1 s (`\watch`,
itself excluded): the table's "active sessions" and "waiting on a lock" columns are the averages
of the sessions of the database that are running a statement and of those waiting for a lock.
"PostgreSQL transactions/request" (pg_stat_database) tells scan batches and store reads apart:
a server re-reads a link it redirects once its cached copy is 1 s old (LINK_CACHE_TTL), so the
spread case reads each of its 1,000 links about once a second on every server, where the hot
link is read once.

Then, on the 3 servers: the maxScans race. 8 clients (wrk -c 8) redirect through HAProxy for
RACE_SECONDS, each request from its own visitor, on a link created with maxScans 1,000 and an
expiredUrl; the line says how many were sent to the target and to expiredUrl (Location headers),
the scans PostgreSQL recorded for the link and its scanCount (GET /api/links?id=); at most
1,000 each is the cap holding across servers.

Usage: benches/load/cluster.py      (about 6.5 minutes; DURATION=10 about 5)
Knobs: DURATION (seconds per case, default 15), CONNS (default 64), THREADS (wrk, default 2),
       SCANS (scans seeded per database, default 10000), RACE_SECONDS (default 4),
       ONLY (run only the configurations whose name contains it: ONLY='Redis, 3 servers' runs
       the saturated and paced 3 servers, the maxScans race and the Free key),
       QR_SKIP_BUILD=1 (run the qr and seed binaries in CARGO_TARGET_DIR without cargo build).
Needs wrk, PostgreSQL, redis-server and haproxy (apt-get install wrk postgresql redis-server
haproxy). PostgreSQL runs with its durable defaults (fsync=on, synchronous_commit=on).
What a client sees when PostgreSQL is slower than the traffic (the scan queue full) is
benches/faults/queue_full.py.
"""

import http.client
import json
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
RACE_SECONDS = int(os.environ.get("RACE_SECONDS", "4"))
# Links of the spread redirect case, and the cap of the maxScans race.
SPREAD_LINKS = 1000
MAX_SCANS = 1000
GENERATE = "/api/generate?data=https%3A%2F%2Fqr.example.com%2Fr%2F7K3M9QXZ&size=300&format=png"


def seed(db):
    out = subprocess.run([os.path.join(harness.TARGET, "release", "seed"), db, SCANS],
                         capture_output=True, text=True, check=True)
    return dict(line.split("=", 1) for line in out.stdout.split())


def wrk(url, script, headers, duration, env=None, conns=CONNS, threads=THREADS):
    """Runs wrk and returns its RESULT line's figures; with COUNT_RESPONSES=1 in `env`
    (redirect.lua), also "responses": {(status, location): count}."""
    cmd = ["wrk", "-t", str(threads), "-c", str(conns), "-d", f"{duration}s", "--timeout", "10s",
           "-s", os.path.join(LOAD_DIR, script)]
    for h in headers:
        cmd += ["-H", h]
    out = subprocess.run(cmd + [url], capture_output=True, text=True,
                         env=dict(os.environ, LOAD_DIR=LOAD_DIR, **(env or {})), check=True).stdout
    line = next(l for l in out.splitlines() if l.startswith("RESULT"))
    result = {k: float(v) for k, v in re.findall(r"(\w+)=([\d.]+)", line)}
    result["responses"] = {}
    for l in out.splitlines():
        m = re.match(r"RESPONSES status=(\d+) count=(\d+) location=(.*)$", l)
        if m:
            result["responses"][(int(m[1]), m[3])] = int(m[2])
    return result


class LockSampler:
    """One psql session that samples pg_stat_activity every 0.1 s (`\\watch`) while a case
    runs: the database's sessions running a statement, and those waiting for a lock (a scan
    batch behind another on the same rows), itself left out. One connection for the whole
    case, not a psql process per sample (each costs about 11 ms of CPU on its own side and a
    new backend on PostgreSQL's: at 10 samples a second, a tenth of a core)."""

    QUERY = ("SELECT count(*) FILTER (WHERE state = 'active'), "
             "count(*) FILTER (WHERE wait_event_type = 'Lock') FROM pg_stat_activity "
             "WHERE datname = '{db}' AND pid <> pg_backend_pid() \\watch 0.1\n")

    def __init__(self, pg, db):
        self.proc = subprocess.Popen(
            [os.path.join(pg.bin, "psql"), "-X", "-q", "-A", "-t", "-F", " ", "-U", "postgres",
             "-h", pg.dir, "-d", db], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)
        self.proc.stdin.write(self.QUERY.format(db=db))
        self.proc.stdin.flush()

    def stop(self):
        """Ends the sampling (SIGINT ends \\watch, then psql reads the end of its input) and
        returns (average active sessions, average sessions waiting on a lock, samples)."""
        self.proc.send_signal(signal.SIGINT)
        out, err = self.proc.communicate(timeout=10)
        samples = [tuple(map(int, l.split())) for l in out.splitlines() if re.match(r"^\d+ \d+$", l)]
        if not samples:
            raise RuntimeError(f"the pg_stat_activity sampler printed nothing: {err}")
        n = len(samples)
        return sum(a for a, _ in samples) / n, sum(w for _, w in samples) / n, n


def transactions(pg):
    """Transactions PostgreSQL counted in the database so far. A backend reports its counts
    when it goes idle, at most once a second, so a case's difference is off by up to about a
    second of its traffic at each end; the sampler's 10 a second are in it."""
    return int(pg.psql("qr", "SELECT xact_commit + xact_rollback FROM pg_stat_database "
                             "WHERE datname = 'qr'"))


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
    for case, path, script, headers, env in cases:
        wrk(base + path, script, headers, 2, env)
        lsn = pg.psql("qr", "SELECT pg_current_wal_lsn()") if pg else None
        xacts = transactions(pg) if pg else 0
        sampler = LockSampler(pg, "qr") if pg else None
        before = cpu(servers, pg, redis, balancer)
        r = wrk(base + path, script, headers, DURATION, env)
        after = cpu(servers, pg, redis, balancer)
        sessions = sampler.stop() if sampler else None
        n = max(r["requests"], 1)
        wal = (float(pg.psql("qr", f"SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '{lsn}')")) / n
               if pg else 0.0)
        xacts = (transactions(pg) - xacts) / n if pg else None
        per = lambda k: (after[k] - before[k]) / n * 1e6  # noqa: E731
        server_cpu = [a - b for a, b in zip(after["servers"], before["servers"])]
        total = sum(server_cpu)
        share = "/".join(f"{100 * c / total:.0f}" for c in server_cpu) if total else "-"
        rows.append((name, case, r, total / n * 1e6, share, per("pg"), per("redis"),
                     per("haproxy"), wal, xacts, sessions))
        waits = (f", {sessions[0]:.2f} active sessions, {sessions[1]:.2f} waiting on a lock"
                 if sessions else "")
        print(f"  {case}: {r['rps']:,.0f} requests/s{waits}", file=sys.stderr)
    return rows


def main():
    # The access log on, as in benches/load/run.sh: its cost is part of every request's.
    os.environ.setdefault("RUST_LOG", "info")
    harness.build()
    if not harness.skip_build():
        subprocess.run(["cargo", "build", "--release", "--quiet", "-p", "qr-benches", "--bin",
                        "seed"], cwd=harness.ROOT, check=True)
    for program, package in [("wrk", "wrk"), ("redis-server", "redis-server"),
                             ("haproxy", "haproxy"), ("initdb", "postgresql")]:
        ch.need(program, package)
    work = tempfile.mkdtemp(prefix="qr-cluster-load-")
    pg = ch.Postgres(work)
    redis = ch.Redis(work)
    try:
        url = pg.create_database("qr")
        sqlite = os.path.join(work, "qr.db")
        print(f"Seeding {SCANS} scans and 500 links in each database, and {SPREAD_LINKS:,} more "
              "links in PostgreSQL...", file=sys.stderr)
        seeded = {"pg": seed(url), "sqlite": seed(sqlite)}
        seeded["pg"]["SPREAD_CODES"] = ",".join(spread_links(url, work))
        log = os.path.join(work, "servers.log")
        # Saturated: as many requests as the machine takes. Then paced: every server at the
        # same rate (1 server at R, 3 at 3R in all), below saturation, so the CPU per request
        # compares the number of servers and not the load each one carries. The spread case
        # runs where issue 25 compares it with the hot link: saturated, 1 and 3 servers with
        # Redis. (name, database, seeded, servers, Redis, paced servers, spread case)
        configs = [
            ("SQLite, 1 server", sqlite, "sqlite", 1, False, 0, False),
            ("PostgreSQL, 1 server", url, "pg", 1, False, 0, False),
            ("PostgreSQL + Redis, 1 server", url, "pg", 1, True, 0, True),
            ("PostgreSQL + Redis, 3 servers", url, "pg", 3, True, 0, True),
            ("paced: PostgreSQL + Redis, 1 server", url, "pg", 1, True, 1, False),
            ("paced: PostgreSQL + Redis, 3 servers", url, "pg", 3, True, 3, False),
        ]
        only = os.environ.get("ONLY")
        if only:
            configs = [c for c in configs if only in c[0]]
        rows = []
        free_line = ""
        race_line = ""
        for name, db, which, count, shared, paced, spread in configs:
            env = seeded[which]
            args = ["--trusted-proxies", "127.0.0.1"] + (["--redis", redis.url] if shared else [])
            servers = []
            balancer = None
            try:
                for _ in range(count):
                    servers.append(harness.Server(db, log, args=args))
                balancer = ch.Balancer(work, servers)
                rows += run_config(name, env, servers, balancer, pg if which == "pg" else None,
                                   redis if shared else None, paced, spread)
                if count == 3 and not race_line:
                    race_line = max_scans_race(env, balancer, pg)
                if count == 3 and not free_line:
                    free_line = free_key(url, servers, balancer, pg)
            finally:
                for s in servers:
                    if s.proc.poll() is None:
                        s.kill(signal.SIGTERM)
                        s.wait()
                if balancer:
                    balancer.close()
        print_table(rows, [race_line, free_line])
    finally:
        redis.close()
        pg.close()


def spread_links(url, work):
    """Creates the spread case's links in the first seeded account (`qr links import`, one
    transaction) and returns their codes."""
    path = os.path.join(work, "spread.jsonl")
    with open(path, "w") as f:
        for i in range(SPREAD_LINKS):
            f.write(json.dumps({"name": f"Spread {i}",
                                "targetUrl": f"https://example.com/spread/{i}?utm_source=qr"}) + "\n")
    out = harness.qr("links", "import", "--email", "links@load.example", "--json", path, db=url)
    codes = [link["shortCode"] for link in json.loads(out)["links"]]
    if len(codes) != SPREAD_LINKS:
        raise RuntimeError(f"qr links import created {len(codes)} of {SPREAD_LINKS} links")
    return codes


# Requests per second per server in the paced runs: below what 3 servers reach on 2 cores.
PACED_RATE = {"redirect (1 link)": 1000, "generate": 1000, "link write": 100}
HOT = "redirect (1 link)"
SPREAD = f"redirect ({SPREAD_LINKS:,} links)"


def run_config(name, env, servers, balancer, pg, redis, paced, spread):
    print(f"{name}:", file=sys.stderr)
    ua = ("User-Agent: Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) "
          "AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1")
    key = f"X-API-Key: {env['KEY_LINKS']}"
    cases = [(HOT, f"/r/{env['REDIRECT_CODE']}", "redirect.lua", [ua], {})]
    if spread:
        # The URL's code is replaced per request by one of REDIRECT_CODES (redirect.lua).
        cases.append((SPREAD, f"/r/{env['REDIRECT_CODE']}", "redirect.lua", [ua],
                      {"REDIRECT_CODES": env["SPREAD_CODES"]}))
    cases += [
        ("generate", GENERATE, "report.lua", [key], {}),
        ("link write", "/api/links", "links_write.lua", [key], {}),
    ]
    rows = []
    for case in cases:
        if paced:
            # Each of the CONNS connections waits between requests: CONNS / pause = the rate.
            rate = PACED_RATE[case[0]] * paced
            os.environ["PACE_MS"] = str(max(1, round(1000 * CONNS / rate)))
        try:
            rows += measure(name, [case], servers, pg, redis, balancer)
        finally:
            os.environ.pop("PACE_MS", None)
    return rows


def api(balancer, key, method, path, body=None):
    """One API call through the balancer; returns (status, parsed JSON body)."""
    conn = http.client.HTTPConnection(*balancer.addr, timeout=30)
    try:
        headers = {"X-API-Key": key}
        if body is not None:
            headers["Content-Type"] = "application/json"
        conn.request(method, path, body=json.dumps(body) if body is not None else None,
                     headers=headers)
        r = conn.getresponse()
        data = r.read()
        return r.status, json.loads(data) if data else None
    finally:
        conn.close()


def max_scans_race(env, balancer, pg):
    """8 clients redirect through the 3 servers on a link with maxScans 1,000 for RACE_SECONDS,
    every request from its own visitor; then what got through, by Location, and what was
    recorded."""
    target = "https://example.com/race"
    expired = "https://example.com/race/over"
    status, link = api(balancer, env["KEY_LINKS"], "POST", "/api/links",
                       {"name": "maxScans race", "targetUrl": target, "maxScans": MAX_SCANS,
                        "expiredUrl": expired})
    if status not in (200, 201):
        raise RuntimeError(f"creating the race link answered {status}: {link}")
    print(f"maxScans race ({MAX_SCANS:,}), 8 clients, {RACE_SECONDS} s:", file=sys.stderr)
    base = f"http://{balancer.addr[0]}:{balancer.addr[1]}"
    ua = f"User-Agent: {harness.PHONE}"
    r = wrk(base + f"/r/{link['shortCode']}", "redirect.lua", [ua], RACE_SECONDS,
            {"COUNT_RESPONSES": "1"}, conns=8, threads=2)
    # Every redirect to the target waited for its scan's commit (up to 5 s); one more second
    # lets a late one land before counting.
    time.sleep(1)
    to_target = sum(n for (s, loc), n in r["responses"].items() if s == 302 and loc == target)
    to_expired = sum(n for (s, loc), n in r["responses"].items() if s == 302 and loc == expired)
    others = {k: n for k, n in r["responses"].items()
              if not (k[0] == 302 and k[1] in (target, expired))}
    recorded = int(pg.psql("qr", f"SELECT count(*) FROM scans WHERE link_id = '{link['id']}'"))
    status, shown = api(balancer, env["KEY_LINKS"], "GET", f"/api/links?id={link['id']}")
    scan_count = f"{shown['scanCount']:,}" if status == 200 else f"(GET answered {status})"
    holds = to_target <= MAX_SCANS and recorded <= MAX_SCANS
    other_text = ", ".join(f"{n:,} × {s} {loc}" for (s, loc), n in sorted(others.items())) or "none"
    print(f"  {to_target:,} to the target, {recorded:,} scans recorded", file=sys.stderr)
    return (f"maxScans race: 8 clients (wrk -c 8) through HAProxy to 3 servers for {RACE_SECONDS} s "
            f"on a link with maxScans {MAX_SCANS:,}, every request from its own visitor: "
            f"{int(r['requests']):,} requests; redirects to the target: {to_target:,}; to expiredUrl: "
            f"{to_expired:,}; other responses: {other_text}; scans recorded in PostgreSQL: "
            f"{recorded:,}; scanCount (GET /api/links?id=): {scan_count}"
            f" ({'holds' if holds else 'OVER THE CAP'}: at most {MAX_SCANS:,} each).")


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


def scaling_lines(rows):
    """3 servers' requests/s over 1 server's, saturated with PostgreSQL + Redis, per redirect
    case (issue 25: the hot link scaled 0.76, spread links 0.85)."""
    rps = {(name, case): r["rps"] for name, case, r, *_ in rows}
    lines = []
    for case in (HOT, SPREAD):
        one = rps.get(("PostgreSQL + Redis, 1 server", case))
        three = rps.get(("PostgreSQL + Redis, 3 servers", case))
        if one and three:
            lines.append(f"Scaling of {case}, PostgreSQL + Redis: 3 servers {three:,.0f} requests/s "
                         f"÷ 1 server {one:,.0f} = {three / one:.2f}.")
    return lines


def print_table(rows, lines):
    print(f"{DURATION} s per case after a 2 s warm-up, {CONNS} connections through HAProxy, "
          f"{os.cpu_count()} cores shared by wrk, HAProxy, the servers, PostgreSQL and Redis. "
          "Sessions: averages of pg_stat_activity sampled every 0.1 s during the case.\n")
    print("| configuration | case | requests/s | p99 ms | server CPU µs/request (split) "
          "| PostgreSQL µs/request | WAL bytes/request | PostgreSQL transactions/request "
          "| Redis µs/request | HAProxy µs/request | active sessions | waiting on a lock | errors "
          "| non-2xx/3xx |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, case, r, srv, share, pg, redis, lb, wal, xacts, sessions in rows:
        active, waiting = (f"{sessions[0]:.2f}", f"{sessions[1]:.2f}") if sessions else ("-", "-")
        per_request = f"{xacts:.3f}" if xacts is not None else "-"
        print(f"| {name} | {case} | {r['rps']:,.0f} | {r['p99_ms']:.1f} | {srv:.0f} ({share} %) "
              f"| {pg:.0f} | {wal:,.0f} | {per_request} | {redis:.0f} | {lb:.0f} | {active} "
              f"| {waiting} | {int(r['errors'])} | {int(r['non2xx3xx'])} |")
    lines = scaling_lines(rows) + [l for l in lines if l]
    if lines:
        print()
        for line in lines:
            print(line)


if __name__ == "__main__":
    main()
