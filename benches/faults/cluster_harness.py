"""The several-server setup of the cluster load and fault scripts: a throwaway PostgreSQL
cluster, a Redis server, `qr serve` processes on them and HAProxy in front (with the example
configuration `docs/deploy/haproxy.cfg`). Standard library only; PostgreSQL, Redis and HAProxy
are Debian's packages (`apt-get install postgresql redis-server haproxy`)."""

import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time

import harness

HAPROXY_CFG = os.path.join(harness.ROOT, "docs", "deploy", "haproxy.cfg")
CLK_TCK = os.sysconf("SC_CLK_TCK")


def need(program, package):
    """Exits with a clear message when `program` is missing."""
    if shutil.which(program) is None and not glob.glob(f"/usr/lib/postgresql/*/bin/{program}"):
        harness.fail(f"{program} is needed: apt-get install {package}")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid):
    """User plus system CPU time of a process, in seconds (0 when it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return 0.0


def children(pid):
    """The ids of the processes whose parent is `pid`."""
    out = []
    for stat in glob.glob("/proc/[0-9]*/stat"):
        try:
            with open(stat) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[1]) == pid:
                out.append(int(stat.split("/")[2]))
        except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
            pass
    return out


class Postgres:
    """A PostgreSQL cluster in a temporary directory, on a Unix socket only, with PostgreSQL's
    durable defaults (fsync and synchronous_commit on). As root, it runs as the postgres user."""

    def __init__(self, work):
        need("initdb", "postgresql")
        self.bin = self._bin()
        self.dir = os.path.join(work, "pg")
        os.mkdir(self.dir)
        self.prefix = []
        if os.geteuid() == 0:
            user = pwd.getpwnam("postgres")
            os.chown(self.dir, user.pw_uid, user.pw_gid)
            os.chmod(work, 0o755)
            self.prefix = ["setpriv", "--reuid=postgres", "--regid=postgres", "--clear-groups", "--"]
        self.data = os.path.join(self.dir, "data")
        self._run("initdb", "-D", self.data, "-U", "postgres", "--auth=trust", "--no-locale",
                  "--encoding=UTF8", "--no-sync")
        with open(os.path.join(self.data, "postgresql.conf"), "a") as conf:
            conf.write(f"\nlisten_addresses = ''\nunix_socket_directories = '{self.dir}'\n"
                       "max_connections = 200\nshared_buffers = 256MB\n")
        self.start()

    @staticmethod
    def _bin():
        found = shutil.which("initdb")
        if found:
            return os.path.dirname(os.path.realpath(found))
        return sorted(glob.glob("/usr/lib/postgresql/*/bin"))[-1]

    def _run(self, program, *args):
        out = subprocess.run([*self.prefix, os.path.join(self.bin, program), *args],
                             capture_output=True, text=True, cwd=self.dir)
        if out.returncode != 0:
            raise RuntimeError(f"{program} {' '.join(args)} failed: {out.stdout}{out.stderr}")
        return out.stdout

    def start(self):
        self._run("pg_ctl", "-D", self.data, "-l", os.path.join(self.dir, "server.log"), "-w",
                  "-t", "60", "start")

    def stop(self, mode="fast"):
        self._run("pg_ctl", "-D", self.data, "-m", mode, "-w", "stop")

    def restart(self):
        """What an operator's `pg_ctl restart -m fast` does: sessions end, the server comes back."""
        self._run("pg_ctl", "-D", self.data, "-l", os.path.join(self.dir, "server.log"), "-m",
                  "fast", "-w", "-t", "60", "restart")

    def url(self, database):
        host = self.dir.replace("/", "%2F")
        return f"postgres://postgres@{host}/{database}"

    def psql(self, database, sql):
        out = subprocess.run([os.path.join(self.bin, "psql"), "-X", "-q", "-A", "-t", "-v",
                              "ON_ERROR_STOP=1", "-U", "postgres", "-h", self.dir, "-d", database,
                              "-c", sql], capture_output=True, text=True)
        if out.returncode != 0:
            raise RuntimeError(f"psql {sql!r} failed: {out.stderr}")
        return out.stdout.strip()

    def create_database(self, name):
        self.psql("postgres", f"CREATE DATABASE {name}")
        return self.url(name)

    def pid(self):
        with open(os.path.join(self.data, "postmaster.pid")) as f:
            return int(f.readline())

    def cpu(self):
        """CPU seconds of the postmaster and its current children (the sessions and workers)."""
        pid = self.pid()
        return cpu_seconds(pid) + sum(cpu_seconds(c) for c in children(pid))

    def close(self):
        try:
            self.stop("immediate")
        except (RuntimeError, FileNotFoundError):
            pass


