#!/usr/bin/env python3
"""Crash test: mixed load (link creation, updates, redirects), SIGKILL mid-run, restart, and a
comparison of the client's log of acknowledged writes with what the database holds.

Usage: benches/faults/crash.py [ROUNDS]   (default 10; each round takes about 5 seconds)

Checks, every round, on one database that keeps growing:
- every link whose creation got 201 exists with its name and code;
- every link's target is its last acknowledged update, or an update sent after it that was in
  flight at the kill (committed but not yet answered);
- every link's scanCount is at least the number of redirects answered 302 for it;
- the owner's monthly usage counter lost at most the requests of the last second before the kill.
Exits 1 on the first violation.
"""

import random
import signal
import sys
import threading
import time

import harness

WORKERS = 8


class Worker(threading.Thread):
    """Owns its links: creates them, updates them one at a time and scans them."""

    def __init__(self, n, addr, key, stop):
        super().__init__(daemon=True)
        self.n = n
        self.api = harness.Client(addr, key, timeout=10)
        self.visitor = harness.Client(addr, timeout=10)
        self.stop = stop
        self.rng = random.Random(n)
        self.links = {}        # id -> {"code", "name", "acked": target, "sent": [targets after acked]}
        self.scans = {}        # id -> redirects answered 302
        self.counted = []      # completion times of API requests the server admitted

    def run(self):
        seq = 0
        while not self.stop.is_set():
            seq += 1
            try:
                roll = self.rng.random()
                if not self.links or roll < 0.25:
                    self.create(seq)
                elif roll < 0.55:
                    self.update(seq)
                else:
                    self.scan()
            except Exception:
                # The server died (or was killed); anything unanswered is unacknowledged.
                time.sleep(0.01)

    def create(self, seq):
        name = f"w{self.n}-link{seq}"
        target = f"https://example.com/{self.n}/{seq}/v0"
        status, body = self.api.json("POST", "/api/links", {"name": name, "targetUrl": target})
        self.count(status)
        if status == 201:
            self.links[body["id"]] = {"code": body["shortCode"], "name": name, "acked": target, "sent": []}
            self.scans[body["id"]] = 0

    def update(self, seq):
        link_id = self.rng.choice(list(self.links))
        link = self.links[link_id]
        target = f"https://example.com/{self.n}/{seq}/v1"
        link["sent"].append(target)
        status, _ = self.api.json("PUT", f"/api/links?id={link_id}", {"targetUrl": target})
        self.count(status)
        if status == 200:
            link["acked"] = target
            link["sent"] = []

    def scan(self):
        link_id = self.rng.choice(list(self.links))
        status, _, _ = self.visitor.request("GET", f"/r/{self.links[link_id]['code']}")
        if status == 302:
            self.scans[link_id] += 1

    def count(self, status):
        if status != 429:
            self.counted.append(time.time())


def usage(client):
    status, body = client.json("GET", "/api/dashboard?action=usage")
    if status != 200:
        harness.fail(f"usage answered {status}: {body}")
    return body["usage"]["current"]


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    # The owner (enterprise) gets a rate that the load never reaches, so every request counts.
    db, log, key = harness.new_database("qr-crash-")

    workers_all = []
    for rnd in range(1, rounds + 1):
        server = harness.Server(db, log)
        start_usage = usage(harness.Client(server.addr, key))
        stop = threading.Event()
        workers = [Worker(rnd * 100 + i, server.addr, key, stop) for i in range(WORKERS)]
        for w in workers:
            w.start()
        time.sleep(random.uniform(2.0, 4.0))
        killed_at = time.time()
        server.kill(signal.SIGKILL)
        server.wait()
        stop.set()
        for w in workers:
            w.join()
        workers_all.extend(workers)

        server = harness.Server(db, log)
        check = harness.Client(server.addr, key)
        # First request after the restart, so the link checks below are not in the figure.
        now_usage = usage(check) - 1
        links = scans = updates = 0
        for w in workers_all:
            for link_id, want in w.links.items():
                status, got = check.json("GET", f"/api/links?id={link_id}")
                if status != 200:
                    harness.fail(f"round {rnd}: acknowledged link {link_id} is missing ({status})")
                if got["name"] != want["name"] or got["shortCode"] != want["code"]:
                    harness.fail(f"round {rnd}: link {link_id} differs: {got} vs {want}")
                if got["targetUrl"] not in [want["acked"], *want["sent"]]:
                    harness.fail(f"round {rnd}: link {link_id} target {got['targetUrl']} is not the acknowledged {want['acked']}")
                if got["scanCount"] < w.scans[link_id]:
                    harness.fail(f"round {rnd}: link {link_id} has {got['scanCount']} scans, {w.scans[link_id]} were acknowledged")
                links += 1
                scans += w.scans[link_id]
                updates += 1 if want["acked"].endswith("v1") else 0
        # start_usage already counts the round's first usage request; now_usage leaves out its own.
        admitted = sum(len(w.counted) for w in workers)
        old_enough = sum(1 for w in workers for t in w.counted if t < killed_at - 1.0)
        lost = start_usage + admitted - now_usage
        if now_usage < start_usage + old_enough:
            harness.fail(f"round {rnd}: usage {now_usage} lost requests older than one second "
                         f"(start {start_usage}, admitted {admitted}, older than 1 s {old_enough})")
        print(f"round {rnd}: {links} links, {updates} with an "
              f"acknowledged update, {scans} acknowledged scans all present; usage lost "
              f"{max(lost, 0)} of {admitted} requests this round (allowed: the {admitted - old_enough} "
              f"answered in the last second before the kill)")
        server.kill(signal.SIGTERM)
        if server.wait() != 0:
            harness.fail("the server did not exit 0 on SIGTERM")
    print(f"PASS: {rounds} rounds, nothing acknowledged was lost")


if __name__ == "__main__":
    main()
