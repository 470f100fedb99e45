//! A throwaway Caddy (Debian's `caddy`, 2.6) on a free loopback port, issuing certificates on demand from its own internal CA to the names an HTTP endpoint allows, and proxying every request to an upstream server.
//!
//! This is the reverse proxy operators put in front of the service for customers' domains
//! (`docs/deploy.md`, "Customers' domains"), with one difference: the certificates come from
//! Caddy's internal CA (`tls internal`) instead of Let's Encrypt, so nothing leaves the machine.
//! On a handshake for a name it holds no certificate for, Caddy first asks
//! `http://<upstream><ask_path>?domain=<name>` (the `on_demand_tls` `ask` endpoint): a 200
//! answer gets a certificate issued there and then, anything else fails the handshake.
//!
//! The process is the test's own child, started from a Caddyfile in a temporary directory, never
//! the system service the Debian package installs (`caddy.service`, `/etc/caddy/Caddyfile`):
//! `HOME`, `XDG_DATA_HOME` and `XDG_CONFIG_HOME` point into the temporary directory, so the CA's
//! keys and certificates (`<data>/caddy/pki/authorities/local/`) and the autosaved configuration
//! live and die there; the admin endpoint is off (the service's own listens on localhost:2019);
//! and `skip_install_trust` keeps Caddy from adding its root to the system's trust store, which
//! it would otherwise try when running as root (CI does). Only one socket is opened: HTTPS on
//! 127.0.0.1 (`default_bind`), over HTTP/1.1 and HTTP/2 only (HTTP/3 would add a UDP socket);
//! the HTTP→HTTPS redirect listener is off, and `http_port` names a free loopback port anyway so
//! that nothing would ever try port 80.

use std::fs::File;
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::{Watchdog, find_program, skip, temp_dir};

/// How to install Caddy, for the skip message.
const INSTALL: &str = "apt-get install caddy";

/// How long Caddy gets to open its port and create its CA; it takes about 50 ms.
const START_TIMEOUT: Duration = Duration::from_secs(10);

/// A running Caddy, stopped (and its directory removed) when dropped.
pub struct CaddyServer {
    dir: PathBuf,
    https_port: u16,
    process: Child,
    _watchdog: Watchdog,
}

impl CaddyServer {
    /// Starts Caddy serving HTTPS on a free loopback port for any name `upstream` allows at
    /// `ask_path` (a path such as `/domains/tls-check`), proxying every request to `upstream`
    /// with its `Host` header unchanged; `None` after printing the skip line when Caddy is not
    /// installed (a failure under `QR_REQUIRE_SUITES`).
    pub fn start(suite: &str, upstream: SocketAddr, ask_path: &str) -> Option<CaddyServer> {
        let Some(program) = find_program("caddy", &[]) else {
            skip(suite, "caddy", INSTALL);
            return None;
        };
        let dir = temp_dir("qr-caddy-", None).expect("a temporary directory for Caddy");
        let https_port = free_port();
        let http_port = free_port();
        let caddyfile = dir.join("Caddyfile");
        std::fs::write(
            &caddyfile,
            caddyfile_text(upstream, ask_path, http_port, https_port),
        )
        .expect("the Caddyfile written");
        // The watchdog kills Caddy by its pid file should the test process die first.
        let pid = dir.join("caddy.pid").display().to_string();
        let stop = vec![
            "sh".to_owned(),
            "-c".to_owned(),
            r#"kill -9 "$(cat "$1")""#.to_owned(),
            "sh".to_owned(),
            pid,
        ];
        let watchdog = Watchdog::spawn(&dir, &stop).expect("the Caddy watchdog starts");
        let process = spawn(&program, &dir, &caddyfile);
        let mut server = CaddyServer {
            dir,
            https_port,
            process,
            _watchdog: watchdog,
        };
        server.wait_until_ready();
        Some(server)
    }

    /// The HTTPS address (127.0.0.1 and its port): a client connects here and sends the name it
    /// wants as SNI, as if the name resolved to 127.0.0.1.
    pub fn https_address(&self) -> SocketAddr {
        SocketAddr::from((Ipv4Addr::LOCALHOST, self.https_port))
    }

    /// The root certificate of Caddy's internal CA (PEM), which a client trusts to accept the
    /// certificates Caddy issues.
    pub fn root_certificate_pem(&self) -> String {
        std::fs::read_to_string(root_certificate_path(&self.dir))
            .expect("Caddy's root certificate is readable")
    }

    /// Caddy's log so far (JSON lines), for a failing test's message.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("caddy.log")).unwrap_or_default()
    }

    /// Waits until Caddy accepts connections on its HTTPS port and its CA's root certificate is
    /// written; panics with its log when it exits or is not ready within [`START_TIMEOUT`].
    fn wait_until_ready(&mut self) {
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            if root_certificate_path(&self.dir).is_file()
                && TcpStream::connect(self.https_address()).is_ok()
            {
                return;
            }
            let exited = self.process.try_wait().ok().flatten();
            assert!(
                exited.is_none() && Instant::now() < deadline,
                "Caddy did not start ({}): {}",
                exited.map_or("still running".to_owned(), |status| status.to_string()),
                self.log()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for CaddyServer {
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
        // So the watchdog never kills a later process that reused the pid.
        let _ = std::fs::remove_file(self.dir.join("caddy.pid"));
    }
}

impl std::fmt::Debug for CaddyServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CaddyServer")
            .field("https_port", &self.https_port)
            .finish_non_exhaustive()
    }
}

