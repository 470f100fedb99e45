//! A throwaway DNS server (Debian's `dnsmasq`, package `dnsmasq-base`) on a free loopback port serving a test zone, which the test can replace while the server runs.
//!
//! The zone ([`DnsZone`]) holds TXT records (each of one or more character-strings), CNAMEs and
//! A/AAAA records. Every other name answers NXDOMAIN (`local=/#/`: nothing is forwarded), except
//! a parent of a zone name (`brand.test` when `go.brand.test` exists), which exists without
//! records, and the names under [`SILENT_DOMAIN`], whose questions dnsmasq forwards to a UDP
//! socket the harness holds and never reads: they never get an answer, for timeout tests.
//!
//! Changing the zone at runtime ([`DnsmasqServer::serve`]) restarts dnsmasq on the same port with
//! the new zone and returns once it answers. A restart rather than `SIGHUP`: dnsmasq rereads only
//! its hosts files on `SIGHUP`, while TXT and CNAME records live in its configuration, which it
//! reads once. A restart takes a few milliseconds, and a question asked during it may get no
//! answer, so tests change the zone between questions, not during one.
//!
//! Records carry a time to live of 300 s (`--local-ttl`), as a real zone's would, so a client
//! that cached answers would show stale records after a change; dnsmasq itself caches nothing
//! (`--cache-size=0`).
//!
//! The server runs without privileges: on a port above 1024, in the foreground as the test's
//! child, with no DHCP, no hosts file and no `/etc/resolv.conf`. When the tests run as root (CI
//! does), dnsmasq binds its port and then drops to the user `nobody` (`--user=nobody`).

use std::fmt::Write as _;
use std::fs::File;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, UdpSocket};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::{Watchdog, find_program, running_as_root, skip, temp_dir};

/// How to install dnsmasq, for the skip message.
const INSTALL: &str = "apt-get install dnsmasq-base";

/// The domain whose names never get an answer: dnsmasq forwards their questions to a socket
/// that reads nothing.
pub const SILENT_DOMAIN: &str = "slow.test";

/// The time to live of every record served, in seconds (see the module documentation).
pub const RECORD_TTL: u32 = 300;

/// One record of a test zone.
#[derive(Debug, Clone, PartialEq, Eq)]
enum ZoneRecord {
    /// A TXT record of one or more character-strings.
    Txt { name: String, strings: Vec<String> },
    /// `name` is an alias of `target`.
    Cname { name: String, target: String },
    /// An A or AAAA record.
    Address { name: String, address: IpAddr },
}

impl ZoneRecord {
    fn name(&self) -> &str {
        match self {
            ZoneRecord::Txt { name, .. }
            | ZoneRecord::Cname { name, .. }
            | ZoneRecord::Address { name, .. } => name,
        }
    }

    /// The record as a line of dnsmasq's configuration.
    fn config_line(&self) -> String {
        match self {
            ZoneRecord::Txt { name, strings } => {
                let quoted: Vec<String> = strings.iter().map(|s| format!("\"{s}\"")).collect();
                format!("txt-record={name},{}", quoted.join(","))
            }
            ZoneRecord::Cname { name, target } => format!("cname={name},{target}"),
            ZoneRecord::Address { name, address } => format!("host-record={name},{address}"),
        }
    }
}

/// The records a [`DnsmasqServer`] serves. Names are ASCII without a final dot.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DnsZone {
    records: Vec<ZoneRecord>,
}

impl DnsZone {
    /// An empty zone: every name answers NXDOMAIN.
    pub fn new() -> DnsZone {
        DnsZone::default()
    }

