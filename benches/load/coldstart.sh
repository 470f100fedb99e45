#!/usr/bin/env bash
# Cold start of the release `qr serve`: the time from starting the process to its first answered
# `GET /livez`, each run on a fresh temporary database (so it includes creating the schema and the
# owner account), N runs (default 20). Prints the median, the fastest and the slowest run, and the
# installed binary's size.
#
# Usage: benches/load/coldstart.sh            (from anywhere; about 10 s after the build)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
N="${N:-20}"
cd "$ROOT"
cargo build --release --quiet -p qr-cli
BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/qr"
python3 - "$BIN" "$N" <<'PY'
import http.client, os, shutil, socket, statistics, subprocess, sys, tempfile, time

binary, runs = sys.argv[1], int(sys.argv[2])

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]

def live(port):
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
        c.request("GET", "/livez")
        ok = c.getresponse().status == 200
        c.close()
        return ok
    except OSError:
        return False

times = []
for _ in range(runs):
    work = tempfile.mkdtemp()
    port = free_port()
    env = dict(os.environ, RUST_LOG="warn")
    started = time.monotonic()
    server = subprocess.Popen(
        [binary, "serve", "--db", os.path.join(work, "qr.db"), "--listen", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    while not live(port):
        if server.poll() is not None:
            sys.exit("qr serve exited before answering")
        time.sleep(0.001)
    times.append((time.monotonic() - started) * 1000)
    server.terminate()
    server.wait()
    shutil.rmtree(work)
size = os.path.getsize(binary)
print(f"binary {binary}: {size / 1e6:.1f} MB ({size:,} bytes)")
print(f"cold start to the first answered GET /livez over {runs} runs, fresh database each: "
      f"median {statistics.median(times):.1f} ms, fastest {min(times):.1f} ms, slowest {max(times):.1f} ms")
with open("/proc/loadavg") as f:
    print("load average:", " ".join(f.read().split()[:3]))
PY
