//! A throwaway Redis server (Debian's `redis-server`; Valkey speaks the same protocol) on a free loopback port, with its files in a temporary directory.

use std::io::{BufRead as _, BufReader, Write as _};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use super::{Watchdog, find_program, skip, temp_dir};

/// How to install Redis, for the skip message.
const INSTALL: &str = "apt-get install redis-server";

/// A running Redis server, stopped and removed when dropped.
pub struct RedisServer {
    program: PathBuf,
    dir: PathBuf,
    port: u16,
    _watchdog: Watchdog,
}

impl RedisServer {
    /// Starts a server on a free loopback port; `None` after printing the skip line when
    /// `redis-server` is not installed. Persistence is the append-only file, written once a
    /// second, so a restart keeps the data as a production server configured that way would.
    pub fn start(suite: &str) -> Option<RedisServer> {
        let Some(program) = find_program("redis-server", &[]) else {
            skip(suite, "redis-server", INSTALL);
            return None;
        };
        let dir = temp_dir("qr-redis-", None).expect("a temporary directory for Redis");
        let port = free_port();
        let pid = dir.join("redis.pid").display().to_string();
        // The watchdog kills the server by its pid file when the test process lets go.
        let stop = vec![
            "sh".to_owned(),
            "-c".to_owned(),
            r#"kill -9 "$(cat "$1")""#.to_owned(),
            "sh".to_owned(),
            pid,
        ];
        let watchdog = Watchdog::spawn(&dir, &stop).expect("the Redis watchdog starts");
        let server = RedisServer {
            program,
            dir,
            port,
            _watchdog: watchdog,
        };
        server.start_server();
        Some(server)
    }

    /// The connection URL.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// The loopback port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Sends one command (words without spaces) and returns the first line of the reply.
    pub fn command(&self, words: &[&str]) -> std::io::Result<String> {
        let mut stream = TcpStream::connect((Ipv4Addr::LOCALHOST, self.port))?;
        stream.set_read_timeout(Some(Duration::from_secs(5)))?;
        let mut request = format!("*{}\r\n", words.len());
        for word in words {
            request.push_str(&format!("${}\r\n{word}\r\n", word.len()));
        }
        stream.write_all(request.as_bytes())?;
        let mut line = String::new();
        BufReader::new(stream).read_line(&mut line)?;
        Ok(line.trim_end().to_owned())
    }

    /// Stops the server as `SHUTDOWN` does (the append-only file is written first) and waits
    /// until the port is closed.
    pub fn stop(&self) {
        // The connection closes without a reply when the server goes down.
        let _ = self.command(&["SHUTDOWN"]);
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect((Ipv4Addr::LOCALHOST, self.port)).is_ok() {
            assert!(Instant::now() < deadline, "Redis did not stop");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Starts the server (again) on the same port and directory, and waits until it answers.
    pub fn start_server(&self) {
        let status = Command::new(&self.program)
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args(["--daemonize", "yes", "--dir"])
            .arg(&self.dir)
            .arg("--pidfile")
            .arg(self.dir.join("redis.pid"))
            .arg("--logfile")
            .arg(self.dir.join("redis.log"))
            .args([
                "--save",
                "",
                "--appendonly",
                "yes",
                "--appendfsync",
                "everysec",
            ])
            .status()
            .expect("redis-server runs");
        assert!(status.success(), "redis-server did not start");
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if self.command(&["PING"]).is_ok_and(|reply| reply == "+PONG") {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "redis-server did not answer: {}",
                std::fs::read_to_string(self.dir.join("redis.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl std::fmt::Debug for RedisServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisServer")
            .field("port", &self.port)
            .finish_non_exhaustive()
    }
}

/// A loopback port nothing listens on right now.
pub fn free_port() -> u16 {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}