    /// Adds a TXT record made of `strings`, each one character-string (at most 255 bytes of
    /// printable ASCII other than `"` and `\`); several calls for one name add several records.
    pub fn txt(mut self, name: &str, strings: &[&str]) -> DnsZone {
        assert!(!strings.is_empty(), "a TXT record has a character-string");
        for string in strings {
            assert!(
                string.len() <= 255
                    && string
                        .bytes()
                        .all(|b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\'),
                "a TXT character-string of at most 255 printable bytes without quote or \
                 backslash: {string:?}"
            );
        }
        self.records.push(ZoneRecord::Txt {
            name: checked_name(name),
            strings: strings.iter().map(|s| (*s).to_owned()).collect(),
        });
        self
    }

    /// Makes `name` an alias of `target` (which may itself be an alias, or not exist).
    pub fn cname(mut self, name: &str, target: &str) -> DnsZone {
        self.records.push(ZoneRecord::Cname {
            name: checked_name(name),
            target: checked_name(target),
        });
        self
    }

    /// Adds an A record.
    pub fn a(mut self, name: &str, address: Ipv4Addr) -> DnsZone {
        self.records.push(ZoneRecord::Address {
            name: checked_name(name),
            address: address.into(),
        });
        self
    }

    /// Adds an AAAA record.
    pub fn aaaa(mut self, name: &str, address: Ipv6Addr) -> DnsZone {
        self.records.push(ZoneRecord::Address {
            name: checked_name(name),
            address: address.into(),
        });
        self
    }

    /// Removes every record of `name` (which then answers NXDOMAIN, unless it is a parent of
    /// another name).
    pub fn without(mut self, name: &str) -> DnsZone {
        self.records.retain(|record| record.name() != name);
        self
    }

    /// dnsmasq's configuration: the zone, and the silent domain forwarded to `silent_port`.
    fn config(&self, silent_port: u16) -> String {
        let mut config = String::from(
            "# Written by qr-test-support's dnsmasq harness.\n\
             # Every name not below answers NXDOMAIN: nothing is forwarded upstream.\n\
             local=/#/\n",
        );
        let _ = writeln!(config, "server=/{SILENT_DOMAIN}/127.0.0.1#{silent_port}");
        for record in &self.records {
            config.push_str(&record.config_line());
            config.push('\n');
        }
        config
    }
}

/// `name` when it is a plain ASCII DNS name (letters, digits, `-`, `_`, dots), which keeps a
/// test's typo from becoming a configuration line of its own.
fn checked_name(name: &str) -> String {
    assert!(
        !name.is_empty()
            && !name.ends_with('.')
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b)),
        "a DNS name of ASCII letters, digits, '-', '_' and dots without final dot: {name:?}"
    );
    name.to_ascii_lowercase()
}

/// A running dnsmasq, stopped (and its directory removed) when dropped.
pub struct DnsmasqServer {
    program: PathBuf,
    dir: PathBuf,
    port: u16,
    /// The socket the silent domain's questions go to; bound for the server's life, never read.
    silent: UdpSocket,
    /// The dnsmasq process serving the current zone.
    process: Mutex<Child>,
    _watchdog: Watchdog,
}

impl DnsmasqServer {
    /// Starts dnsmasq on a free loopback port (UDP and TCP) serving `zone`; `None` after printing
    /// the skip line when dnsmasq is not installed (a failure under `QR_REQUIRE_SUITES`).
    pub fn start(suite: &str, zone: &DnsZone) -> Option<DnsmasqServer> {
        let sbin = [PathBuf::from("/usr/sbin"), PathBuf::from("/sbin")];
        let Some(program) = find_program("dnsmasq", &sbin) else {
            skip(suite, "dnsmasq", INSTALL);
            return None;
        };
        let dir = temp_dir("qr-dnsmasq-", None).expect("a temporary directory for dnsmasq");
        let silent = UdpSocket::bind((Ipv4Addr::LOCALHOST, 0)).expect("a loopback UDP socket");
        let port = free_udp_and_tcp_port();
        // The watchdog kills the server by its pid file should the test process die first.
        let pid = dir.join("dnsmasq.pid").display().to_string();
        let stop = vec![
            "sh".to_owned(),
            "-c".to_owned(),
            r#"kill -9 "$(cat "$1")""#.to_owned(),
            "sh".to_owned(),
            pid,
        ];
        let watchdog = Watchdog::spawn(&dir, &stop).expect("the dnsmasq watchdog starts");
        let process = spawn(&program, &dir, port, &silent, zone);
        let server = DnsmasqServer {
            program,
            dir,
            port,
            silent,
            process: Mutex::new(process),
            _watchdog: watchdog,
        };
        let mut process = server.process();
        server.wait_until_answering(&mut process);
        drop(process);
        Some(server)
    }

    /// The server's address (127.0.0.1 and its port), for UDP and TCP.
    pub fn address(&self) -> SocketAddr {
        SocketAddr::from((Ipv4Addr::LOCALHOST, self.port))
    }

    /// Replaces the zone: restarts dnsmasq on the same port with `zone` and returns once it
    /// answers (see the module documentation for why a restart).
    pub fn serve(&self, zone: &DnsZone) {
        let mut process = self.process();
        stop(&mut process, &self.dir);
        *process = spawn(&self.program, &self.dir, self.port, &self.silent, zone);
        self.wait_until_answering(&mut process);
    }

