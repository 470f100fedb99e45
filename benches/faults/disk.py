#!/usr/bin/env python3
"""Disk full and read-only database, on a real file system (needs root: it mounts a tmpfs).

Usage: sudo benches/faults/disk.py

1. Full: the database lives on an 8 MiB tmpfs. With links stored, a filler file takes the rest
   of the space. Link creation must get 503 with a clear body; redirects (from the stored links),
   generation and reads must keep working; after the filler is removed, creation works again.
2. Read-only: the server stops, the tmpfs is remounted read-only, the server starts again. It
   must serve redirects, generation and reads, and answer 503 to writes. After a remount
   read-write and a restart, writes work again.
Finally SQLite's integrity check must pass and every acknowledged link must be there.
"""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile

import harness

GENERATE = "/api/generate?data=hello&size=300"


def check(cond, what, detail=""):
    print(f"| {what} | {'ok' if cond else 'FAIL'} | {detail} |")
    if not cond:
        harness.fail(f"{what}: {detail}")


def create(client, n):
    return client.json("POST", "/api/links", {"name": f"disk {n}", "targetUrl": f"https://example.com/{n}"})


def main():
    if os.geteuid() != 0:
        harness.fail("run as root: the script mounts a tmpfs")
    harness.build()
    mnt = tempfile.mkdtemp(prefix="qr-disk-")
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", mnt], check=True)
    log = os.path.join(tempfile.mkdtemp(prefix="qr-disk-log-"), "server.log")
    db = os.path.join(mnt, "qr.db")
    acked = {}
    try:
        print("| step | result | detail |")
        print("|---|---|---|")
        server = harness.Server(db, log)
        key = server.key
        api = harness.Client(server.addr, key)
        visitor = harness.Client(server.addr)
        for n in range(20):
            status, body = create(api, n)
            assert status == 201, body
            acked[body["id"]] = body
        filler = os.path.join(mnt, "filler")
        subprocess.run(["dd", "if=/dev/zero", f"of={filler}", "bs=64k"], capture_output=True)
        free = os.statvfs(mnt).f_bavail
        refusals = []
        for n in range(20, 40):
            status, body = create(api, n)
            if status == 201:
                acked[body["id"]] = body  # a write that still fitted into free pages
            else:
                refusals.append((status, body))
        check(refusals and all(s == 503 for s, _ in refusals), "disk full: link creation answers 503",
              json.dumps(refusals[0][1]) if refusals else f"nothing refused ({free} blocks free)")
        code = next(iter(acked.values()))["shortCode"]
        status, headers, _ = visitor.request("GET", f"/r/{code}")
        check(status == 302, "disk full: redirect still served", f"{status} {headers.get('location')}")
        status, headers, data = api.request("GET", GENERATE)
        check(status == 200 and data.startswith(b"\x89PNG"), "disk full: generate still served", f"{status}, {len(data)} bytes")
        status, body = api.json("GET", "/api/links")
        check(status == 200 and len(body["links"]) == len(acked), "disk full: links still listed", f"{len(body['links'])} links")
        os.remove(filler)
        status, body = create(api, 100)
        check(status == 201, "space returns: link creation works again", str(status))
        acked[body["id"]] = body
        server.kill(signal.SIGTERM)
        check(server.wait() == 0, "stop after the full-disk phase exits 0")

        subprocess.run(["mount", "-o", "remount,ro", mnt], check=True)
        server = harness.Server(db, log)
        api = harness.Client(server.addr, key)
        visitor = harness.Client(server.addr)
        status, body = create(api, 200)
        check(status == 503, "read-only: link creation answers 503", json.dumps(body))
        status, headers, _ = visitor.request("GET", f"/r/{code}")
        check(status == 302, "read-only: redirect still served", str(status))
        status, _, data = api.request("GET", GENERATE)
        check(status == 200, "read-only: generate still served", str(status))
        status, body = api.json("GET", "/api/links")
        check(status == 200 and len(body["links"]) == len(acked), "read-only: links still listed", f"{len(body['links'])} links")
        server.kill(signal.SIGTERM)
        check(server.wait() == 0, "stop of the read-only server exits 0")

        subprocess.run(["mount", "-o", "remount,rw", mnt], check=True)
        server = harness.Server(db, log)
        api = harness.Client(server.addr, key)
        status, body = create(api, 300)
        check(status == 201, "writable again: link creation works", str(status))
        acked[body["id"]] = body
        status, body = api.json("GET", "/api/links")
        stored = {link["id"] for link in body["links"]}
        check(set(acked) <= stored, "every acknowledged link is stored", f"{len(acked)} acknowledged, {len(stored)} stored")
        server.kill(signal.SIGTERM)
        server.wait()
        integrity = sqlite3.connect(db).execute("PRAGMA integrity_check").fetchone()[0]
        check(integrity == "ok", "SQLite integrity check", integrity)
        print("\nPASS: full and read-only storage answered 503 for writes, kept serving, and recovered")
    finally:
        subprocess.run(["umount", "-l", mnt])


if __name__ == "__main__":
    main()
