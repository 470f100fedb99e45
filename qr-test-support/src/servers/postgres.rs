//! A throwaway PostgreSQL cluster: `initdb` in a temporary directory, `pg_ctl` to start and stop it, reachable only on a Unix socket in that directory.
//!
//! When the test process runs as root, the PostgreSQL programs run as the `postgres` user
//! (through `setpriv`), since the server refuses root; the directory is given to that user.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::{Watchdog, find_program, running_as_root, skip, temp_dir};

/// How to install the PostgreSQL server programs, for the skip message.
const INSTALL: &str = "apt-get install postgresql, or set QR_PG_BIN to the directory of initdb";

/// How the cluster trades durability for speed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// `fsync=off`, `synchronous_commit=off`, `full_page_writes=off`: for tests, where a crash of
    /// the machine may lose the cluster.
    Throwaway,
    /// PostgreSQL's defaults (`fsync=on`, `synchronous_commit=on`): for benchmarks and fault
    /// runs whose figures must hold for a real deployment.
    Durable,
}

/// A running PostgreSQL cluster, stopped and removed when dropped.
pub struct PgCluster {
    dir: PathBuf,
    bin: PathBuf,
    /// The prefix that runs a program as the cluster's owner (empty unless running as root).
    as_owner: Vec<String>,
    databases: AtomicUsize,
    _watchdog: Watchdog,
}

impl PgCluster {
    /// One cluster shared by every test of this test binary (fresh databases keep tests apart);
    /// `None` after printing the skip line when PostgreSQL is not installed.
    pub fn shared(suite: &str) -> Option<&'static PgCluster> {
        static SHARED: OnceLock<Option<PgCluster>> = OnceLock::new();
        let cluster = SHARED.get_or_init(|| PgCluster::start(suite, Durability::Throwaway));
        if cluster.is_none() {
            skip(suite, "PostgreSQL (initdb, pg_ctl)", INSTALL);
        }
        cluster.as_ref()
    }

    /// Creates and starts a new cluster; `None` after printing the skip line when PostgreSQL is
    /// not installed. Panics, failing the test, when it is installed but does not start.
    pub fn start(suite: &str, durability: Durability) -> Option<PgCluster> {
        let Some(bin) = server_programs() else {
            skip(suite, "PostgreSQL (initdb, pg_ctl)", INSTALL);
            return None;
        };
        let (owner, as_owner) = if running_as_root() {
            let Some(ids) = user_ids("postgres") else {
                skip(
                    suite,
                    "the postgres user (PostgreSQL refuses to run as root)",
                    INSTALL,
                );
                return None;
            };
            let prefix = [
                "setpriv",
                "--reuid=postgres",
                "--regid=postgres",
                "--clear-groups",
                "--",
            ];
            (Some(ids), prefix.iter().map(|s| (*s).to_owned()).collect())
        } else {
            (None, Vec::new())
        };
        let dir = temp_dir("qr-pg-", owner).expect("a temporary directory for PostgreSQL");
        let data = dir.join("data");
        let stop: Vec<String> = as_owner
            .iter()
            .cloned()
            .chain([
                bin.join("pg_ctl").display().to_string(),
                "-D".to_owned(),
                data.display().to_string(),
                "-m".to_owned(),
                "immediate".to_owned(),
                "-w".to_owned(),
                "stop".to_owned(),
            ])
            .collect();
        let watchdog = Watchdog::spawn(&dir, &stop).expect("the cluster's watchdog starts");
        let cluster = PgCluster {
            dir,
            bin,
            as_owner,
            databases: AtomicUsize::new(0),
            _watchdog: watchdog,
        };
        let init = cluster.run_as_owner(
            "initdb",
            &[
                "-D",
                &data.display().to_string(),
                "-U",
                "postgres",
                "--auth=trust",
                "--encoding=UTF8",
                "--no-locale",
                "--no-sync",
            ],
        );
        assert!(init.status.success(), "initdb failed: {}", text(&init));
        let mut settings = format!(
            "\n# qr-test-support\nlisten_addresses = ''\nunix_socket_directories = '{}'\nport = 5432\nmax_connections = 300\nshared_buffers = 128MB\n",
            cluster.dir.display()
        );
        if durability == Durability::Throwaway {
            settings.push_str("fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n");
        }
        let conf = data.join("postgresql.conf");
        let mut contents = std::fs::read_to_string(&conf).expect("postgresql.conf is readable");
        contents.push_str(&settings);
        std::fs::write(&conf, contents).expect("postgresql.conf is writable");
        cluster.start_server();
        Some(cluster)
    }

    /// The directory holding the server's Unix socket (and the data directory, `data`).
    pub fn socket_dir(&self) -> &Path {
        &self.dir
    }

    /// The connection URL of `database` on this cluster.
    pub fn url(&self, database: &str) -> String {
        let host: String = self
            .dir
            .display()
            .to_string()
            .bytes()
            .map(|b| match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                    char::from(b).to_string()
                }
                _ => format!("%{b:02X}"),
            })
            .collect();
        format!("postgres://postgres@{host}/{database}")
    }

    /// Creates a new, empty database and returns its URL.
    pub fn create_database(&self) -> String {
        let name = format!("qr_test_{}", self.databases.fetch_add(1, Ordering::Relaxed));
        self.psql("postgres", &format!("CREATE DATABASE {name}"));
        self.url(&name)
    }

    /// Runs `sql` in `database` with psql and returns its unaligned output; panics on failure.
    pub fn psql(&self, database: &str, sql: &str) -> String {
        let out = Command::new(self.bin.join("psql"))
            .args([
                "-X",
                "-q",
                "-A",
                "-t",
                "-v",
                "ON_ERROR_STOP=1",
                "-U",
                "postgres",
                "-h",
            ])
            .arg(&self.dir)
            .args(["-d", database, "-c", sql])
            .output()
            .expect("psql runs");
        assert!(out.status.success(), "psql {sql:?} failed: {}", text(&out));
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    /// Stops the server the way an operator's restart does (`pg_ctl stop -m fast`: sessions
    /// are ended, the data is checkpointed).
    pub fn stop(&self) {
        self.pg_ctl(&["-m", "fast", "-w", "stop"]);
    }

    /// Stops the server as a crash would (`pg_ctl stop -m immediate`: no checkpoint; the
    /// next start replays the write-ahead log).
    pub fn crash(&self) {
        self.pg_ctl(&["-m", "immediate", "-w", "stop"]);
    }

    /// Starts the server again after [`PgCluster::stop`] or [`PgCluster::crash`].
    pub fn start_server(&self) {
        let log = self.dir.join("server.log").display().to_string();
        self.pg_ctl(&["-l", &log, "-w", "-t", "60", "start"]);
    }

    fn pg_ctl(&self, args: &[&str]) {
        let data = self.dir.join("data").display().to_string();
        let mut all = vec!["-D", data.as_str()];
        all.extend_from_slice(args);
        let out = self.run_as_owner("pg_ctl", &all);
        assert!(
            out.status.success(),
            "pg_ctl {args:?} failed: {}\n{}",
            text(&out),
            std::fs::read_to_string(self.dir.join("server.log")).unwrap_or_default()
        );
    }

    fn run_as_owner(&self, program: &str, args: &[&str]) -> Output {
        let program = self.bin.join(program);
        let mut command = match self.as_owner.split_first() {
            Some((first, rest)) => {
                let mut c = Command::new(first);
                c.args(rest).arg(&program);
                c
            }
            None => Command::new(&program),
        };
        command
            .args(args)
            // The owner may not be allowed into the test's working directory.
            .current_dir(&self.dir)
            .output()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", program.display()))
    }
}