    fn process(&self) -> std::sync::MutexGuard<'_, Child> {
        self.process.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits until dnsmasq answers a question on its port; panics with its log when it exits
    /// or stays silent for 10 s.
    fn wait_until_answering(&self, process: &mut Child) {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if answers(self.address()) {
                return;
            }
            let exited = process.try_wait().ok().flatten();
            assert!(
                exited.is_none() && Instant::now() < deadline,
                "dnsmasq did not answer ({}): {}",
                exited.map_or("still running".to_owned(), |status| status.to_string()),
                std::fs::read_to_string(self.dir.join("dnsmasq.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for DnsmasqServer {
    fn drop(&mut self) {
        stop(&mut self.process(), &self.dir);
    }
}

impl std::fmt::Debug for DnsmasqServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DnsmasqServer")
            .field("port", &self.port)
            .finish_non_exhaustive()
    }
}

/// Writes `zone`'s configuration into `dir` and starts dnsmasq in the foreground on `port`.
fn spawn(program: &Path, dir: &Path, port: u16, silent: &UdpSocket, zone: &DnsZone) -> Child {
    let silent_port = silent
        .local_addr()
        .expect("the silent socket's port")
        .port();
    let config = dir.join("zone.conf");
    std::fs::write(&config, zone.config(silent_port)).expect("the zone's configuration written");
    let log = File::options()
        .create(true)
        .append(true)
        .open(dir.join("dnsmasq.log"))
        .expect("dnsmasq's log file");
    let mut command = Command::new(program);
    command
        .arg("--keep-in-foreground")
        .arg(format!("--port={port}"))
        .args(["--listen-address=127.0.0.1", "--bind-interfaces"])
        .args(["--no-resolv", "--no-hosts", "--no-poll"])
        .arg(format!("--conf-file={}", config.display()))
        .arg(format!("--pid-file={}", dir.join("dnsmasq.pid").display()))
        .arg(format!("--local-ttl={RECORD_TTL}"))
        .args(["--cache-size=0", "--log-facility=-", "--log-queries"]);
    if running_as_root() {
        command.arg("--user=nobody");
    }
    command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("dnsmasq runs")
}

/// Kills dnsmasq by its pid, reaps it, and removes its pid file (so the watchdog never kills
/// a later process that reused the pid).
fn stop(process: &mut Child, dir: &Path) {
    let _ = process.kill();
    let _ = process.wait();
    let _ = std::fs::remove_file(dir.join("dnsmasq.pid"));
}

/// Whether a DNS server on `address` answers a question (any answer: NXDOMAIN will do) within
/// 100 ms.
fn answers(address: SocketAddr) -> bool {
    let Ok(socket) = UdpSocket::bind((Ipv4Addr::LOCALHOST, 0)) else {
        return false;
    };
    let _ = socket.set_read_timeout(Some(Duration::from_millis(100)));
    // Header: id 0x5151, flags "recursion desired", one question; then `ready.invalid. IN A`.
    let mut query = vec![0x51, 0x51, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0];
    for label in ["ready", "invalid"] {
        query.push(label.len() as u8);
        query.extend_from_slice(label.as_bytes());
    }
    query.extend_from_slice(&[0, 0, 1, 0, 1]);
    if socket.send_to(&query, address).is_err() {
        return false;
    }
    let mut reply = [0u8; 512];
    matches!(socket.recv_from(&mut reply), Ok((n, _)) if n >= 12 && reply[..2] == [0x51, 0x51])
}

/// A loopback port free for both UDP and TCP right now (a DNS server listens on both).
fn free_udp_and_tcp_port() -> u16 {
    for _ in 0..100 {
        let udp = UdpSocket::bind((Ipv4Addr::LOCALHOST, 0)).expect("a loopback UDP socket");
        let port = udp.local_addr().expect("a bound port").port();
        if TcpListener::bind((Ipv4Addr::LOCALHOST, port)).is_ok() {
            return port;
        }
    }
    panic!("no loopback port free for both UDP and TCP in 100 tries");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_zone_is_written_as_dnsmasq_configuration_lines() {
        let zone = DnsZone::new()
            .txt("_qr-verify.Brand.test", &["token", "v=1, more"])
            .cname("go.brand.test", "edge.test")
            .a("edge.test", Ipv4Addr::new(192, 0, 2, 1))
            .aaaa("edge.test", Ipv6Addr::LOCALHOST);
        let config = zone.config(5300);
        let lines: Vec<&str> = config.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(
            lines,
            [
                "local=/#/",
                "server=/slow.test/127.0.0.1#5300",
                "txt-record=_qr-verify.brand.test,\"token\",\"v=1, more\"",
                "cname=go.brand.test,edge.test",
                "host-record=edge.test,192.0.2.1",
                "host-record=edge.test,::1",
            ]
        );
        let without = zone.without("edge.test").config(5300);
        assert!(!without.contains("host-record"), "{without}");
        assert!(without.contains("cname=go.brand.test"), "{without}");
    }

    #[test]
    #[should_panic(expected = "a DNS name")]
    fn a_name_that_could_break_the_configuration_is_refused() {
        let _ = DnsZone::new().a("evil.test\nserver=/#/8.8.8.8", Ipv4Addr::LOCALHOST);
    }

    #[test]
    #[should_panic(expected = "TXT character-string")]
    fn a_txt_string_with_a_quote_is_refused() {
        let _ = DnsZone::new().txt("a.test", &["say \"hi\""]);
    }
}
