#!/usr/bin/env python3
"""Graceful stop: SIGTERM under load. Requests in flight when the signal arrives must complete,
the server must exit 0, and after a restart every acknowledged link and scan is there and the
usage counter lost nothing (the stop flushes it).

Usage: benches/faults/sigterm.py [ROUNDS]   (default 3)
"""

import signal
import sys
import threading
import time

import harness

WORKERS = 16
GENERATE = "/api/generate?data=https%3A%2F%2Fqr.example.com%2Fr%2F7K3M9QXZ&size=300"


class Worker(threading.Thread):
    def __init__(self, n, addr, key, stop):
        super().__init__(daemon=True)
        self.n = n
        self.client = harness.Client(addr, key, timeout=30)
        self.stop = stop
        self.calls = []          # (started, finished, status or None, kind)
        self.links = {}          # id -> code
        self.scans = {}          # id -> acknowledged redirects
        self.admitted = 0

    def run(self):
        seq = 0
        while not self.stop.is_set():
            seq += 1
            kind = ("create", "generate", "scan")[seq % 3] if self.links else "create"
            started = time.time()
            status = None
            try:
                if kind == "create":
                    status, body = self.client.json("POST", "/api/links", {
                        "name": f"w{self.n}-{seq}", "targetUrl": f"https://example.com/{self.n}/{seq}"})
                    if status == 201:
                        self.links[body["id"]] = body["shortCode"]
                        self.scans[body["id"]] = 0
                elif kind == "generate":
                    status, _, _ = self.client.request("GET", GENERATE)
                else:
                    link_id = next(iter(self.links))
                    status, _, _ = self.client.request("GET", f"/r/{self.links[link_id]}",
                                                       headers={"X-API-Key": ""})
                    if status == 302:
                        self.scans[link_id] += 1
                if kind != "scan" and status not in (None, 429):
                    self.admitted += 1
            except Exception:
                status = None
            self.calls.append((started, time.time(), status, kind))
            if status is None:
                return  # the server is gone; a new connection would be refused


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    db, log, key = harness.new_database("qr-sigterm-")
    for rnd in range(1, rounds + 1):
        server = harness.Server(db, log)
        before = harness.Client(server.addr, key).json("GET", "/api/dashboard?action=usage")[1]["usage"]["current"]
        stop = threading.Event()
        workers = [Worker(i, server.addr, key, stop) for i in range(WORKERS)]
        for w in workers:
            w.start()
        time.sleep(3)
        signalled = time.time()
        server.kill(signal.SIGTERM)
        code = server.wait()
        stopped = time.time()
        stop.set()
        for w in workers:
            w.join()
        calls = [c for w in workers for c in w.calls]
        in_flight = [c for c in calls if c[0] < signalled < c[1]]
        broken = [c for c in in_flight if c[2] is None]
        if code != 0:
            harness.fail(f"round {rnd}: exit code {code}")
        server = harness.Server(db, log)
        check = harness.Client(server.addr, key)
        after = check.json("GET", "/api/dashboard?action=usage")[1]["usage"]["current"] - 1
        admitted = sum(w.admitted for w in workers)
        acked_scans = 0
        for w in workers:
            for link_id, code_ in w.links.items():
                status, got = check.json("GET", f"/api/links?id={link_id}")
                if status != 200 or got["shortCode"] != code_:
                    harness.fail(f"round {rnd}: acknowledged link {link_id} is missing")
                if got["scanCount"] < w.scans[link_id]:
                    harness.fail(f"round {rnd}: link {link_id}: {got['scanCount']} scans < {w.scans[link_id]} acknowledged")
                acked_scans += w.scans[link_id]
        print(f"round {rnd}: {len(calls)} requests, {len(in_flight)} in flight at SIGTERM, "
              f"{len(in_flight) - len(broken)} of them completed; exit {code} after "
              f"{(stopped - signalled) * 1000:.0f} ms; usage {before} + {admitted} admitted -> {after}; "
              f"{sum(len(w.links) for w in workers)} links and {acked_scans} scans present")
        if broken:
            harness.fail(f"round {rnd}: {len(broken)} requests in flight at SIGTERM got no answer: {broken[:3]}")
        if after < before + admitted:
            harness.fail(f"round {rnd}: usage lost {before + admitted - after} requests on a graceful stop")
        server.kill(signal.SIGTERM)
        server.wait()
    print(f"PASS: {rounds} graceful stops under load, nothing in flight or acknowledged was lost")


if __name__ == "__main__":
    main()