impl std::fmt::Debug for PgCluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgCluster")
            .field("dir", &self.dir)
            .finish_non_exhaustive()
    }
}

/// The directory of `initdb`, `pg_ctl` and `psql`: `QR_PG_BIN`, `PATH`, or Debian's
/// `/usr/lib/postgresql/<version>/bin` (the newest).
fn server_programs() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("QR_PG_BIN") {
        return Some(PathBuf::from(dir));
    }
    let mut debian: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path().join("bin"))
        .collect();
    debian.sort_by_key(|p| {
        p.parent()
            .and_then(|v| v.file_name())
            .and_then(|v| v.to_str())
            .and_then(|v| v.parse::<u32>().ok())
            .unwrap_or(0)
    });
    debian.reverse();
    let initdb = find_program("initdb", &debian)?;
    let dir = initdb.parent()?.to_owned();
    // `PATH` may hold a symbolic link to initdb alone; pg_ctl and psql must sit beside it.
    let dir = std::fs::canonicalize(&initdb)
        .ok()
        .and_then(|real| real.parent().map(Path::to_owned))
        .unwrap_or(dir);
    ["pg_ctl", "psql"]
        .iter()
        .all(|p| dir.join(p).is_file())
        .then_some(dir)
}

/// The user and group ids of `user`, from `/etc/passwd`.
fn user_ids(user: &str) -> Option<(u32, u32)> {
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd.lines().find_map(|line| {
        let fields: Vec<&str> = line.split(':').collect();
        (fields.len() > 3 && fields[0] == user)
            .then(|| Some((fields[2].parse().ok()?, fields[3].parse().ok()?)))
            .flatten()
    })
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}
