#!/usr/bin/env python3
"""Soak: mixed load for a fixed time while the server's RSS and open file descriptors are
sampled; both must stay flat.

Usage: benches/faults/soak.py [SECONDS]   (default 600)

Eight workers loop over: a PNG and an SVG, redirects (recorded scans), link creation, update
and deletion (each worker keeps at most 50 links), analytics, usage, and a 10-item batch.
Prints one sample a minute (RSS, descriptors, requests so far, errors). RSS legitimately grows
while SQLite's page caches fill (six connections of at most 2 MiB each) as the database grows, so
the check compares the end with the middle of the run: over the second half RSS may grow at most
5% and descriptors not at all (beyond 5 of slack).
"""

import random
import signal
import sys
import threading
import time

import harness

WORKERS = 8
BATCH = {"defaults": {"size": 200}, "items": [{"data": f"https://qr.example.com/r/SOAK{i:04d}"} for i in range(10)]}


class Worker(threading.Thread):
    def __init__(self, n, addr, key, stop, counts):
        super().__init__(daemon=True)
        self.rng = random.Random(n)
        self.api = harness.Client(addr, key)
        self.visitor = harness.Client(addr)
        self.stop = stop
        self.counts = counts
        self.links = []

    def run(self):
        seq = 0
        while not self.stop.is_set():
            seq += 1
            try:
                self.step(seq)
                self.counts["ok"] += 1
            except Exception as e:  # noqa: BLE001 - any failure is counted and reported
                self.counts["errors"] += 1
                self.counts["last_error"] = repr(e)
                time.sleep(0.05)

    def step(self, seq):
        roll = self.rng.random()
        if roll < 0.15:
            self.expect(self.api.request("GET", f"/api/generate?data=soak-{seq}&size=300")[0], 200)
        elif roll < 0.25:
            self.expect(self.api.request("GET", f"/api/generate?data=soak-{seq}&size=300&format=svg")[0], 200)
        elif roll < 0.55 and self.links:
            self.expect(self.visitor.request("GET", f"/r/{self.rng.choice(self.links)[1]}")[0], 302)
        elif roll < 0.65:
            status, body = self.api.json("POST", "/api/links", {"name": f"soak {seq}", "targetUrl": f"https://example.com/{seq}"})
            self.expect(status, 201)
            self.links.append((body["id"], body["shortCode"]))
            if len(self.links) > 50:
                link_id, _ = self.links.pop(0)
                self.expect(self.api.request("DELETE", f"/api/links?id={link_id}")[0], 204)
        elif roll < 0.72 and self.links:
            link_id, _ = self.rng.choice(self.links)
            self.expect(self.api.json("PUT", f"/api/links?id={link_id}", {"targetUrl": f"https://example.com/u/{seq}"})[0], 200)
        elif roll < 0.85 and self.links:
            link_id, _ = self.rng.choice(self.links)
            self.expect(self.api.request("GET", f"/api/analytics?linkId={link_id}")[0], 200)
        elif roll < 0.95:
            self.expect(self.api.request("GET", "/api/dashboard?action=usage")[0], 200)
        else:
            self.expect(self.api.request("POST", "/api/batch", BATCH)[0], 200)

    @staticmethod
    def expect(status, want):
        if status != want:
            raise RuntimeError(f"status {status}, expected {want}")


def main():
    seconds = int(sys.argv[1]) if len(sys.argv) > 1 else 600
    db, log, key = harness.new_database("qr-soak-")
    server = harness.Server(db, log)
    stop = threading.Event()
    counts = {"ok": 0, "errors": 0, "last_error": None}
    workers = [Worker(i, server.addr, key, stop, counts) for i in range(WORKERS)]
    for w in workers:
        w.start()
    started = time.time()
    samples = []
    print("| minute | RSS MiB | open descriptors | requests | errors |")
    print("|---|---|---|---|---|")
    next_print = 0
    while time.time() - started < seconds:
        elapsed = time.time() - started
        sample = (elapsed, server.rss_kib() / 1024, server.open_fds(), counts["ok"], counts["errors"])
        samples.append(sample)
        if elapsed >= next_print:
            print(f"| {elapsed / 60:.1f} | {sample[1]:.1f} | {sample[2]} | {sample[3]} | {sample[4]} |", flush=True)
            next_print += 60
        time.sleep(5)
    end = (time.time() - started, server.rss_kib() / 1024, server.open_fds(), counts["ok"], counts["errors"])
    print(f"| {end[0] / 60:.1f} | {end[1]:.1f} | {end[2]} | {end[3]} | {end[4]} |")
    stop.set()
    for w in workers:
        w.join()
    server.kill(signal.SIGTERM)
    code = server.wait()
    warm = next(s for s in samples if s[0] >= 30) if seconds > 40 else samples[0]
    half = next(s for s in samples if s[0] >= seconds / 2)
    peak = max(s[1] for s in samples + [end])
    print(f"\nAfter 30 s: RSS {warm[1]:.1f} MiB, {warm[2]} descriptors. Half-way ({half[0]:.0f} s): "
          f"RSS {half[1]:.1f} MiB, {half[2]} descriptors. End ({end[0]:.0f} s): RSS {end[1]:.1f} MiB, "
          f"{end[2]} descriptors. Peak RSS {peak:.1f} MiB. {end[3]} requests, {end[4]} errors "
          f"({counts['last_error']}); exit {code}.")
    if end[4] > 0:
        harness.fail(f"{end[4]} requests failed")
    if end[1] > half[1] * 1.05:
        harness.fail("RSS grew more than 5% over the second half")
    if end[2] > half[2] + 5:
        harness.fail("open descriptors grew")
    print("PASS: RSS and descriptors stayed flat")


if __name__ == "__main__":
    main()
