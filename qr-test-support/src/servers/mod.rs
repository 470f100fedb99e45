//! Real outside servers for tests: a throwaway PostgreSQL cluster, Redis servers, dnsmasq DNS servers, Caddy reverse proxies and an OpenID Connect provider, started in temporary directories and stopped by their guards.
//!
//! Each server has a watchdog: a `sh` process whose standard input is a pipe from the test
//! process. When the guard is dropped (a test ending, or panicking) or the test process exits
//! (even by `kill -9`), the pipe closes, and the watchdog stops the server and removes its
//! directory. So a cluster shared by every test of a binary (kept in a `static`, which is never
//! dropped) is still stopped when the binary ends.
//!
//! When a program is missing, the suite is skipped with one line on standard error, unless
//! `QR_REQUIRE_SUITES` is set (`.ci/run` sets it), in which case the test fails.

pub mod caddy;
pub mod dnsmasq;
pub mod oidc;
pub mod postgres;
pub mod redis;

use std::collections::HashSet;
use std::io::Write as _;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Mutex, PoisonError};

/// Whether a missing outside program must fail the suite instead of skipping it.
pub fn suites_required() -> bool {
    std::env::var_os("QR_REQUIRE_SUITES").is_some()
}

/// Reports that `suite` cannot run because `program` is missing: fails the test under
/// `QR_REQUIRE_SUITES`, otherwise prints `skipped: <suite> needs <program> (<install>)` once per
/// suite and process.
pub fn skip(suite: &str, program: &str, install: &str) {
    let line = format!("skipped: {suite} needs {program} ({install})");
    assert!(
        !suites_required(),
        "{line}; QR_REQUIRE_SUITES is set, so the suite must run"
    );
    static PRINTED: Mutex<Option<HashSet<String>>> = Mutex::new(None);
    let mut printed = PRINTED.lock().unwrap_or_else(PoisonError::into_inner);
    if printed
        .get_or_insert_with(HashSet::new)
        .insert(line.clone())
    {
        // One line on the terminal even though the test harness captures test output.
        let _ = writeln!(std::io::stderr(), "{line}");
    }
}

/// Whether this process runs as root (PostgreSQL refuses to run as root).
pub(crate) fn running_as_root() -> bool {
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

/// `program` in `PATH`, else in the first of `extra` directories holding it.
pub(crate) fn find_program(program: &str, extra: &[PathBuf]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(extra.iter().cloned())
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}

/// A process that stops a server and removes its directory once its standard input closes.
pub(crate) struct Watchdog {
    stdin: Option<ChildStdin>,
    child: Child,
}

impl Watchdog {
    /// Starts a watchdog that, on end of input, runs `stop` and removes `dir`.
    pub(crate) fn spawn(dir: &Path, stop: &[String]) -> std::io::Result<Watchdog> {
        // `$0` is the directory, `$@` the stop command; the loop ends when the pipe closes.
        let script = r#"while read -r _; do :; done; "$@" >/dev/null 2>&1; rm -rf "$0""#;
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(script)
            .arg(dir)
            .args(stop)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()?;
        Ok(Watchdog {
            stdin: child.stdin.take(),
            child,
        })
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

/// A fresh temporary directory, owned by `owner` (user and group ids) when given.
pub(crate) fn temp_dir(prefix: &str, owner: Option<(u32, u32)>) -> std::io::Result<PathBuf> {
    let base = std::env::temp_dir();
    for attempt in 0..100u32 {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let dir = base.join(format!(
            "{prefix}{}-{nanos:x}-{attempt}",
            std::process::id()
        ));
        match std::fs::create_dir(&dir) {
            Ok(()) => {
                if let Some((uid, gid)) = owner {
                    std::os::unix::fs::chown(&dir, Some(uid), Some(gid))?;
                }
                return Ok(dir);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other("no free temporary directory name"))
}
