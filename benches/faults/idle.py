#!/usr/bin/env python3
"""Idle sockets: a client holding more silent connections than the server has slots must not
lock other clients out.

Usage: benches/faults/idle.py [IDLE_SOCKETS] [SECONDS]   (defaults 1100 and 20)

Opens IDLE_SOCKETS TCP connections to the release `qr serve` (1,024 connection slots by default)
that send nothing and are reopened at once when the server closes them, so the pressure stays
at IDLE_SOCKETS. Meanwhile a normal client makes fresh-connection health checks for SECONDS.
Prints the normal client's success rate, p50, p99 and worst latency; fails if any request took
1 s or more. Set QR_MAX_CONNECTIONS_PER_IP above IDLE_SOCKETS to see the slot eviction alone
(all sockets come from 127.0.0.1, so the per-address cap of 256 otherwise acts first).
"""

import asyncio
import os
import resource
import signal
import statistics
import sys
import tempfile
import time

import harness


async def idle_socket(addr, stop, stats):
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection(*addr)
        except OSError:
            stats["refused"] += 1
            await asyncio.sleep(0.2)
            continue
        stats["opened"] += 1
        try:
            # Wait for the server to close it (or for the end of the run).
            while not stop.is_set():
                try:
                    data = await asyncio.wait_for(reader.read(1), 0.5)
                except asyncio.TimeoutError:
                    continue
                if not data:
                    stats["closed_by_server"] += 1
                    break
        except (ConnectionError, OSError):
            stats["closed_by_server"] += 1
        writer.close()


async def normal_client(addr, key, seconds):
    latencies, failures = [], 0
    end = time.time() + seconds
    while time.time() < end:
        t = time.perf_counter()
        try:
            r, w = await asyncio.wait_for(asyncio.open_connection(*addr), 60)
            w.write(f"GET /api/health HTTP/1.1\r\nHost: x\r\nX-API-Key: {key}\r\nConnection: close\r\n\r\n".encode())
            await w.drain()
            data = await asyncio.wait_for(r.read(), 60)
            w.close()
            ok = data.startswith(b"HTTP/1.1 200")
        except (OSError, asyncio.TimeoutError):
            ok = False
        if ok:
            latencies.append((time.perf_counter() - t) * 1000)
        else:
            failures += 1
        await asyncio.sleep(0.05)
    return latencies, failures


async def run(addr, key, idle, seconds):
    stop = asyncio.Event()
    stats = {"opened": 0, "refused": 0, "closed_by_server": 0}
    tasks = [asyncio.create_task(idle_socket(addr, stop, stats)) for _ in range(idle)]
    await asyncio.sleep(3)  # let every idle socket connect
    latencies, failures = await normal_client(addr, key, seconds)
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    return latencies, failures, stats


def main():
    idle = int(sys.argv[1]) if len(sys.argv) > 1 else 1100
    seconds = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, idle + 1024)), hard))
    harness.build()
    work = tempfile.mkdtemp(prefix="qr-idle-")
    server = harness.Server(os.path.join(work, "qr.db"), os.path.join(work, "server.log"))
    latencies, failures, stats = asyncio.run(run(server.addr, server.key, idle, seconds))
    server.kill(signal.SIGTERM)
    code = server.wait()
    n = len(latencies) + failures
    q = statistics.quantiles(latencies, n=100) if len(latencies) > 1 else [0] * 99
    worst = max(latencies) if latencies else 0
    print(f"{idle} idle sockets; {stats['opened']} opened, {stats['closed_by_server']} closed by the "
          f"server, {stats['refused']} refused; server exit {code}.\n")
    print("| requests | answered 200 | p50 ms | p99 ms | worst ms |")
    print("|---|---|---|---|---|")
    print(f"| {n} | {len(latencies) / max(n, 1) * 100:.1f}% | "
          f"{statistics.median(latencies) if latencies else 0:.2f} | {q[98]:.2f} | {worst:.2f} |")
    if failures or worst >= 1000:
        harness.fail(f"{failures} failed requests, worst {worst:.0f} ms beside {idle} idle sockets")
    print(f"\nPASS: every request beside {idle} idle sockets was answered in under 1 s")


if __name__ == "__main__":
    main()
