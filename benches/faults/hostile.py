#!/usr/bin/env python3
"""Hostile inputs: fires a table of malformed, oversized and malicious requests at the release
server and checks that each one gets a clear answer and leaves the server healthy.

Usage: python3 benches/faults/hostile.py   (builds the release binary first; about a minute)

Every case runs with a deadline (10 s unless the case says otherwise), so a hang is a FAIL,
not a stuck script. After every case the server must still answer GET /api/health with 200
and its process must be alive. Prints a Markdown table `| input | what was sent | answer |
verdict |` and exits 1 when any row fails.

Covered: query strings (oversized, bad percent-encoding, repeated parameters, bad sizes,
missing or too long data, NUL bytes); JSON bombs and malformed JSON; invalid UTF-8 in the
path, query and headers; batch item limits and file-name path tricks (the ZIP is opened and
its entry names checked); header floods; logo URLs aimed at private addresses (a local
listener must see no connection); SQL- and HTML-looking link names and targets (stored
verbatim, never echoed unescaped in the 404/410 pages); odd methods, request targets,
versions, pipelining and broken chunked bodies.
"""

import io
import json
import os
import re
import socket
import struct
import sys
import tempfile
import threading
import time
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import quote

import harness

CASE_TIMEOUT = 10.0
HEALTH_PATH = "/api/health"   # docs/api.md and qr-http/src/routes.rs

# Link strings that look like SQL injection and HTML/script injection.
SQL = "'); DROP TABLE links;--"
SCRIPT = "<script>alert(1)</script>"
IMG = '"><img src=x onerror=alert(1)>'


# --------------------------------------------------------------------------------------------
# Raw HTTP over a plain socket
# --------------------------------------------------------------------------------------------

class Raw:
    """The outcome of one raw exchange: parsed responses plus how the connection ended."""

    def __init__(self):
        self.responses = []     # [(status, headers dict, body bytes)]
        self.closed = False     # the server closed (FIN) or reset the connection
        self.reset = False
        self.timed_out = False  # nothing more arrived before the deadline
        self.send_error = None
        self.leftover = b""

    def statuses(self):
        return [r[0] for r in self.responses]

    def describe(self):
        got = self.statuses()
        if len(got) > 6:
            counts = {s: got.count(s) for s in sorted(set(got))}
            parts = [f"{len(got)} answers (" + ", ".join(f"{n} × {s}" for s, n in counts.items()) + ")"]
        else:
            parts = [str(s) for s in got]
        if self.timed_out:
            parts.append("no answer (timeout)")
        elif self.reset:
            parts.append("connection reset")
        elif self.closed:
            parts.append("closed")
        if self.send_error and not self.responses:
            parts.append(f"send failed ({type(self.send_error).__name__})")
        return ", ".join(parts) or "nothing"


def parse_responses(buf, head_only_count=0, eof=False):
    """Parses complete HTTP/1.x responses from `buf`; returns (responses, rest)."""
    out = []
    while True:
        end = buf.find(b"\r\n\r\n")
        if end < 0:
            return out, buf
        head = buf[:end].decode("latin-1").split("\r\n")
        m = re.match(r"HTTP/\d\.\d (\d{3})", head[0])
        if not m:
            return out, buf
        status = int(m.group(1))
        headers = {}
        for line in head[1:]:
            if ":" in line:
                k, v = line.split(":", 1)
                headers[k.strip().lower()] = v.strip()
        rest = buf[end + 4:]
        no_body = (len(out) < head_only_count) or status in (204, 304) or 100 <= status < 200
        if no_body:
            body = b""
        elif "chunked" in headers.get("transfer-encoding", "").lower():
            body, pos = b"", 0
            while True:
                nl = rest.find(b"\r\n", pos)
                if nl < 0:
                    return out, buf
                size = int(rest[pos:nl].split(b";")[0], 16)
                if size == 0:
                    trailer_end = rest.find(b"\r\n", nl + 2)
                    if trailer_end < 0:
                        return out, buf
                    rest = rest[trailer_end + 2:]
                    break
                if len(rest) < nl + 2 + size + 2:
                    return out, buf
                body += rest[nl + 2:nl + 2 + size]
                pos = nl + 2 + size + 2
        elif "content-length" in headers:
            n = int(headers["content-length"])
            if len(rest) < n:
                return out, buf
            body, rest = rest[:n], rest[n:]
        else:
            if not eof:
                return out, buf
            body, rest = rest, b""
        if 100 <= status < 200:
            buf = rest
            continue
        out.append((status, headers, body))
        buf = rest


def raw(addr, data, want=1, timeout=CASE_TIMEOUT, head_only=0, shutdown_write=False,
        pause_after_send=0.0):
    """Sends `data` (bytes, or a list of byte strings sent one after the other) on a new
    connection and reads until `want` responses arrived, the server closed, or `timeout`."""
    r = Raw()
    deadline = time.time() + timeout
    s = socket.create_connection(addr, timeout=timeout)
    try:
        for piece in (data if isinstance(data, list) else [data]):
            try:
                s.sendall(piece)
            except OSError as e:
                r.send_error = e
                break
            if pause_after_send:
                time.sleep(pause_after_send)
        if shutdown_write and r.send_error is None:
            try:
                s.shutdown(socket.SHUT_WR)
            except OSError:
                pass
        buf = b""
        while True:
            left = deadline - time.time()
            if left <= 0:
                r.timed_out = True
                break
            s.settimeout(left)
            try:
                chunk = s.recv(1 << 16)
            except socket.timeout:
                r.timed_out = True
                break
            except ConnectionResetError:
                r.closed = r.reset = True
                break
            except OSError:
                r.closed = True
                break
            if not chunk:
                r.closed = True
                break
            buf += chunk
            r.responses, _ = parse_responses(buf, head_only)
            if len(r.responses) >= want:
                break
        r.responses, r.leftover = parse_responses(buf, head_only, eof=r.closed)
        if r.timed_out and len(r.responses) >= want:
            r.timed_out = False
    finally:
        s.close()
    return r


# --------------------------------------------------------------------------------------------
# A local listener for the logo cases: it must never see a connection
# --------------------------------------------------------------------------------------------

TINY_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082")


class Trap:
    """An http.server on 127.0.0.1 (and [::1] on the same port when possible) that counts
    every accepted connection. /redirect answers 302 to 127.0.0.1, /logo.png a PNG."""

    def __init__(self):
        self.hits = []
        trap = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                if self.path.startswith("/redirect"):
                    self.send_response(302)
                    self.send_header("Location", f"http://127.0.0.1:{trap.port}/logo.png")
                    self.end_headers()
                else:
                    self.send_response(200)
                    self.send_header("Content-Type", "image/png")
                    self.send_header("Content-Length", str(len(TINY_PNG)))
                    self.end_headers()
                    self.wfile.write(TINY_PNG)

            def log_message(self, *args):
                pass

        class Counting(ThreadingHTTPServer):
            daemon_threads = True

            def verify_request(self, request, client_address):
                trap.hits.append(client_address)
                return True

        self.v4 = Counting(("127.0.0.1", 0), Handler)
        self.port = self.v4.server_address[1]
        self.servers = [self.v4]
        try:
            class Counting6(Counting):
                address_family = socket.AF_INET6
            self.servers.append(Counting6(("::1", self.port), Handler))
        except OSError:
            pass
        for srv in self.servers:
            threading.Thread(target=srv.serve_forever, daemon=True).start()

    def close(self):
        for srv in self.servers:
            srv.shutdown()
            srv.server_close()


