"""Shared pieces of the fault scripts: building and running the release server, HTTP calls,
and process measurements. Standard library only, so the scripts run on a fresh machine."""

import http.client
import itertools
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
QR = os.path.join(TARGET, "release", "qr")
OWNER = "owner@qr-platform.local"
PHONE = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 "
         "(KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1")


def build():
    """Builds the release `qr` binary (a no-op when it is current). QR_SKIP_BUILD=1 runs the
    binaries already in CARGO_TARGET_DIR as they are (built by someone else, from another tree)."""
    if skip_build():
        return
    subprocess.run(["cargo", "build", "--release", "--quiet", "-p", "qr-cli"], cwd=ROOT, check=True)


def skip_build():
    return os.environ.get("QR_SKIP_BUILD") == "1"


def qr(*args, db):
    """Runs a `qr` administration command on `db` and returns its standard output."""
    out = subprocess.run([QR, *args, "--db", db], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"qr {' '.join(args)} failed: {out.stderr}")
    return out.stdout


class Server:
    """A `qr serve` process on 127.0.0.1 with a kernel-chosen port."""

    def __init__(self, db, log, env=None, args=()):
        self.db = db
        self.log = open(log, "ab")
        full_env = dict(os.environ, RUST_LOG=os.environ.get("RUST_LOG", "warn"), **(env or {}))
        self.proc = subprocess.Popen(
            # Loopback is a trusted proxy, so clients can give each scan its own visitor address
            # (the server counts one visitor's replays at most 10 times a minute).
            [QR, "serve", "--db", db, "--listen", "127.0.0.1:0", "--trusted-proxies", "127.0.0.1", *args],
            stdout=subprocess.PIPE, stderr=self.log, env=full_env)
        self.key = None
        self.addr = None
        lines = []
        deadline = time.time() + 30
        while self.addr is None:
            line = self.proc.stdout.readline().decode()
            if not line:
                raise RuntimeError(f"the server exited: {''.join(lines)} (log: {log})")
            lines.append(line)
            stripped = line.strip()
            if stripped.startswith("qrapi_"):
                self.key = stripped
            if stripped.startswith("Listening on http://"):
                host, port = stripped[len("Listening on http://"):].rsplit(":", 1)
                self.addr = (host, int(port))
            if time.time() > deadline:
                raise RuntimeError("the server did not start in 30 s")
        # Keep draining stdout so the server never blocks on a full pipe.
        threading.Thread(target=self.proc.stdout.read, daemon=True).start()

    @property
    def pid(self):
        return self.proc.pid

    def kill(self, sig=signal.SIGKILL):
        self.proc.send_signal(sig)

    def wait(self, timeout=60):
        return self.proc.wait(timeout)

    def rss_kib(self):
        return status_field(self.pid, "VmRSS")

    def open_fds(self):
        return len(os.listdir(f"/proc/{self.pid}/fd"))


def new_database(prefix):
    """Builds the server, creates a database in a new temporary folder and its owner account,
    and lifts the owner's rate limits so that load scripts count every request. Returns the
    database path, the server log path and the owner's API key."""
    build()
    work = tempfile.mkdtemp(prefix=prefix)
    db = os.path.join(work, "qr.db")
    log = os.path.join(work, "server.log")
    server = Server(db, log)
    key = server.key
    server.kill(signal.SIGTERM)
    server.wait()
    qr("accounts", "set-limits", "--email", OWNER, "--per-second", "1000000",
       "--batch-per-minute", "1000000", db=db)
    return db, log, key


def status_field(pid, name):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(name + ":"):
                return int(line.split()[1])
    return 0


_visitors = itertools.count(1)


def next_visitor():
    """A new visitor address in 198.18.0.0/15 (the benchmarking range), for X-Forwarded-For."""
    n = next(_visitors)
    return f"198.{18 + (n >> 16) % 2}.{(n >> 8) % 256}.{n % 256}"


class Client:
    """One keep-alive HTTP/1.1 connection; reconnects after a failure. Every redirect it makes
    comes from a new visitor, so each is a scan that counts."""

    def __init__(self, addr, key=None, timeout=30):
        self.addr = addr
        self.key = key
        self.timeout = timeout
        self.conn = None

    def request(self, method, path, body=None, headers=None):
        """Returns (status, headers dict, body bytes); raises OSError/HTTPException on failure."""
        h = {"User-Agent": PHONE}
        if self.key:
            h["X-API-Key"] = self.key
        if body is not None:
            body = json.dumps(body).encode() if not isinstance(body, bytes) else body
            h["Content-Type"] = "application/json"
        if path.startswith("/r/"):
            h["X-Forwarded-For"] = next_visitor()
        h.update(headers or {})
        if self.conn is None:
            self.conn = http.client.HTTPConnection(*self.addr, timeout=self.timeout)
        try:
            self.conn.request(method, path, body=body, headers=h)
            r = self.conn.getresponse()
            data = r.read()
            return r.status, {k.lower(): v for k, v in r.getheaders()}, data
        except BaseException:
            self.conn.close()
            self.conn = None
            raise

    def json(self, method, path, body=None):
        status, headers, data = self.request(method, path, body)
        return status, (json.loads(data) if data else None)


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)
