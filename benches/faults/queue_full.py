#!/usr/bin/env python3
"""PostgreSQL slower than the traffic: what a client sees when a server's scan queue is full.

One `qr serve` on PostgreSQL (no balancer, so one server's queue takes all the traffic). wrk
redirects on one link from CONNS keep-alive connections, every request from its own visitor
(benches/load/redirect.lua), while probe clients start a redirect every 50 ms on a new
connection and an API read (GET /api/links) every 0.5 s, timing each, from the moment wrk's
connections are all open (qr_http_open_connections). 3 s later a psql session
takes `LOCK TABLE scans IN EXCLUSIVE MODE` in an open transaction: no scan batch can commit. A
redirect then waits up to 5 s for its scan's commit (SCAN_ACK_TIMEOUT in qr-http) and answers
302 anyway, its scan still queued; so CONNS connections queue CONNS / 5 scans a second until
the writer's queue holds 65,536 (QUEUE_CAPACITY, plus the 4,096 of the batch waiting on the
lock), as `qr_scan_queue_depth` on the metrics address shows. From then on a redirect waits for
room in the queue. HOLD seconds after the queue is full (or FILL_LIMIT seconds after the lock
if it never fills) the transaction ends; the load goes on until the queue has drained and 5 s
more.

Prints the probes' latencies and statuses by the phase they started in (before the lock, the
queue filling, the queue full, after the release), wrk's statuses and errors over the run, the
queue depth over time, and whether every redirect answered 302 has its scan recorded once the
queue drained (scans recorded for the link in PostgreSQL against the 302s counted; requests
in flight when wrk stops may add scans, never remove them).

Usage: benches/faults/queue_full.py     (about 2 minutes)
Knobs: CONNS (wrk connections, default 12000: filling 69,632 scans at CONNS / 5 per second
       takes about 30 s; each connection is a descriptor in wrk and in the server, so CONNS
       stays below the open-file limit, 20,000 here), HOLD (seconds the queue stays full,
       default 10), FILL_LIMIT (default 90), QR_SKIP_BUILD=1 (run the qr binary in
       CARGO_TARGET_DIR without cargo build).
Needs wrk and PostgreSQL (apt-get install wrk postgresql).
"""

import http.client
import os
import re
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import cluster_harness as ch
import harness

LOAD_DIR = os.path.join(harness.ROOT, "benches", "load")
CONNS = int(os.environ.get("CONNS", "12000"))
HOLD = float(os.environ.get("HOLD", "10"))
FILL_LIMIT = float(os.environ.get("FILL_LIMIT", "90"))
# qr-domain's scans/writer.rs: QUEUE_CAPACITY.
QUEUE_CAPACITY = 65_536
TARGET = "https://example.com/queue-full"
PROBE_EVERY = 0.05
API_PROBE_EVERY = 0.5


class Timeline:
    """The moments the phases begin (time.monotonic())."""

    def __init__(self):
        self.start = time.monotonic()
        self.locked = None
        self.full = None
        self.released = None

    def phase(self, t):
        if self.locked is None or t < self.locked:
            return "before the lock"
        if self.full is None or t < self.full:
            return "lock held, queue filling" if self.released is None or t < self.released \
                else "after the release"
        if self.released is None or t < self.released:
            return "queue full"
        return "after the release"


PHASES = ["before the lock", "lock held, queue filling", "queue full", "after the release"]


class Probes:
    """Timed requests started at a fixed pace on new connections, each in its own thread, so a
    request that hangs does not delay the next one's start."""

    def __init__(self, addr, path, every, headers, timeline):
        self.addr = addr
        self.path = path
        self.every = every
        self.headers = headers
        self.timeline = timeline
        self.results = []  # (start, seconds, status or error text, location)
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.threads = []
        self.runner = threading.Thread(target=self._run, daemon=True)
        self.runner.start()

    def _run(self):
        while not self.stop.is_set():
            t = threading.Thread(target=self._one, daemon=True)
            t.start()
            self.threads.append(t)
            self.stop.wait(self.every)

    def _one(self):
        headers = dict(self.headers)
        if self.path.startswith("/r/"):
            headers["X-Forwarded-For"] = harness.next_visitor()
        start = time.monotonic()
        try:
            conn = http.client.HTTPConnection(*self.addr, timeout=120)
            conn.request("GET", self.path, headers=headers)
            r = conn.getresponse()
            r.read()
            outcome, location = r.status, r.getheader("Location")
            conn.close()
        except (OSError, http.client.HTTPException) as e:
            outcome, location = type(e).__name__, None
        with self.lock:
            self.results.append((start, time.monotonic() - start, outcome, location))

    def finish(self):
        self.stop.set()
        self.runner.join()
        for t in self.threads:
            t.join(130)
        return self.results


def metric(metrics_addr, name):
    """A gauge from the metrics address, or None when it does not answer in 2 s."""
    try:
        conn = http.client.HTTPConnection(*metrics_addr, timeout=2)
        conn.request("GET", "/metrics")
        body = conn.getresponse().read().decode()
        conn.close()
    except (OSError, http.client.HTTPException):
        return None
    m = re.search(rf"^{name} (\d+)", body, re.M)
    return int(m[1]) if m else None


