#!/usr/bin/env python3
"""Slow clients: 1,000 connections that send their request headers one byte at a time must not
stop other clients from being served.

Usage: benches/faults/slow.py [SLOW_CLIENTS] [SECONDS]   (defaults 1000 and 30)

A normal client makes fresh-connection requests (a 300 px PNG, then a health check) for the
given time, first alone, then while the slow clients trickle their headers (one byte every
0.5 s; a slow client whose connection the server closes reconnects at once, so the pressure
stays at SLOW_CLIENTS connections). Prints both phases' success rate, p50 and p99.
"""

import asyncio
import os
import resource
import signal
import socket
import statistics
import sys
import tempfile
import time

import harness

GENERATE = "/api/generate?data=https%3A%2F%2Fqr.example.com%2Fr%2F7K3M9QXZ&size=300"


async def slow_client(addr, stop, stats):
    head = f"GET {GENERATE} HTTP/1.1\r\nHost: x\r\nUser-Agent: slowloris\r\n".encode() + b"X-Pad: " + b"a" * 4000
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection(*addr)
        except OSError:
            stats["refused"] += 1
            await asyncio.sleep(0.5)
            continue
        stats["opened"] += 1
        try:
            for i in range(len(head)):
                if stop.is_set():
                    break
                writer.write(head[i:i + 1])
                await writer.drain()
                await asyncio.sleep(0.5)
                if reader.at_eof():
                    break
        except (ConnectionError, OSError):
            pass
        stats["closed_by_server"] += 0 if stop.is_set() else 1
        writer.close()


async def normal_client(addr, key, seconds):
    latencies, failures = [], 0
    end = time.time() + seconds
    while time.time() < end:
        for path in (GENERATE, "/api/health"):
            t = time.perf_counter()
            try:
                r, w = await asyncio.wait_for(asyncio.open_connection(*addr), 10)
                w.write(f"GET {path} HTTP/1.1\r\nHost: x\r\nX-API-Key: {key}\r\nConnection: close\r\n\r\n".encode())
                await w.drain()
                data = await asyncio.wait_for(r.read(), 10)
                w.close()
                ok = data.startswith(b"HTTP/1.1 200")
            except (OSError, asyncio.TimeoutError):
                ok = False
            if ok:
                latencies.append((time.perf_counter() - t) * 1000)
            else:
                failures += 1
        await asyncio.sleep(0.01)
    return latencies, failures


def summary(name, latencies, failures):
    n = len(latencies) + failures
    q = statistics.quantiles(latencies, n=100) if len(latencies) > 1 else [0] * 99
    return (f"| {name} | {n} | {len(latencies) / max(n, 1) * 100:.1f}% | "
            f"{statistics.median(latencies) if latencies else 0:.2f} | {q[98]:.2f} |")


async def run(addr, key, slow, seconds, server):
    alone = await normal_client(addr, key, min(seconds, 10))
    stop = asyncio.Event()
    stats = {"opened": 0, "refused": 0, "closed_by_server": 0}
    tasks = [asyncio.create_task(slow_client(addr, stop, stats)) for _ in range(slow)]
    await asyncio.sleep(3)  # let every slow connection open
    loaded = await normal_client(addr, key, seconds)
    stats["fds"] = server.open_fds()
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    return alone, loaded, stats


def main():
    slow = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    seconds = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, slow + 1024)), hard))
    harness.build()
    work = tempfile.mkdtemp(prefix="qr-slow-")
    server = harness.Server(os.path.join(work, "qr.db"), os.path.join(work, "server.log"))
    alone, loaded, stats = asyncio.run(run(server.addr, server.key, slow, seconds, server))
    fds = stats["fds"]
    server.kill(signal.SIGTERM)
    code = server.wait()
    print(f"{slow} slow clients, one byte every 0.5 s; {stats['opened']} slow connections opened, "
          f"{stats['closed_by_server']} closed by the server's header timeout, {stats['refused']} refused; "
          f"server exit {code}, {fds} open descriptors in the server while they were connected.\n")
    print("| phase | requests | answered 200 | p50 ms | p99 ms |")
    print("|---|---|---|---|---|")
    print(summary("normal client alone", *alone))
    print(summary(f"normal client beside {slow} slow clients", *loaded))
    if loaded[1] > 0:
        harness.fail(f"{loaded[1]} normal requests failed beside the slow clients")
    print("\nPASS: slow clients did not stop the normal client")


if __name__ == "__main__":
    main()