/// The Caddyfile (see the module documentation for each choice).
fn caddyfile_text(upstream: SocketAddr, ask_path: &str, http_port: u16, https_port: u16) -> String {
    assert!(
        ask_path.starts_with('/')
            && ask_path
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"/-_.".contains(&b)),
        "an ask path of ASCII letters, digits, '/', '-', '_' and '.' starting with '/': {ask_path:?}"
    );
    format!(
        "# Written by qr-test-support's Caddy harness.\n\
         {{\n\
         \tadmin off\n\
         \tdefault_bind 127.0.0.1\n\
         \thttp_port {http_port}\n\
         \thttps_port {https_port}\n\
         \tauto_https disable_redirects\n\
         \tskip_install_trust\n\
         \tservers {{\n\
         \t\tprotocols h1 h2\n\
         \t}}\n\
         \ton_demand_tls {{\n\
         \t\task http://{upstream}{ask_path}\n\
         \t}}\n\
         }}\n\
         \n\
         https:// {{\n\
         \ttls internal {{\n\
         \t\ton_demand\n\
         \t}}\n\
         \treverse_proxy {upstream}\n\
         }}\n"
    )
}

/// Starts `caddy run` in the foreground with `caddyfile`, its home and XDG directories in `dir`.
fn spawn(program: &Path, dir: &Path, caddyfile: &Path) -> Child {
    for sub in ["home", "data", "config"] {
        std::fs::create_dir(dir.join(sub)).expect("Caddy's home and XDG directories");
    }
    let log = File::create(dir.join("caddy.log")).expect("Caddy's log file");
    Command::new(program)
        .arg("run")
        .arg("--config")
        .arg(caddyfile)
        .args(["--adapter", "caddyfile", "--pidfile"])
        .arg(dir.join("caddy.pid"))
        .env("HOME", dir.join("home"))
        .env("XDG_DATA_HOME", dir.join("data"))
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("caddy runs")
}

/// Where Caddy's internal CA keeps its root certificate under the harness's data directory.
fn root_certificate_path(dir: &Path) -> PathBuf {
    dir.join("data/caddy/pki/authorities/local/root.crt")
}

/// A loopback TCP port nothing listens on right now.
fn free_port() -> u16 {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_caddyfile_asks_the_upstream_and_binds_only_loopback() {
        let upstream = SocketAddr::from((Ipv4Addr::LOCALHOST, 8080));
        let text = caddyfile_text(upstream, "/domains/tls-check", 18080, 18443);
        for line in [
            "\tadmin off",
            "\tdefault_bind 127.0.0.1",
            "\thttp_port 18080",
            "\thttps_port 18443",
            "\tskip_install_trust",
            "\t\task http://127.0.0.1:8080/domains/tls-check",
            "\t\ton_demand",
            "\treverse_proxy 127.0.0.1:8080",
        ] {
            assert!(text.lines().any(|l| l == line), "{line:?} in:\n{text}");
        }
    }

    #[test]
    fn caddy_listens_only_on_its_loopback_https_port_and_keeps_its_ca_in_the_temporary_directory() {
        // Nothing answers here: the test never asks for a certificate.
        let upstream = SocketAddr::from((Ipv4Addr::LOCALHOST, free_port()));
        let Some(caddy) = CaddyServer::start("the Caddy harness", upstream, "/tls-check") else {
            return;
        };
        let listening = listening_sockets(caddy.process.id());
        assert_eq!(
            listening,
            [format!("tcp 0100007F:{:04X}", caddy.https_port)],
            "Caddy's listening sockets (127.0.0.1 is 0100007F in /proc/net); log: {}",
            caddy.log()
        );
        assert!(
            caddy
                .root_certificate_pem()
                .starts_with("-----BEGIN CERTIFICATE-----"),
            "{}",
            caddy.root_certificate_pem()
        );
        let dir = caddy.dir.clone();
        drop(caddy);
        // The watchdog removes the directory once the guard lets go.
        assert!(!dir.exists(), "{} removed", dir.display());
    }

    /// The listening TCP sockets and bound UDP sockets of process `pid`, as `tcp ADDR:PORT` with
    /// the address and port in /proc/net's hexadecimal.
    fn listening_sockets(pid: u32) -> Vec<String> {
        let inodes: Vec<String> = std::fs::read_dir(format!("/proc/{pid}/fd"))
            .expect("the process's descriptors")
            .filter_map(|entry| std::fs::read_link(entry.ok()?.path()).ok())
            .filter_map(|target| {
                let target = target.display().to_string();
                let inode = target.strip_prefix("socket:[")?.strip_suffix(']')?;
                Some(inode.to_owned())
            })
            .collect();
        let mut found = Vec::new();
        for table in ["tcp", "tcp6", "udp", "udp6"] {
            let text = std::fs::read_to_string(format!("/proc/{pid}/net/{table}"))
                .expect("the process's socket table");
            for line in text.lines().skip(1) {
                let fields: Vec<&str> = line.split_whitespace().collect();
                // local_address is field 1, st field 3 (0A: LISTEN), inode field 9.
                let listens = !table.starts_with("tcp") || fields[3] == "0A";
                if listens && inodes.iter().any(|inode| inode == fields[9]) {
                    found.push(format!("{} {}", &table[..3], fields[1]));
                }
            }
        }
        found
    }

    #[test]
    #[should_panic(expected = "an ask path")]
    fn an_ask_path_that_could_break_the_caddyfile_is_refused() {
        let upstream = SocketAddr::from((Ipv4Addr::LOCALHOST, 8080));
        let _ = caddyfile_text(upstream, "/x\n}\nadmin 0.0.0.0:2019", 1, 2);
    }
}