# --------------------------------------------------------------------------------------------
# The test bench
# --------------------------------------------------------------------------------------------

def err_msg(body):
    try:
        doc = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return None
    if isinstance(doc, dict) and doc.get("error") is True and isinstance(doc.get("message"), str):
        return doc["message"]
    return None


def short(text, n=90):
    text = str(text)
    return text if len(text) <= n else text[:n - 1] + "…"


def answer_of(status, body):
    msg = err_msg(body)
    return f'{status} "{short(msg)}"' if msg is not None else f"{status} ({len(body)} B)"


def png_size(data):
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return struct.unpack(">II", data[16:24])


class Bench:
    def __init__(self):
        harness.build()
        self.work = tempfile.mkdtemp(prefix="qr-hostile-")
        self.db = os.path.join(self.work, "qr.db")
        self.log = os.path.join(self.work, "server.log")
        self.server = harness.Server(self.db, self.log)
        self.addr = self.server.addr
        self.key = self.server.key
        self.pro = harness.qr("keys", "create", "--email", "pro@example.com", "--plan", "pro",
                              db=self.db).strip()
        self.free = harness.qr("keys", "create", "--email", "free@example.com", "--plan", "free",
                               db=self.db).strip()
        # The owner key's per-second rate must not turn the pipelining cases into 429s.
        harness.qr("accounts", "set-limits", "--email", harness.OWNER, "--per-second", "100000", db=self.db)
        self.trap = Trap()
        self.rows = []
        self.failures = 0

    # -- plumbing ------------------------------------------------------------------------------

    def client(self, key=True, timeout=CASE_TIMEOUT):
        k = self.key if key is True else key
        return harness.Client(self.addr, k, timeout=timeout)

    def call(self, method, path, body=None, headers=None, key=True, timeout=CASE_TIMEOUT):
        c = self.client(key, timeout)
        try:
            return c.request(method, path, body, headers)
        finally:
            if c.conn is not None:
                c.conn.close()

    def raw(self, data, **kw):
        return raw(self.addr, data, **kw)

    def req(self, method, target, headers=(), body=b"", version="HTTP/1.1", key=True,
            close=True):
        """Builds raw request bytes; `target` and header values may be bytes."""
        t = target if isinstance(target, bytes) else target.encode()
        lines = [method.encode() + b" " + t + b" " + version.encode()]
        lines.append(b"Host: " + f"{self.addr[0]}:{self.addr[1]}".encode())
        if key:
            lines.append(b"X-API-Key: " + (self.key if key is True else key).encode())
        for h in headers:
            lines.append(h if isinstance(h, bytes) else h.encode())
        if body and not any(b"content-length" in (h if isinstance(h, bytes) else h.encode()).lower()
                            or b"transfer-encoding" in (h if isinstance(h, bytes) else h.encode()).lower()
                            for h in headers):
            lines.append(b"Content-Length: " + str(len(body)).encode())
        if close:
            lines.append(b"Connection: close")
        return b"\r\n".join(lines) + b"\r\n\r\n" + body

    def healthy(self):
        if self.server.proc.poll() is not None:
            return f"server process exited with {self.server.proc.returncode}"
        try:
            status, _, body = self.call("GET", HEALTH_PATH, timeout=CASE_TIMEOUT)
        except Exception as e:  # noqa: BLE001 - any failure is the finding
            return f"health check failed: {type(e).__name__}: {e}"
        if status != 200:
            return f"health answered {answer_of(status, body)}"
        try:
            if json.loads(body).get("status") != "ok":
                return f"health body {body[:100]!r}"
        except ValueError:
            return f"health body is not JSON: {body[:100]!r}"
        return None

    def run(self, name, sent, fn, timeout=CASE_TIMEOUT):
        """Runs one case in a thread with a deadline. `fn` returns (answer, [problems])."""
        result = {}

        def target():
            try:
                result["value"] = fn()
            except Exception as e:  # noqa: BLE001 - reported as the row's failure
                result["error"] = f"{type(e).__name__}: {e}"

        t = threading.Thread(target=target, daemon=True)
        started = time.time()
        t.start()
        t.join(timeout + 5)
        took = time.time() - started
        problems = []
        if t.is_alive():
            answer = f"no answer within {timeout + 5:.0f} s"
            problems.append("hang")
        elif "error" in result:
            answer = "client error"
            problems.append(result["error"])
        else:
            answer, problems = result["value"]
            problems = list(problems)
        health = self.healthy()
        if health:
            problems.append(health)
        verdict = "ok" if not problems else "FAIL: " + "; ".join(problems)
        if problems:
            self.failures += 1
        self.rows.append((name, sent, answer, verdict))
        print(f"[{took:5.1f}s] {name}: {answer} -> {verdict}", file=sys.stderr, flush=True)

    # -- common checks -------------------------------------------------------------------------

    def expect(self, status, body, want_status, want_msg=None, prefix=False):
        problems = []
        ws = want_status if isinstance(want_status, (tuple, list, set)) else (want_status,)
        if status not in ws:
            problems.append(f"expected {'/'.join(map(str, ws))}, got {status}")
        if want_msg is not None:
            msg = err_msg(body)
            ok = msg is not None and (msg.startswith(want_msg) if prefix else msg == want_msg)
            if not ok:
                problems.append(f"expected message {want_msg!r}{'…' if prefix else ''}, got {short(msg or body[:80])!r}")
        return answer_of(status, body), problems

    def api_case(self, name, sent, method, path, body=None, want=400, msg=None, prefix=False,
                 headers=None, key=True, timeout=CASE_TIMEOUT, check=None):
        def fn():
            status, hdrs, data = self.call(method, path, body, headers, key, timeout)
            answer, problems = self.expect(status, data, want, msg, prefix)
            if check:
                extra_answer, extra = check(status, hdrs, data)
                if extra_answer:
                    answer += "; " + extra_answer
                problems += extra
            return answer, problems
        self.run(name, sent, fn, timeout)

    def raw_case(self, name, sent, data, ok_statuses, allow_close=False, want=1, timeout=CASE_TIMEOUT,
                 check=None, **kw):
        """A raw exchange whose first answer must be one of `ok_statuses`; a closed connection
        without an answer is accepted only with `allow_close`. A timeout is always a failure."""
        def fn():
            r = self.raw(data, want=want, timeout=timeout, **kw)
            problems = []
            if r.timed_out:
                problems.append("the server neither answered nor closed the connection")
            elif not r.responses:
                if not allow_close:
                    problems.append("connection closed without an answer")
            else:
                if r.responses[0][0] not in ok_statuses:
                    problems.append(f"expected {'/'.join(map(str, ok_statuses))}, got {r.responses[0][0]}")
                if any(s >= 500 for s in r.statuses()):
                    problems.append("5xx answer")
            answer = r.describe()
            if r.responses and err_msg(r.responses[0][2]):
                answer = f'{answer} "{short(err_msg(r.responses[0][2]), 70)}"'
            if check:
                extra_answer, extra = check(r)
                if extra_answer:
                    answer += "; " + extra_answer
                problems += extra
            return answer, problems
        self.run(name, sent, fn, timeout)

    # -- the cases -----------------------------------------------------------------------------

    def query_cases(self):
        g = "/api/generate?"
        big = "data=" + "A" * (70 * 1024)
        self.raw_case("query over 64 KiB", f"GET /api/generate?data=A×70 KiB (request line {len(big) // 1024} KiB)",
                      self.req("GET", g + big), (414, 431))
        near = "data=" + "A" * (60 * 1024)
        self.raw_case("query just under 64 KiB", "GET /api/generate?data=A×60 KiB (61,440 chars)",
                      self.req("GET", g + near), (400,),
                      check=lambda r: ("", [] if r.responses and (err_msg(r.responses[0][2]) or "").startswith("Data too long: 61440 characters") else ["expected 'Data too long: 61440 characters…'"]))
        self.api_case("bad percent-encoding", "GET /api/generate?data=%zz%4&size=%3", "GET",
                      g + "data=%zz%4&size=%3", want=400, msg="Invalid size")
        self.api_case("bad percent-encoding in data", "GET /api/generate?data=%zz%G1% (kept literally)", "GET",
                      g + "data=%zz%G1%", want=200, check=self.is_png)
        self.api_case("percent-encoded invalid UTF-8", "GET /api/generate?data=%FF%FE%C0%AF", "GET",
                      g + "data=%FF%FE%C0%AF", want=200, check=self.is_png)

        def first_wins(status, hdrs, data):
            size = png_size(data)
            return f"PNG {size}", [] if size == (100, 100) else [f"expected a 100×100 PNG (first size wins), got {size}"]
        self.api_case("repeated parameters", "GET /api/generate?data=a&data=b&size=100&size=99999", "GET",
                      g + "data=a&data=b&size=100&size=99999", want=200, check=first_wins)
        for v in ["1e9", "-1", "abc", "", "100.5", "0x100", "99999999999999999999999", "%20100", "49", "2001", "NaN"]:
            self.api_case(f"size={v or '(empty)'}", f"GET /api/generate?data=x&size={v}", "GET",
                          g + f"data=x&size={v}", want=400, msg="Invalid size")
        self.api_case("format=gif", "GET /api/generate?data=x&format=gif", "GET", g + "data=x&format=gif",
                      want=400, msg="Invalid format")
        self.api_case("margin=-1", "GET /api/generate?data=x&margin=-1", "GET", g + "data=x&margin=-1",
                      want=400, msg="Invalid margin")
        self.api_case("color=zzzzzz", "GET /api/generate?data=x&color=zzzzzz", "GET", g + "data=x&color=zzzzzz",
                      want=400, msg="Invalid color")
        self.api_case("errorCorrection=X", "GET /api/generate?data=x&errorCorrection=X", "GET",
                      g + "data=x&errorCorrection=X", want=400, msg="Invalid errorCorrection")
        self.api_case("missing data", "GET /api/generate?size=300", "GET", g + "size=300",
                      want=400, msg="data parameter required")
        self.api_case("empty data", "GET /api/generate?data=", "GET", g + "data=",
                      want=400, msg="data parameter required")
        self.api_case("data of 2,954 chars", "GET /api/generate?data=a×2954", "GET", g + "data=" + "a" * 2954,
                      want=400, msg="Data too long: 2954 characters, at most 2953 allowed")
        self.api_case("data of 2,954 multibyte chars", "data=é×2954 (5,908 UTF-8 bytes)", "GET",
                      g + "data=" + quote("é" * 2954), want=400,
                      msg="Data too long: 2954 characters, at most 2953 allowed")
        self.api_case("data of 2,953 chars, level M", "GET /api/generate?data=a×2953", "GET",
                      g + "data=" + "a" * 2953, want=400,
                      msg="Data too long for error correction level M: at most 2331 bytes fit")
        self.api_case("data of 2,953 chars, level L", "GET /api/generate?data=a×2953&errorCorrection=L", "GET",
                      g + "data=" + "a" * 2953 + "&errorCorrection=L", want=200, check=self.is_png)
        self.api_case("NUL byte (encoded) in data", "GET /api/generate?data=a%00b", "GET", g + "data=a%00b",
                      want=200, check=self.is_png)
        self.api_case("NUL byte (encoded) in size", "GET /api/generate?data=x&size=300%00", "GET",
                      g + "data=x&size=300%00", want=400, msg="Invalid size")
        self.raw_case("raw NUL byte in query", "GET /api/generate?data=a\\x00b HTTP/1.1",
                      self.req("GET", b"/api/generate?data=a\x00b"), (400,), allow_close=True)
        self.api_case("api_key in query only", "GET /api/generate?data=x&api_key=<owner key> (no header)", "GET",
                      g + "data=x&api_key=" + self.key, key=None, want=200, check=self.is_png)

    @staticmethod
    def is_png(status, hdrs, data):
        if status != 200:
            return "", []
        size = png_size(data)
        return (f"PNG {size[0]}×{size[1]}" if size else "not a PNG"), ([] if size else ["body is not a PNG"])

    def json_cases(self):
        links, batch = "/api/links", "/api/batch"
        deep = b"[" * 100_000 + b"]" * 100_000
        self.api_case("100,000 nested arrays (batch)", "POST /api/batch, [[[…]]] 100,000 levels (200 KB)", "POST",
                      batch, deep, want=400, msg="Invalid JSON body: recursion limit exceeded", prefix=True)
        self.api_case("100,000 nested arrays (links)", "POST /api/links, [[[…]]] 100,000 levels (200 KB > 64 KiB)",
                      "POST", links, deep, want=413, msg="Request body too large: at most 65536 bytes allowed")
        self.api_case("32,000 nested arrays (links)", "POST /api/links, [[[…]]] 32,000 levels (64,000 B)", "POST",
                      links, b"[" * 32_000 + b"]" * 32_000, want=400,
                      msg="Invalid JSON body: recursion limit exceeded", prefix=True)
        obj = b'{"items":' + b'{"a":' * 1_000_000 + b"1" + b"}" * 1_000_001
        self.api_case("1,000,000 nested objects (batch)", 'POST /api/batch, {"items":{"a":{"a":… 1M levels (6 MB)',
                      "POST", batch, obj, want=400, msg="Invalid JSON body: recursion limit exceeded", prefix=True,
                      timeout=20)
        ten = b'{"name":"' + b"x" * (10 * 1024 * 1024) + b'","targetUrl":"https://example.com"}'
        self.api_case("10 MB body to /api/links", "POST /api/links, 10 MiB JSON (limit 64 KiB)", "POST", links, ten,
                      want=413, msg="Request body too large: at most 65536 bytes allowed", timeout=20)
        over = b'{"items":[{"data":"' + b"x" * (9 * 1024 * 1024) + b'"}]}'
        self.api_case("batch body over 8 MiB", "POST /api/batch, 9 MiB JSON (limit 8 MiB)", "POST", batch, over,
                      want=413, msg="Request body too large: at most 8388608 bytes allowed", timeout=20)
        self.raw_case("declared 20 MiB, nothing sent", "POST /api/links, Content-Length: 20971520, 10 bytes of body",
                      self.req("POST", links, ["Content-Length: 20971520", "Content-Type: application/json"],
                               body=b'{"name":"x'),
                      (413,), allow_close=False)
        self.raw_case("Content-Length overflow", "POST /api/links, Content-Length: 99999999999999999999999",
                      self.req("POST", links, ["Content-Length: 99999999999999999999999"], body=b"{}"),
                      (400, 413), allow_close=True)
        self.raw_case("two different Content-Lengths", "POST /api/links, Content-Length: 2 and Content-Length: 40",
                      self.req("POST", links, ["Content-Length: 2", "Content-Length: 40"], body=b"{}"),
                      (400,), allow_close=True)
        self.raw_case("short body, then half-close", "POST /api/links, Content-Length: 100, 20 bytes sent, FIN",
                      self.req("POST", links, ["Content-Length: 100"], body=b'{"name":"x","target'),
                      (400,), allow_close=True, shutdown_write=True)
        wrong = [
            ("name is a number", {"name": 5, "targetUrl": "https://example.com"}, "name must be a string"),
            ("targetUrl is an array", {"name": "x", "targetUrl": ["https://example.com"]}, "targetUrl must be a string"),
            ("name is an object", {"name": {"$ne": None}, "targetUrl": "https://example.com"}, "name must be a string"),
            ("name is true", {"name": True, "targetUrl": "https://example.com"}, "name must be a string"),
            ("missing name", {"targetUrl": "https://example.com"}, "name field required"),
            ("missing targetUrl", {"name": "x"}, "targetUrl field required"),
        ]
        for name, body, msg in wrong:
            self.api_case(f"wrong type: {name}", f"POST /api/links {json.dumps(body)}", "POST", links, body,
                          want=400, msg=msg)
        for text, msg in [(b"[]", "Request body must be a JSON object"),
                          (b'"a string"', "Request body must be a JSON object"),
                          (b"null", "Request body must be a JSON object"),
                          (b"", "Invalid JSON body: EOF while parsing"),
                          (b"\xef\xbb\xbf{}", "Invalid JSON body:"),
                          (b'{"name":"x","targetUrl":"https://example.com"} trailing', "Invalid JSON body: trailing characters"),
                          (b'{"name":"x","targetUrl":"https://example.com"}{}', "Invalid JSON body: trailing characters"),
                          (b'{"name":"x",}', "Invalid JSON body:"),
                          (b"{'name':'x'}", "Invalid JSON body:"),
                          (b'{"name":NaN}', "Invalid JSON body:"),
                          (b'{"name":"\xff\xfe","targetUrl":"https://example.com"}', "Invalid JSON body:"),
                          (b'{"name":"\xed\xa0\x80","targetUrl":"https://example.com"}', "Invalid JSON body:"),
                          (b'{"name":"\\ud800","targetUrl":"https://example.com"}', "Invalid JSON body:"),
                          (b'{"name":"a\\u0000b","targetUrl":"https://example.com"}', "Invalid name:")]:
            shown = short(repr(text)[2:-1], 60)
            self.api_case(f"malformed JSON: {short(shown, 36)}", f"POST /api/links {shown}", "POST", links, text,
                          want=400, msg=msg, prefix=True)

        def dup_check(status, hdrs, data):
            if status != 201:
                return "", []
            stored = json.loads(data)["name"]
            return f"stored name {stored!r}", [] if stored in ("first", "second") else [f"stored {stored!r}"]
        self.api_case("duplicate keys", 'POST /api/links {"name":"first","name":"second","targetUrl":…}', "POST",
                      links, b'{"name":"first","name":"second","targetUrl":"https://example.com/dup"}',
                      want=(201, 400), check=dup_check)
        for body, msg in [(b"{}", "items array required"), (b'{"items":"x"}', "items array required"),
                          (b'{"items":{}}', "items array required"), (b"[]", "Request body must be a JSON object with an items array"),
                          (b'{"items":[{"data":"x"}],"defaults":{"size":1e9}}', "Invalid defaults.size"),
                          (b'{"items":[{"data":"x"}],"defaults":[]}', "Invalid defaults: it must be an object")]:
            self.api_case(f"batch: {short(body.decode(), 40)}", f"POST /api/batch {body.decode()}", "POST", batch, body,
                          want=400, msg=msg)

        def errors_json(status, hdrs, data):
            if status != 200:
                return "", []
            z = zipfile.ZipFile(io.BytesIO(data))
            names = z.namelist()
            errs = json.loads(z.read("errors.json"))["errors"] if "errors.json" in names else []
            got = sorted(e["index"] for e in errs)
            # A number as data is accepted as text (docs/api.md: strings or numbers).
            want = [0, 1, 2, 4]
            return f"zip {names}, failed items {got}", [] if got == want else [f"expected items {want} to fail, got {got}"]
        self.api_case("batch items of wrong types", 'POST /api/batch {"items":[5,null,"x",{"data":7},{"data":"x","size":[1]},{"data":"ok"}]}',
                      "POST", batch, {"items": [5, None, "x", {"data": 7}, {"data": "x", "size": [1]}, {"data": "ok"}]},
                      want=200, check=errors_json)

    def utf8_cases(self):
        self.raw_case("invalid UTF-8 in path", "GET /api/he\\xffalth HTTP/1.1",
                      self.req("GET", b"/api/he\xffalth"), (400, 404), allow_close=True)
        self.raw_case("invalid UTF-8 in /r/ code", "GET /r/\\xff\\xfe\\xc0\\xaf HTTP/1.1",
                      self.req("GET", b"/r/\xff\xfe\xc0\xaf", key=False), (400, 404), allow_close=True)
        self.raw_case("invalid UTF-8 in query", "GET /api/generate?data=\\xff\\xfe HTTP/1.1",
                      self.req("GET", b"/api/generate?data=\xff\xfe"), (400,), allow_close=True)
        self.raw_case("control byte in path", "GET /api/health\\x01 HTTP/1.1",
                      self.req("GET", b"/api/health\x01"), (400,), allow_close=True)
        self.raw_case("invalid UTF-8 in X-API-Key", "GET /api/health, X-API-Key: \\xff\\xfe…",
                      self.req("GET", HEALTH_PATH, [b"X-API-Key: qrapi_live_\xff\xfe\xfd"], key=False), (401,),
                      check=self.msg_is("Invalid API key"))
        self.raw_case("invalid UTF-8 in Authorization", "GET /api/health, Authorization: Bearer \\xff\\xfe",
                      self.req("GET", HEALTH_PATH, [b"Authorization: Bearer \xff\xfe"], key=False), (401,),
                      check=self.msg_is("Invalid API key"))
        self.raw_case("invalid UTF-8 in User-Agent", "GET /api/health with key, User-Agent: \\xff\\xfe",
                      self.req("GET", HEALTH_PATH, [b"User-Agent: Mozilla \xff\xfe"]), (200,))
        self.raw_case("invalid UTF-8 in Origin", "GET /api/health with key, Origin: https://\\xff.example",
                      self.req("GET", HEALTH_PATH, [b"Origin: https://\xff.example"]), (200,))
        self.raw_case("invalid UTF-8 in header name", "GET /api/health, header name X-\\xff: 1",
                      self.req("GET", HEALTH_PATH, [b"X-\xff: 1"]), (400,), allow_close=True)
        self.raw_case("NUL in header value", "GET /api/health, X-Test: a\\x00b",
                      self.req("GET", HEALTH_PATH, [b"X-Test: a\x00b"]), (400,), allow_close=True)
        self.raw_case("bare LF line endings", "GET /api/health with \\n instead of \\r\\n",
                      self.req("GET", HEALTH_PATH).replace(b"\r\n", b"\n"), (200, 400), allow_close=True)

    def msg_is(self, want):
        def check(r):
            got = err_msg(r.responses[0][2]) if r.responses else None
            return "", [] if got == want else [f"expected message {want!r}, got {got!r}"]
        return check

    def batch_cases(self):
        # About 6.5 MB, under the 8 MiB body limit: the item count must be refused, not the size.
        item = {"data": "x" * 600, "size": 2000, "errorCorrection": "H"}
        huge = {"items": [item] * 10_000}

        for label, key, msg in [("enterprise", True, "Maximum 1000 items allowed"),
                                ("pro", self.pro, "Maximum 100 items allowed")]:
            def fn(key=key, msg=msg):
                started = time.time()
                status, hdrs, data = self.call("POST", "/api/batch", huge, key=key)
                took = time.time() - started
                answer, problems = self.expect(status, data, 400, msg)
                if took > 2.0:
                    problems.append(f"took {took:.1f} s (rendering before the item check?)")
                return f"{answer} in {took * 1000:.0f} ms", problems
            self.run(f"batch of 10,000 items ({label})",
                     f"POST /api/batch, 10,000 items of 600 chars at size 2000/H (6.5 MB), {label} key", fn)
        self.api_case("batch on the free plan", "POST /api/batch with a free key", "POST", "/api/batch",
                      {"items": [{"data": "x"}]}, key=self.free, want=403, msg="Batch generation requires Pro plan")

        tricks = ["../../etc/passwd", "/abs", "/etc/cron.d/x", "C:\\x", "C:x", "a/../../b", "..\\..\\win.ini",
                  "a\x00b", "\x00", "x" * 5000, "dup", "dup", "DUP", "dup.png", "dup-2", "...", ". .", " ",
                  "", "CON", "..", "a/./b", "\u2025\u2025/x", "\uff0e\uff0e/x", "name\r\nX: y", "%2e%2e%2fx",
                  "a" * 100 + "/../x", "emoji😀/../..", "\\\\server\\share\\x", "file:../x", "a..b", "x.svg"]
        items = [{"data": f"item {i}", "filename": n} for i, n in enumerate(tricks)]
        items.append({"data": "no name"})
        items.append({"data": "svg", "filename": "../x", "format": "svg"})
        body = {"items": items}

        def check_zip(status, hdrs, data):
            if status != 200:
                return "", []
            problems = []
            try:
                z = zipfile.ZipFile(io.BytesIO(data))
                names = z.namelist()
                bad_crc = z.testzip()
            except zipfile.BadZipFile as e:
                return "", [f"not a ZIP: {e}"]
            if bad_crc:
                problems.append(f"CRC error in {bad_crc!r}")
            for n in names:
                why = []
                if n.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", n):
                    why.append("absolute")
                if ".." in n:
                    why.append("contains ..")
                if any(c in n for c in "/\\:*?\"<>|") or any(ord(c) < 32 or ord(c) == 127 for c in n):
                    why.append("separator, reserved or control character")
                if len(n) > 110:
                    why.append(f"{len(n)} characters")
                if why:
                    problems.append(f"entry {short(repr(n), 60)}: {', '.join(why)}")
            lower = [n.lower() for n in names]
            dups = sorted({n for n in lower if lower.count(n) > 1})
            if dups:
                problems.append(f"duplicate entries {dups}")
            images = [n for n in names if n != "errors.json"]
            if len(images) != len(items):
                problems.append(f"{len(images)} images for {len(items)} items")
            if "errors.json" in names:
                problems.append(f"errors.json present: {short(z.read('errors.json').decode(), 120)}")
            self.zip_names = names
            return f"{len(names)} entries, e.g. {short(', '.join(names[:4]), 80)}", problems

        self.api_case("batch file names with path tricks",
                      f"POST /api/batch, {len(items)} items named ../../etc/passwd, /abs, C:\\x, a/../../b, a\\0b, "
                      "5,000 chars, dup/dup/DUP, CON, \u2025\u2025/x …", "POST", "/api/batch", body,
                      want=200, check=check_zip, timeout=30)

    def flood_cases(self):
        flood = [f"X-Flood-{i}: {i}" for i in range(10_000)]
        self.raw_case("10,000 headers", "GET /api/health with 10,000 header lines (~170 KB)",
                      self.req("GET", HEALTH_PATH, flood), (431,), allow_close=True)
        self.raw_case("101 headers", "GET /api/health with 101 extra header lines",
                      self.req("GET", HEALTH_PATH, flood[:101]), (431,), allow_close=True)
        self.raw_case("one 1 MiB header", "GET /api/health, X-Big: a×1 MiB",
                      self.req("GET", HEALTH_PATH, ["X-Big: " + "a" * (1 << 20)]), (431,), allow_close=True)
        self.raw_case("1 MiB request line", "GET /api/generate?data=a×1 MiB",
                      self.req("GET", "/api/generate?data=" + "a" * (1 << 20)), (414, 431), allow_close=True)
        self.raw_case("1 MiB method", "a×1 MiB as the method, then /api/health",
                      self.req("A" * (1 << 20), HEALTH_PATH), (400, 405, 414, 431), allow_close=True)
        self.raw_case("endless header, no CRLF", "GET /api/health + X-A: a×200 KiB, never terminated, FIN",
                      self.req("GET", HEALTH_PATH)[:-4] + b"\r\nX-A: " + b"a" * (200 << 10),
                      (431,), allow_close=True, shutdown_write=True)
        self.raw_case("slow headers (slowloris)", "half a request head, then silence for 12 s (limit 10 s)",
                      b"GET /api/health HTTP/1.1\r\nHost: x\r\nX-Slow: 1\r\n", (408,), allow_close=True,
                      timeout=16)

    def logo_cases(self):
        p = self.trap.port
        urls = [
            ("127.0.0.1", f"http://127.0.0.1:{p}/logo.png", "Logo host not allowed: 127.0.0.1 is not a public address"),
            ("10.0.0.1", "http://10.0.0.1/logo.png", "Logo host not allowed: 10.0.0.1 is not a public address"),
            ("169.254.169.254", "http://169.254.169.254/latest/meta-data/", "Logo host not allowed: 169.254.169.254 is not a public address"),
            ("[::1]", f"http://[::1]:{p}/logo.png", "Logo host not allowed: "),
            ("localhost", f"http://localhost:{p}/logo.png", "Logo host not allowed: localhost is not a public address"),
            ("LOCALHOST.", f"http://LOCALHOST.:{p}/logo.png", "Logo host "),
            ("0.0.0.0", f"http://0.0.0.0:{p}/logo.png", "Logo host not allowed: 0.0.0.0 is not a public address"),
            ("decimal 2130706433", f"http://2130706433:{p}/logo.png", "Logo host not allowed: 127.0.0.1 is not a public address"),
            ("hex 0x7f.1", f"http://0x7f.1:{p}/logo.png", "Logo host not allowed: 127.0.0.1 is not a public address"),
            ("octal 0177.0.0.1", f"http://0177.0.0.1:{p}/logo.png", "Logo host not allowed: 127.0.0.1 is not a public address"),
            ("[::ffff:127.0.0.1]", f"http://[::ffff:127.0.0.1]:{p}/logo.png", "Logo host not allowed: "),
            ("[::127.0.0.1]", f"http://[::127.0.0.1]:{p}/logo.png", "Logo host not allowed: "),
            ("[64:ff9b::7f00:1]", f"http://[64:ff9b::7f00:1]:{p}/logo.png", "Logo host not allowed: "),
            ("[fe80::1]", "http://[fe80::1]/logo.png", "Logo host not allowed: "),
            ("100.64.0.1", "http://100.64.0.1/logo.png", "Logo host not allowed: 100.64.0.1 is not a public address"),
            ("https 127.0.0.1", f"https://127.0.0.1:{p}/logo.png", "Logo host not allowed: 127.0.0.1 is not a public address"),
            ("credentials", f"http://user:pw@127.0.0.1:{p}/logo.png", "Logo host not allowed: 127.0.0.1 is not a public address"),
            ("local redirector", f"http://127.0.0.1:{p}/redirect", "Logo host not allowed: 127.0.0.1 is not a public address"),
            ("public name → 127.0.0.1", f"http://127.0.0.1.nip.io:{p}/redirect", "Logo host "),
            ("public host in redirect chain", f"http://httpbin.org/redirect-to?url=http%3A%2F%2F127.0.0.1%3A{p}%2Fredirect",
             "Logo host "),
            ("file://", "file:///etc/passwd", "Invalid logo URL: only http and https are allowed"),
            ("gopher://", f"gopher://127.0.0.1:{p}/_GET", "Invalid logo URL: only http and https are allowed"),
            ("empty authority", "http:///logo.png", "Logo host could not be resolved: logo.png"),
            ("no host", "http://", "Invalid logo URL"),
            ("port only", f"http://:{p}/logo.png", "Invalid logo URL"),
            ("not a URL", "not a url", "Invalid logo URL"),
        ]
        for label, url, msg in urls:
            def fn(url=url, msg=msg):
                before = len(self.trap.hits)
                status, hdrs, data = self.call("GET", "/api/generate?data=x&logo=" + quote(url, safe=""))
                answer, problems = self.expect(status, data, 400, msg, prefix=True)
                time.sleep(0.05)
                if len(self.trap.hits) != before:
                    problems.append(f"the local listener got {len(self.trap.hits) - before} connection(s)")
                return answer, problems
            self.run(f"logo {label}", f"GET /api/generate?data=x&logo={url}", fn)
        self.api_case("logo on the free plan", f"GET /api/generate?data=x&logo=http://127.0.0.1:{p}/logo.png, free key",
                      "GET", "/api/generate?data=x&logo=" + quote(f"http://127.0.0.1:{p}/logo.png", safe=""),
                      key=self.free, want=403, msg="API key not authorized for this endpoint")
        self.api_case("logo with a bad parameter", "logo=http://127.0.0.1:PORT/logo.png&size=1e9 (no fetch)",
                      "GET", "/api/generate?data=x&size=1e9&logo=" + quote(f"http://127.0.0.1:{p}/logo.png", safe=""),
                      want=400, msg="Invalid size")

    def injection_cases(self):
        cases = [
            (SQL, "https://example.com/search?q=');DROP TABLE links;--",
             "https://example.com/search?q=%27);DROP%20TABLE%20links;--"),
            (SCRIPT, "https://example.com/<script>alert(1)</script>",
             "https://example.com/%3Cscript%3Ealert(1)%3C/script%3E"),
            (IMG, 'https://example.com/"><img src=x onerror=alert(1)>',
             "https://example.com/%22%3E%3Cimg%20src=x%20onerror=alert(1)%3E"),
            ("Robert'); DROP TABLE accounts;-- \u202e\u00e9\U0001F600", "https://example.com/a?b=1' OR '1'='1",
             "https://example.com/a?b=1%27%20OR%20%271%27=%271"),
        ]
        created = []
        for name, target, normalised in cases:
            def fn(name=name, target=target, normalised=normalised):
                status, hdrs, data = self.call("POST", "/api/links", {"name": name, "targetUrl": target})
                answer, problems = self.expect(status, data, 201)
                if status != 201:
                    return answer, problems
                link = json.loads(data)
                created.append((link, name, normalised))
                if link["name"] != name:
                    problems.append(f"name stored as {link['name']!r}")
                if link["targetUrl"] != normalised:
                    problems.append(f"targetUrl {link['targetUrl']!r}, expected the WHATWG form {normalised!r}")
                s2, _, d2 = self.call("GET", "/api/links")
                listed = {l["id"]: l for l in json.loads(d2)["links"]} if s2 == 200 else {}
                got = listed.get(link["id"])
                if got is None:
                    problems.append(f"GET /api/links answered {s2} without the link")
                elif got["name"] != name or got["targetUrl"] != link["targetUrl"]:
                    problems.append(f"GET /api/links returns {got['name']!r} / {got['targetUrl']!r}")
                s3, h3, _ = self.call("GET", f"/r/{link['shortCode']}", key=None,
                                      headers={"User-Agent": harness.PHONE})
                if s3 != 302 or h3.get("location") != link["targetUrl"]:
                    problems.append(f"redirect answered {s3} to {h3.get('location')!r}")
                return f"{answer}; name verbatim, target {short(link['targetUrl'], 60)}; 302 to it", problems
            self.run(f"link name {short(name, 28)}", f"POST /api/links name={name!r} targetUrl={target!r}", fn)
        self.api_case("targetUrl javascript:", "POST /api/links targetUrl=javascript:alert(1)", "POST", "/api/links",
                      {"name": "js", "targetUrl": "javascript:alert(1)"}, want=400, msg="Invalid targetUrl: ", prefix=True)
        self.api_case("targetUrl data:", "POST /api/links targetUrl=data:text/html,<script>…", "POST", "/api/links",
                      {"name": "d", "targetUrl": "data:text/html,<script>alert(1)</script>"}, want=400,
                      msg="Invalid targetUrl: ", prefix=True)
        self.api_case("name of 201 chars", "POST /api/links name=x×201", "POST", "/api/links",
                      {"name": "x" * 201, "targetUrl": "https://example.com"}, want=400, msg="Invalid name: ", prefix=True)
        self.api_case("id with SQL", "GET /api/links?id=' OR '1'='1", "GET", "/api/links?id=" + quote("' OR '1'='1"),
                      want=404, msg="Link not found")
        self.api_case("linkId with SQL", "GET /api/analytics?linkId=1' OR 1=1--", "GET",
                      "/api/analytics?linkId=" + quote("1' OR 1=1--"), want=404, msg="Link not found")
        self.api_case("DELETE id with SQL", "DELETE /api/links?id=%' OR 1=1--", "DELETE",
                      "/api/links?id=" + quote("%' OR 1=1--"), want=404, msg="Link not found")

        def table_intact(status, hdrs, data):
            if status != 200:
                return "", []
            n = len(json.loads(data)["links"])
            return f"{n} links listed", [] if n >= len(created) else ["links missing"]
        self.api_case("links table still there", "GET /api/links after the SQL-looking strings", "GET", "/api/links",
                      want=200, check=table_intact)

        def page_check(want_status, needles):
            def check(r):
                if not r.responses:
                    return "", []
                status, h, body = r.responses[0]
                text = body.decode("utf-8", "replace")
                found = [n for n in needles if n in text]
                problems = [f"body contains {short(n, 40)!r} unescaped" for n in found]
                if status == want_status and "text/html" not in h.get("content-type", ""):
                    problems.append(f"content-type {h.get('content-type')}")
                return (f"{h['content-type']}, {len(body)} B" if body else "empty body"), problems
            return check

        # Strings the pages' own markup never contains.
        danger = [SCRIPT, IMG, "<script", "<img", "onerror=alert(1)>", "alert(1)</"]
        self.raw_case("/r/ with raw <script>", "GET /r/<script>alert(1)</script>",
                      self.req("GET", "/r/<script>alert(1)</script>", key=False), (400, 404), allow_close=True,
                      check=page_check(404, danger))
        self.raw_case("/r/ with raw <script> (no /)", "GET /r/<script>alert(1)<script>",
                      self.req("GET", "/r/<script>alert(1)<script>", key=False), (400, 404), allow_close=True,
                      check=page_check(404, danger))
        self.raw_case("/r/ with raw img tag", 'GET /r/"><img%20src=x%20onerror=alert(1)>',
                      self.req("GET", '/r/"><img%20src=x%20onerror=alert(1)>', key=False), (400, 404),
                      allow_close=True, check=page_check(404, danger))
        self.raw_case("/r/ with encoded <script>", "GET /r/%3Cscript%3Ealert(1)%3C%2Fscript%3E",
                      self.req("GET", "/r/%3Cscript%3Ealert(1)%3C%2Fscript%3E", key=False), (404,),
                      check=page_check(404, danger))
        self.raw_case("/r/ with raw quote and apostrophe", "GET /r/'\"x (no tags)",
                      self.req("GET", "/r/'\"x'", key=False), (400, 404), allow_close=True,
                      check=page_check(404, ["'\"x'"]))

        # A deleted link's code: the 410 page must not show the link's name or target.
        def gone():
            status, _, data = self.call("POST", "/api/links", {"name": SCRIPT + IMG, "targetUrl": "https://example.com/<script>"})
            if status != 201:
                return answer_of(status, data), ["could not create the link"]
            link = json.loads(data)
            s2, _, d2 = self.call("DELETE", f"/api/links?id={link['id']}")
            if s2 != 204:
                return answer_of(s2, d2), ["delete failed"]
            code = link["shortCode"]
            problems, answers = [], []
            for target in [f"/r/{code}", f"/r/{code}?x=%3Cscript%3Ealert(1)%3C/script%3E%22%3E%3Cimg", f"/r/{code.lower()}"]:
                r = self.raw(self.req("GET", target, key=False))
                if not r.responses:
                    problems.append(f"{target}: {r.describe()}")
                    continue
                st, h, body = r.responses[0]
                answers.append(str(st))
                text = body.decode("utf-8", "replace")
                if st != 410:
                    problems.append(f"{target} answered {st}")
                for n in danger + ["https://example.com"]:
                    if n in text:
                        problems.append(f"{target}: page contains {n!r}")
                if "text/html" not in h.get("content-type", ""):
                    problems.append(f"{target}: content-type {h.get('content-type')}")
            return f"{'/'.join(answers)} HTML pages, code shown escaped", problems
        self.run("410 page of a deleted HTML-named link",
                 "create name=<script>…<img …> then DELETE; GET /r/CODE, /r/CODE?x=%3Cscript%3E…%22%3E%3Cimg, /r/code", gone)

    def protocol_cases(self):
        self.raw_case("unknown method FOO", "FOO /api/health HTTP/1.1", self.req("FOO", HEALTH_PATH), (405,),
                      check=lambda r: (f"Allow: {r.responses[0][1].get('allow')}", [] if r.responses and r.responses[0][1].get("allow") else ["no Allow header"]))
        self.raw_case("TRACE", "TRACE /api/health HTTP/1.1", self.req("TRACE", HEALTH_PATH), (405,))
        self.raw_case("PATCH /api/links", "PATCH /api/links HTTP/1.1 {}", self.req("PATCH", "/api/links", body=b"{}"),
                      (405,))
        self.raw_case("CONNECT", "CONNECT 127.0.0.1:22 HTTP/1.1", self.req("CONNECT", "127.0.0.1:22"),
                      (400, 404, 405), allow_close=True)
        self.raw_case("method with bad chars", "G(E)T /api/health HTTP/1.1", self.req("G(E)T", HEALTH_PATH),
                      (400,), allow_close=True)
        self.raw_case("lower-case get", "get /api/health HTTP/1.1", self.req("get", HEALTH_PATH), (405,),
                      allow_close=False)
        self.raw_case("absolute-form target", "GET http://evil.example/api/health HTTP/1.1",
                      self.req("GET", "http://evil.example/api/health"), (200,))
        self.raw_case("absolute-form to another port", "GET http://169.254.169.254/latest/meta-data HTTP/1.1",
                      self.req("GET", "http://169.254.169.254/latest/meta-data"), (404,))
        self.raw_case("asterisk-form", "OPTIONS * HTTP/1.1", self.req("OPTIONS", "*"), (400, 404), allow_close=True)
        self.raw_case("authority-form GET", "GET example.com:80 HTTP/1.1", self.req("GET", "example.com:80"),
                      (400, 404), allow_close=True)
        self.raw_case("empty target", "GET  HTTP/1.1", self.req("GET", ""), (400,), allow_close=True)
        self.raw_case("path traversal", "GET /api/../api/health HTTP/1.1", self.req("GET", "/api/../api/health"),
                      (404,))
        # want=2: read on until the server closes; HTTP/1.0 without keep-alive must be closed.
        self.raw_case("HTTP/1.0 without Host", "GET /api/health HTTP/1.0, no Host, key",
                      b"GET /api/health HTTP/1.0\r\nX-API-Key: " + self.key.encode() + b"\r\n\r\n", (200,),
                      want=2, timeout=5)
        self.raw_case("HTTP/1.1 without Host", "GET /api/health HTTP/1.1, no Host, key",
                      b"GET /api/health HTTP/1.1\r\nX-API-Key: " + self.key.encode() + b"\r\nConnection: close\r\n\r\n",
                      (200, 400), allow_close=True)
        self.raw_case("HTTP/0.9 request", "GET /api/health (no version)", b"GET /api/health\r\n\r\n", (400, 505),
                      allow_close=True)
        self.raw_case("HTTP/2.0 in request line", "GET /api/health HTTP/2.0",
                      self.req("GET", HEALTH_PATH, version="HTTP/2.0"), (400, 505), allow_close=True)
        self.raw_case("HTTP/9.9", "GET /api/health HTTP/9.9", self.req("GET", HEALTH_PATH, version="HTTP/9.9"),
                      (400, 505), allow_close=True)
        self.raw_case("garbage bytes", "16 KiB of random bytes", os.urandom(16 << 10), (400,), allow_close=True)
        self.raw_case("TLS ClientHello", "a TLS 1.2 ClientHello on the plain port",
                      bytes.fromhex("16030100310100002d0303") + b"\x00" * 32 + bytes.fromhex("000002002f01000002ff01"),
                      (400,), allow_close=True)
        self.raw_case("h2 preface only", "the HTTP/2 preface, then FIN", b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
                      (400,), allow_close=True, shutdown_write=True)

        g = self.req("GET", "/api/generate?data=pipe", close=False)
        h = self.req("GET", HEALTH_PATH, close=False)
        n = self.req("GET", "/api/nope", close=False)
        last = self.req("GET", "/api/dashboard?action=usage", close=True)

        def order(want):
            def check(r):
                got = r.statuses()
                return "", [] if got == want else [f"expected {want}, got {got}"]
            return check
        self.raw_case("pipelined requests", "generate, health, unknown path, usage in one write",
                      g + h + n + last, (200,), want=4, check=order([200, 200, 404, 200]))
        many = h * 300 + last
        self.raw_case("300 pipelined requests", "300 × GET /api/health + usage in one write (owner key)", many, (200,),
                      want=301, check=lambda r: ("", [] if r.statuses() == [200] * 301 else [f"got {len(r.statuses())} answers: {sorted(set(r.statuses()))}"]))
        hp = self.req("GET", HEALTH_PATH, key=self.pro, close=False)

        def limited(r):
            got = r.statuses()
            ok = len(got) == 301 and set(got) == {200, 429} and got[0] == 200
            return "", [] if ok else [f"got {len(got)} answers: {sorted(set(got))}"]
        self.raw_case("300 pipelined requests, Pro key", "300 × GET /api/health + usage in one write (Pro: 50/s)",
                      hp * 300 + self.req("GET", HEALTH_PATH, key=self.pro), (200,), want=301, check=limited)
        bad_mid = h + b"BAD\x01 / HTTP/1.1\r\n\r\n" + h
        self.raw_case("pipelined, bad one in the middle", "health, a malformed request line, health",
                      bad_mid, (200,), want=3, allow_close=True,
                      check=lambda r: ("", [] if r.statuses()[:1] == [200] and 200 not in r.statuses()[2:] and (r.closed or 400 in r.statuses()) else [f"got {r.statuses()}"]))
        body = json.dumps({"name": "pipe", "targetUrl": "https://example.com/pipe"}).encode()
        post = self.req("POST", "/api/links", ["Content-Type: application/json"], body=body, close=False)
        self.raw_case("pipelined POST then GET", "POST /api/links then GET /api/links?id=nope in one write",
                      post + self.req("GET", "/api/links?id=nope"), (201,), want=2, check=order([201, 404]))
        head = self.req("HEAD", "/r/AAAAAAAA", key=False, close=False)
        self.raw_case("pipelined HEAD then GET", "HEAD /r/AAAAAAAA then GET /api/health",
                      head + self.req("GET", HEALTH_PATH), (404,), want=2, head_only=1, check=order([404, 200]))
        self.raw_case("Expect: 100-continue", "POST /api/links with Expect: 100-continue, body sent after 0.5 s",
                      [self.req("POST", "/api/links", ["Expect: 100-continue", f"Content-Length: {len(body)}"]), body],
                      (201,), pause_after_send=0.5)

    def chunked_cases(self):
        te = ["Transfer-Encoding: chunked", "Content-Type: application/json"]
        links = "/api/links"
        self.raw_case("chunked: bad chunk size", "POST /api/links, chunk size 'zz'",
                      self.req("POST", links, te, body=b"zz\r\n{}\r\n0\r\n\r\n"), (400,), allow_close=True)
        self.raw_case("chunked: size overflow", "POST /api/links, chunk size ffffffffffffffffffff",
                      self.req("POST", links, te, body=b"ffffffffffffffffffff\r\n{}\r\n0\r\n\r\n"), (400, 413),
                      allow_close=True)
        self.raw_case("chunked: negative size", "POST /api/links, chunk size -1",
                      self.req("POST", links, te, body=b"-1\r\n{}\r\n0\r\n\r\n"), (400,), allow_close=True)
        self.raw_case("chunked: missing CRLF", "POST /api/links, 2-byte chunk followed by XX instead of CRLF",
                      self.req("POST", links, te, body=b"2\r\n{}XX0\r\n\r\n"), (400,), allow_close=True)
        self.raw_case("chunked: truncated + FIN", "POST /api/links, chunk of 100 declared, 10 sent, FIN",
                      self.req("POST", links, te, body=b"64\r\n{\"name\":\"x"), (400,), allow_close=True,
                      shutdown_write=True)
        self.raw_case("chunked: never ends", "POST /api/links, one 2-byte chunk, then silence (body limit 30 s)",
                      self.req("POST", links, te, body=b"2\r\n{}\r\n"), (408,), timeout=40,
                      check=self.msg_is("Request body not received in time"))
        self.raw_case("chunked: 10 MiB in chunks", "POST /api/links, 10 MiB in 1 MiB chunks",
                      self.req("POST", links, te, body=b"".join(b"100000\r\n" + b"a" * (1 << 20) + b"\r\n" for _ in range(10)) + b"0\r\n\r\n"),
                      (413,), timeout=20)
        self.raw_case("chunked: extension + trailer", "POST /api/links, chunk extensions and a trailer field",
                      self.req("POST", links, te, body=b'2;foo=bar\r\n{}\r\n0\r\nX-Trailer: 1\r\n\r\n'), (400,),
                      check=self.msg_is("name field required"))
        self.raw_case("CL + TE (smuggling shape)", "POST /api/links with Content-Length: 4 and chunked, "
                      "body 0\\r\\n\\r\\nGET /api/nope …",
                      self.req("POST", links, ["Content-Length: 4", "Transfer-Encoding: chunked"],
                               body=b"0\r\n\r\nGET /api/nope HTTP/1.1\r\nHost: x\r\n\r\n"),
                      (400,), want=2, allow_close=True,
                      check=lambda r: ("", [] if all(s in (400, 404) for s in r.statuses()) else [f"statuses {r.statuses()}"]))
        self.raw_case("TE: gzip, chunked", "POST /api/links, Transfer-Encoding: gzip, chunked",
                      self.req("POST", links, ["Transfer-Encoding: gzip, chunked"], body=b"2\r\n{}\r\n0\r\n\r\n"),
                      (400, 415, 501), allow_close=True)
        self.raw_case("TE: identity", "POST /api/links, Transfer-Encoding: identity with a body",
                      self.req("POST", links, ["Transfer-Encoding: identity", "Content-Length: 2"], body=b"{}"),
                      (400, 501), allow_close=True)

    def finish(self):
        problems = []
        if self.trap.hits:
            problems.append(f"the local logo listener saw {len(self.trap.hits)} connection(s) in total")
        self.trap.close()
        self.server.kill(15)
        try:
            code = self.server.wait(20)
        except Exception:  # noqa: BLE001
            self.server.kill()
            code = "killed after 20 s"
        if code != 0:
            problems.append(f"SIGTERM shutdown exited with {code}")
        answer = f"listener connections {len(self.trap.hits)}, exit {code}"
        verdict = "ok" if not problems else "FAIL: " + "; ".join(problems)
        if problems:
            self.failures += 1
        self.rows.append(("end of run", "all logo cases; then SIGTERM", answer, verdict))


def cell(text):
    text = str(text).replace("|", "\\|").replace("\r", "\\r").replace("\n", "\\n")
    text = "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text)
    return short(text, 160)


def main():
    bench = Bench()
    print(f"server {bench.addr[0]}:{bench.addr[1]} pid {bench.server.pid}, work dir {bench.work}",
          file=sys.stderr)
    try:
        bench.query_cases()
        bench.json_cases()
        bench.utf8_cases()
        bench.batch_cases()
        bench.flood_cases()
        bench.logo_cases()
        bench.injection_cases()
        bench.protocol_cases()
        bench.chunked_cases()
    finally:
        bench.finish()
    print("| input | what was sent | answer | verdict |")
    print("|---|---|---|---|")
    for row in bench.rows:
        print("| " + " | ".join(cell(c) for c in row) + " |")
    total = len(bench.rows)
    print(f"\n{total - bench.failures} of {total} rows ok, {bench.failures} failed. Server log: {bench.log}")
    sys.exit(1 if bench.failures else 0)


if __name__ == "__main__":
    main()