class Redis:
    """A redis-server on a free loopback port, appending to its log once a second."""

    def __init__(self, work):
        need("redis-server", "redis-server")
        self.dir = os.path.join(work, "redis")
        os.mkdir(self.dir)
        self.port = free_port()
        self.proc = None
        self.start()

    def start(self):
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--dir", self.dir,
             "--save", "", "--appendonly", "yes", "--appendfsync", "everysec",
             "--logfile", os.path.join(self.dir, "redis.log")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 10
        while not self.ping():
            if time.time() > deadline:
                raise RuntimeError("redis-server did not start")
            time.sleep(0.02)

    def ping(self):
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self):
        """SHUTDOWN: Redis writes its append-only file and exits."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as s:
            s.sendall(b"SHUTDOWN\r\n")
            s.recv(16)
        self.proc.wait(30)

    @property
    def url(self):
        return f"redis://127.0.0.1:{self.port}/"

    def cpu(self):
        return cpu_seconds(self.proc.pid)

    def close(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


class Balancer:
    """HAProxy with `docs/deploy/haproxy.cfg`, in front of up to three servers (with fewer, the
    remaining server lines repeat the last server)."""

    def __init__(self, work, servers):
        need("haproxy", "haproxy")
        self.port = free_port()
        addrs = [f"{h}:{p}" for h, p in (s.addr for s in servers)]
        addrs += [addrs[-1]] * (3 - len(addrs))
        env = dict(os.environ, QR_LB_LISTEN=f"127.0.0.1:{self.port}",
                   QR_SERVER_1=addrs[0], QR_SERVER_2=addrs[1], QR_SERVER_3=addrs[2])
        self.log = open(os.path.join(work, "haproxy.log"), "ab")
        self.proc = subprocess.Popen(["haproxy", "-db", "-f", HAPROXY_CFG], env=env,
                                     stdout=self.log, stderr=self.log)
        deadline = time.time() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                if self.proc.poll() is not None or time.time() > deadline:
                    raise RuntimeError(f"haproxy did not start (see {self.log.name})")
                time.sleep(0.02)

    @property
    def addr(self):
        return ("127.0.0.1", self.port)

    def cpu(self):
        return cpu_seconds(self.proc.pid)

    def close(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)


class Cluster:
    """PostgreSQL, Redis, `count` servers on them, and HAProxy in front."""

    def __init__(self, prefix, count=3, redis=True):
        harness.build()
        self.work = tempfile.mkdtemp(prefix=prefix)
        self.log = os.path.join(self.work, "servers.log")
        self.pg = Postgres(self.work)
        self.redis = Redis(self.work) if redis else None
        self.url = self.pg.create_database("qr")
        self.servers = []
        for _ in range(count):
            self.servers.append(self.start_server())
        self.key = next(s.key for s in self.servers if s.key)
        harness.qr("accounts", "set-limits", "--email", harness.OWNER, "--per-second", "1000000",
                   "--batch-per-minute", "1000000", db=self.url)
        self.balancer = Balancer(self.work, self.servers)

    def start_server(self):
        args = ["--trusted-proxies", "127.0.0.1"]
        if self.redis:
            args += ["--redis", self.redis.url]
        return harness.Server(self.url, self.log, args=args)

    def close(self):
        for s in self.servers:
            if s.proc.poll() is None:
                s.kill(signal.SIGTERM)
                s.wait()
        self.balancer.close()
        if self.redis:
            self.redis.close()
        self.pg.close()
