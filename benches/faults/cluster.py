#!/usr/bin/env python3
"""Faults of the several-server setup: 3 servers behind HAProxy on one PostgreSQL and one Redis,
under mixed load (link creation, updates, redirects, generate), while
  kill      one server gets SIGKILL (the others keep serving through the balancer);
  postgres  PostgreSQL is restarted (`pg_ctl restart -m fast`);
  redis     Redis is stopped for 3 s and started again.
Then every acknowledged write is checked through the balancer, and the owner's monthly count
against the requests the clients saw admitted.

Usage: benches/faults/cluster.py [kill|postgres|redis ...]   (default: all three, ~2 minutes)
Needs PostgreSQL, redis-server and haproxy (apt-get install postgresql redis-server haproxy).
"""

import collections
import random
import signal
import sys
import threading
import time

import cluster_harness
import harness

WORKERS = 8
GENERATE = "/api/generate?data=cluster&size=100"


class Worker(threading.Thread):
    """Owns its links: creates them, updates them, scans them, and generates codes."""

    def __init__(self, n, addr, key, stop, timeline):
        super().__init__(daemon=True)
        self.n = n
        self.api = harness.Client(addr, key, timeout=10)
        self.visitor = harness.Client(addr, timeout=10)
        self.stop = stop
        self.timeline = timeline
        self.rng = random.Random(n)
        self.links = {}       # id -> {"code", "name", "acked", "sent"}
        self.scans = {}       # id -> [times of 302 answers]
        self.counted = 0      # answers that the server certainly counted (2xx, 400, 404)
        self.uncertain = 0    # 5xx and transport errors: counted or not, the client cannot tell

    def run(self):
        seq = 0
        while not self.stop.is_set():
            seq += 1
            roll = self.rng.random()
            try:
                if not self.links or roll < 0.2:
                    self.create(seq)
                elif roll < 0.4:
                    self.update(seq)
                elif roll < 0.8:
                    self.scan()
                else:
                    self.note("generate", self.api.request("GET", GENERATE)[0], keyed=True)
            except Exception:
                self.note("error", None, keyed=roll < 0.4 or roll >= 0.8)
                time.sleep(0.01)

    def note(self, kind, status, keyed):
        self.timeline.append((time.time(), kind, status))
        if not keyed:
            return
        if status is None or status >= 500:
            self.uncertain += 1
        elif status not in (401, 403, 429):
            self.counted += 1

    def create(self, seq):
        name = f"w{self.n}-link{seq}"
        target = f"https://example.com/{self.n}/{seq}/v0"
        status, body = self.api.json("POST", "/api/links", {"name": name, "targetUrl": target})
        self.note("create", status, keyed=True)
        if status == 201:
            self.links[body["id"]] = {"code": body["shortCode"], "name": name, "acked": target,
                                      "sent": []}
            self.scans[body["id"]] = []

    def update(self, seq):
        link_id = self.rng.choice(list(self.links))
        link = self.links[link_id]
        target = f"https://example.com/{self.n}/{seq}/v1"
        link["sent"].append(target)
        status, _ = self.api.json("PUT", f"/api/links?id={link_id}", {"targetUrl": target})
        self.note("update", status, keyed=True)
        if status == 200:
            link["acked"] = target
            link["sent"] = []

    def scan(self):
        link_id = self.rng.choice(list(self.links))
        status, _, _ = self.visitor.request("GET", f"/r/{self.links[link_id]['code']}")
        self.note("redirect", status, keyed=False)
        if status == 302:
            self.scans[link_id].append(time.time())


def usage(client):
    status, body = client.json("GET", "/api/dashboard?action=usage")
    if status != 200:
        harness.fail(f"usage answered {status}: {body}")
    return body["usage"]["current"]


def summarize(timeline, start, end):
    """Answers per kind and status between two instants."""
    counts = collections.Counter()
    for at, kind, status in timeline:
        if start <= at < end:
            counts[(kind, status)] += 1
    return counts


def describe(counts):
    by_kind = collections.defaultdict(list)
    for (kind, status), n in sorted(counts.items(), key=lambda kv: (kv[0][0], str(kv[0][1]))):
        by_kind[kind].append(f"{status or 'no answer'}: {n}")
    return "; ".join(f"{kind} {', '.join(parts)}" for kind, parts in sorted(by_kind.items()))