def queue_depth(metrics_addr):
    return metric(metrics_addr, "qr_scan_queue_depth")


def percentile(values, p):
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p / 100))]


def phase_rows(results, timeline, what):
    rows = []
    for phase in PHASES:
        mine = [r for r in results if timeline.phase(r[0]) == phase]
        if not mine:
            continue
        seconds = [r[1] * 1000 for r in mine]
        outcomes = {}
        for r in mine:
            outcomes[r[2]] = outcomes.get(r[2], 0) + 1
        text = ", ".join(f"{n} × {o}" for o, n in sorted(outcomes.items(), key=str))
        rows.append(f"| {what} | {phase} | {len(mine)} | {text} | {statistics.median(seconds):,.0f} "
                    f"| {percentile(seconds, 99):,.0f} | {max(seconds):,.0f} |")
    return rows


def main():
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if CONNS + 1000 > hard:
        harness.fail(f"CONNS={CONNS} needs {CONNS + 1000} open files; the limit is {hard}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    harness.build()
    ch.need("wrk", "wrk")
    work = tempfile.mkdtemp(prefix="qr-queue-full-")
    pg = ch.Postgres(work)
    server = None
    wrk = None
    locker = None
    try:
        url = pg.create_database("qr")
        metrics_addr = ("127.0.0.1", ch.free_port())
        log = os.path.join(work, "server.log")
        server = harness.Server(url, log, args=[
            "--metrics-listen", f"{metrics_addr[0]}:{metrics_addr[1]}",
            "--max-connections", str(CONNS + 1000)])
        harness.qr("accounts", "set-limits", "--email", harness.OWNER, "--per-second", "1000000",
                   "--batch-per-minute", "1000000", db=url)
        client = harness.Client(server.addr, server.key)
        status, link = client.json("POST", "/api/links", {"name": "Queue full", "targetUrl": TARGET})
        if status not in (200, 201):
            harness.fail(f"creating the link answered {status}: {link}")
        code = link["shortCode"]
        timeline = Timeline()
        started = timeline.start
        wrk_out = os.path.join(work, "wrk.out")
        with open(wrk_out, "w") as out:
            wrk = subprocess.Popen(
                ["wrk", "-t", "2", "-c", str(CONNS), "-d", "600s", "--timeout", "120s",
                 "-s", os.path.join(LOAD_DIR, "redirect.lua"), "-H", f"User-Agent: {harness.PHONE}",
                 f"http://{server.addr[0]}:{server.addr[1]}/r/{code}"],
                stdout=out, stderr=subprocess.STDOUT,
                env=dict(os.environ, LOAD_DIR=LOAD_DIR, COUNT_RESPONSES="1"))
        # CONNS connections at once overflow the listen backlog (4,096): a connection whose
        # handshake the server dropped waits for TCP's retransmissions (1 + 2 + 4 + ... s), and
        # wrk counts a few dozen read errors (37 in a 20 s run without the lock). The probes
        # and the clock start once they are all open.
        deadline = time.monotonic() + 60
        while (metric(metrics_addr, "qr_http_open_connections") or 0) < CONNS \
                and time.monotonic() < deadline:
            time.sleep(0.25)
        timeline.start = time.monotonic()
        redirects = Probes(server.addr, f"/r/{code}", PROBE_EVERY, {"User-Agent": harness.PHONE},
                           timeline)
        reads = Probes(server.addr, "/api/links", API_PROBE_EVERY,
                       {"X-API-Key": server.key}, timeline)
        depths = []

        def sample_until(done):
            while True:
                depth = queue_depth(metrics_addr)
                now = time.monotonic()
                depths.append((now, depth))
                if done(now, depth):
                    return
                time.sleep(0.25)

        print(f"Load: wrk at {CONNS:,} connections (open after "
              f"{timeline.start - started:.1f} s) and the probes, 3 s before the lock...",
              file=sys.stderr)
        sample_until(lambda now, _: now - timeline.start >= 3)
        locker = subprocess.Popen(
            [os.path.join(pg.bin, "psql"), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-U", "postgres",
             "-h", pg.dir, "-d", "qr"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True)
        locker.stdin.write("BEGIN;\nLOCK TABLE scans IN EXCLUSIVE MODE;\nSELECT 'locked';\n")
        locker.stdin.flush()
        if locker.stdout.readline().strip() != "locked":
            harness.fail("psql did not take the lock on scans")
        timeline.locked = time.monotonic()
        print("Scans locked; filling the queue...", file=sys.stderr)

        def filled(now, depth):
            if depth is not None and depth >= QUEUE_CAPACITY and timeline.full is None:
                timeline.full = now
                print(f"Queue full after {now - timeline.locked:.1f} s; holding {HOLD:.0f} s...",
                      file=sys.stderr)
            if timeline.full is not None:
                return now - timeline.full >= HOLD
            return now - timeline.locked >= FILL_LIMIT

        sample_until(filled)
        locker.stdin.write("COMMIT;\n")
        locker.stdin.close()
        locker.wait(30)
        timeline.released = time.monotonic()
        print("Lock released; draining...", file=sys.stderr)
        drained_at = []

        def drained(now, depth):
            if depth == 0 and not drained_at:
                drained_at.append(now)
            return bool(drained_at) and now - drained_at[0] >= 5 or now - timeline.released > 120

        sample_until(drained)
        wrk.send_signal(signal.SIGINT)
        wrk.wait(60)
        probe_results = redirects.finish()
        read_results = reads.finish()
        # The last acknowledged scans: wait until the queue is empty again, then a batch's commit.
        sample_until(lambda now, depth: depth == 0)
        time.sleep(1)
        recorded = int(pg.psql("qr", f"SELECT count(*) FROM scans WHERE link_id = '{link['id']}'"))
        with open(wrk_out) as f:
            wrk_text = f.read()
        report(timeline, probe_results, read_results, depths, drained_at, wrk_text, recorded, log)
    finally:
        if wrk and wrk.poll() is None:
            wrk.kill()
        if locker and locker.poll() is None:
            locker.kill()
        if server and server.proc.poll() is None:
            server.kill(signal.SIGTERM)
            server.wait()
        pg.close()


def report(timeline, probe_results, read_results, depths, drained_at, wrk_text, recorded, log):
    result = re.search(r"RESULT (.*)", wrk_text)
    figures = dict(re.findall(r"(\w+)=([\d.]+)", result[1])) if result else {}
    wrk_statuses = {}
    wrk_302 = 0
    for m in re.finditer(r"RESPONSES status=(\d+) count=(\d+) location=(.*)", wrk_text):
        wrk_statuses[f"{m[1]} {m[3]}"] = int(m[2])
        if m[1] == "302" and m[3] == TARGET:
            wrk_302 += int(m[2])
    probe_302 = sum(1 for r in probe_results if r[2] == 302 and r[3] == TARGET)
    answered = wrk_302 + probe_302
    with open(log, errors="replace") as f:
        server_log = f.read()
    unconfirmed = server_log.count("scan not confirmed in time")
    not_recorded = server_log.count("scan not recorded") + server_log.count("scan not queued")
    known = [d for _, d in depths if d is not None]
    silent = sum(1 for _, d in depths if d is None)
    fill = (f"full ({QUEUE_CAPACITY:,}) {timeline.full - timeline.locked:.1f} s after the lock"
            if timeline.full else f"never full in {FILL_LIMIT:.0f} s (deepest {max(known or [0]):,})")
    held = timeline.released - timeline.locked
    drain = (f"empty {drained_at[0] - timeline.released:.1f} s after the release"
             if drained_at else "not empty 120 s after the release")
    print(f"One server on PostgreSQL, wrk at {CONNS:,} connections redirecting one link (every "
          f"request from its own visitor), probes on new connections; scans locked for {held:.1f} s. "
          f"Queue: {fill}; {drain}; deepest {max(known or [0]):,}; the metrics address did not "
          f"answer within 2 s {silent} time(s) of {len(depths)}.\n")
    print("| probe | started while | requests | outcomes | p50 ms | p99 ms | max ms |")
    print("|---|---|---|---|---|---|---|")
    for row in phase_rows(probe_results, timeline, "redirect (new connection)"):
        print(row)
    for row in phase_rows(read_results, timeline, "GET /api/links (new connection)"):
        print(row)
    print()
    statuses = ", ".join(f"{n:,} × {k}" for k, n in sorted(wrk_statuses.items())) or "none"
    # wrk prints "Socket errors: connect N, read N, write N, timeout N" when there were some.
    errors = re.search(r"Socket errors: (.*)", wrk_text)
    socket_errors = f"socket errors: {errors[1].strip()}" if errors else "no socket errors"
    print(f"wrk over the whole run: {int(float(figures.get('requests', 0))):,} responses ({statuses}), "
          f"{int(float(figures.get('errors', 0))):,} errors ({socket_errors}), "
          f"p50 {float(figures.get('p50_ms', 0)):,.0f} ms, p99 {float(figures.get('p99_ms', 0)):,.0f} ms.")
    print(f"Redirects answered 302 to the target: {answered:,} (wrk {wrk_302:,}, probes {probe_302:,}); "
          f"scans recorded for the link once the queue drained: {recorded:,}; "
          f"missing: {max(0, answered - recorded):,} "
          f"({'none lost' if recorded >= answered else 'SCANS LOST'}). Server log: {unconfirmed:,} "
          f"redirects answered before their scan's commit (\"scan not confirmed in time\", 5 s), "
          f"{not_recorded:,} scans not recorded or not queued.")
    series = []
    step = max(1, len(depths) // 24)
    for t, d in depths[::step]:
        series.append(f"{t - timeline.start:.0f}s:{'-' if d is None else f'{d:,}'}")
    print("Queue depth over time (seconds from the start): " + " ".join(series))
    if recorded < answered:
        harness.fail(f"{answered - recorded} scans answered with a 302 are missing")


if __name__ == "__main__":
    main()