def verify(name, cluster, workers, start_usage, outage):
    """Every acknowledged write is present; scans of redirects answered outside `outage` are
    counted; the monthly count is within what the clients saw."""
    check = harness.Client(cluster.balancer.addr, cluster.key)
    links = updates = scans = 0
    unrecorded_window = 0
    for w in workers:
        for link_id, want in w.links.items():
            status, got = check.json("GET", f"/api/links?id={link_id}")
            if status != 200:
                harness.fail(f"{name}: acknowledged link {link_id} is missing ({status})")
            if got["name"] != want["name"] or got["shortCode"] != want["code"]:
                harness.fail(f"{name}: link {link_id} differs: {got} vs {want}")
            if got["targetUrl"] not in [want["acked"], *want["sent"]]:
                harness.fail(f"{name}: link {link_id} target {got['targetUrl']} is not the "
                             f"acknowledged {want['acked']}")
            outside = [t for t in w.scans[link_id] if not outage[0] <= t <= outage[1]]
            if got["scanCount"] < len(outside):
                harness.fail(f"{name}: link {link_id} has {got['scanCount']} scans, "
                             f"{len(outside)} redirects answered outside the outage")
            links += 1
            updates += 1 if want["acked"].endswith("v1") else 0
            scans += len(w.scans[link_id])
            unrecorded_window += len(w.scans[link_id]) - len(outside)
    now_usage = usage(check) - 1
    counted = sum(w.counted for w in workers)
    uncertain = sum(w.uncertain for w in workers)
    low, high = start_usage + counted, start_usage + counted + uncertain
    if not low <= now_usage <= high:
        harness.fail(f"{name}: monthly count {now_usage} outside [{low}, {high}] "
                     f"(start {start_usage}, certainly counted {counted}, uncertain {uncertain})")
    return (f"{links} links ({updates} with an acknowledged update) and {scans} redirects checked; "
            f"monthly count {now_usage - start_usage} for {counted} requests certainly counted "
            f"and {uncertain} unanswered or 5xx (allowed range {counted}..{counted + uncertain})"
            + (f"; {unrecorded_window} redirects were answered during the outage window"
               if outage[1] > outage[0] else ""))


def run(name, fault):
    cluster = cluster_harness.Cluster(f"qr-cluster-{name}-")
    try:
        client = harness.Client(cluster.balancer.addr, cluster.key)
        start_usage = usage(client)
        stop = threading.Event()
        timeline = []
        workers = [Worker(i, cluster.balancer.addr, cluster.key, stop, timeline)
                   for i in range(WORKERS)]
        for w in workers:
            w.start()
        time.sleep(3)
        fault_at = time.time()
        outage, detail = fault(cluster)
        time.sleep(4)
        stop.set()
        for w in workers:
            w.join()
        end = time.time()
        print(f"{name}: before the fault (3 s): {describe(summarize(timeline, 0, fault_at))}")
        print(f"{name}: from the fault to the end ({end - fault_at:.1f} s): "
              f"{describe(summarize(timeline, fault_at, end))}")
        if detail:
            print(f"{name}: {detail}")
        print(f"{name}: {verify(name, cluster, workers, start_usage, outage)}")
        with open(cluster.log) as f:
            lines = f.read().splitlines()
        for needle in ("Redis cannot be reached", "Redis answers again", "scan not recorded"):
            n = sum(needle in line for line in lines)
            if n:
                print(f"{name}: server log lines containing {needle!r}: {n}")
        print(f"PASS: {name}")
    finally:
        cluster.close()


def kill(cluster):
    cluster.servers[0].kill(signal.SIGKILL)
    cluster.servers[0].wait()
    return (0, 0), "server 1 of 3 got SIGKILL; HAProxy takes it out after two failed checks (1 s apart)"


def postgres(cluster):
    started = time.time()
    cluster.pg.restart()
    back = time.time()
    # Until every server's listener and pool have reconnected, writes may still fail.
    return (started - 0.5, back + 2.0), f"pg_ctl restart -m fast took {back - started:.2f} s"


def redis(cluster):
    started = time.time()
    cluster.redis.stop()
    time.sleep(3)
    cluster.redis.start()
    return (0, 0), f"Redis was down for {time.time() - started:.2f} s (SHUTDOWN, then started again)"


def main():
    scenarios = {"kill": kill, "postgres": postgres, "redis": redis}
    chosen = sys.argv[1:] or list(scenarios)
    for name in chosen:
        if name not in scenarios:
            harness.fail(f"unknown scenario {name}: use {', '.join(scenarios)}")
        run(name, scenarios[name])


if __name__ == "__main__":
    main()
