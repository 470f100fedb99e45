//! A real SMTP server on loopback for tests: it speaks the protocol over TCP (greeting, EHLO/HELO, MAIL FROM, RCPT TO, DATA with dot-unstuffing, RSET, NOOP, QUIT) and keeps every message it receives.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// A message as the server received it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReceivedMail {
    /// The envelope sender (`MAIL FROM`).
    pub from: String,
    /// The envelope recipients (`RCPT TO`).
    pub to: Vec<String>,
    /// The message: headers, a blank line, the body (CRLF line ends, dots unstuffed).
    pub data: String,
}

impl ReceivedMail {
    /// The body as a reader sees it: after the headers, quoted-printable decoded when the
    /// message says so (soft line breaks joined, `=XX` bytes restored).
    pub fn body(&self) -> String {
        let body = self.data.split_once("\r\n\r\n").map_or("", |(_, b)| b);
        let quoted = self
            .header("content-transfer-encoding")
            .is_some_and(|e| e.eq_ignore_ascii_case("quoted-printable"));
        if !quoted {
            return body.to_owned();
        }
        let joined = body.replace("=\r\n", "");
        let bytes = joined.as_bytes();
        let mut out = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            match (bytes[i], hex) {
                (b'=', Some(byte)) => {
                    out.push(byte);
                    i += 3;
                }
                (b, _) => {
                    out.push(b);
                    i += 1;
                }
            }
        }
        String::from_utf8_lossy(&out).into_owned()
    }

    /// The first `http://` or `https://` address in the body that contains `part`.
    pub fn link_containing(&self, part: &str) -> Option<String> {
        self.body()
            .split_whitespace()
            .filter(|w| w.starts_with("http://") || w.starts_with("https://"))
            .find(|w| w.contains(part))
            .map(str::to_owned)
    }

    /// The value of a header (the first line of it).
    pub fn header(&self, name: &str) -> Option<String> {
        self.data
            .split("\r\n")
            .take_while(|l| !l.is_empty())
            .find_map(|l| {
                let (k, v) = l.split_once(':')?;
                k.eq_ignore_ascii_case(name).then(|| v.trim().to_owned())
            })
    }
}

type Inbox = Arc<(Mutex<Vec<ReceivedMail>>, Condvar)>;

/// An SMTP server listening on `127.0.0.1` on a free port, for as long as the value lives.
#[derive(Debug)]
pub struct SmtpServer {
    addr: SocketAddr,
    inbox: Inbox,
}

impl SmtpServer {
    /// Starts the server on a thread of its own.
    pub fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port for SMTP");
        let addr = listener.local_addr().expect("the SMTP port");
        let inbox: Inbox = Arc::default();
        let shared = Arc::clone(&inbox);
        std::thread::Builder::new()
            .name("test-smtp".to_owned())
            .spawn(move || {
                for stream in listener.incoming().flatten() {
                    let inbox = Arc::clone(&shared);
                    std::thread::spawn(move || {
                        // A client that disconnects midway leaves nothing behind.
                        let _ = session(stream, &inbox);
                    });
                }
            })
            .expect("the SMTP thread starts");
        Self { addr, inbox }
    }

    /// The server's address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The `smtp://` URL lettre and the server take.
    pub fn url(&self) -> String {
        format!("smtp://{}", self.addr)
    }

    /// Every message received so far.
    pub fn received(&self) -> Vec<ReceivedMail> {
        self.inbox
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Waits up to `timeout` until at least `count` messages have arrived, and returns them all.
    ///
    /// Panics, failing the test, when they do not arrive in time.
    pub fn wait_for(&self, count: usize, timeout: Duration) -> Vec<ReceivedMail> {
        let deadline = Instant::now() + timeout;
        let (lock, arrived) = &*self.inbox;
        let mut mails = lock.lock().unwrap_or_else(PoisonError::into_inner);
        while mails.len() < count {
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(
                !left.is_zero(),
                "expected {count} mails, got {}: {mails:#?}",
                mails.len()
            );
            mails = arrived
                .wait_timeout(mails, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        mails.clone()
    }
}

fn session(stream: TcpStream, inbox: &Inbox) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut out = stream.try_clone()?;
    let mut lines = BufReader::new(stream);
    out.write_all(b"220 test.invalid ESMTP ready\r\n")?;
    let (mut from, mut to) = (String::new(), Vec::new());
    let mut line = String::new();
    loop {
        line.clear();
        if lines.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let command = line.trim_end().to_owned();
        let upper = command.to_ascii_uppercase();
        if upper.starts_with("EHLO") {
            out.write_all(b"250-test.invalid\r\n250-8BITMIME\r\n250 SMTPUTF8\r\n")?;
        } else if upper.starts_with("HELO") || upper.starts_with("NOOP") {
            out.write_all(b"250 OK\r\n")?;
        } else if upper.starts_with("MAIL FROM:") {
            from = address(&command);
            to.clear();
            out.write_all(b"250 OK\r\n")?;
        } else if upper.starts_with("RCPT TO:") {
            to.push(address(&command));
            out.write_all(b"250 OK\r\n")?;
        } else if upper == "DATA" {
            out.write_all(b"354 End data with <CR><LF>.<CR><LF>\r\n")?;
            let mut data = String::new();
            loop {
                line.clear();
                if lines.read_line(&mut line)? == 0 {
                    return Ok(());
                }
                if line == ".\r\n" || line == ".\n" {
                    break;
                }
                data.push_str(line.strip_prefix('.').unwrap_or(&line));
            }
            let (lock, arrived) = &**inbox;
            lock.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(ReceivedMail {
                    from: from.clone(),
                    to: std::mem::take(&mut to),
                    data,
                });
            arrived.notify_all();
            out.write_all(b"250 OK: queued\r\n")?;
        } else if upper == "RSET" {
            from.clear();
            to.clear();
            out.write_all(b"250 OK\r\n")?;
        } else if upper == "QUIT" {
            out.write_all(b"221 Bye\r\n")?;
            return Ok(());
        } else {
            out.write_all(b"502 Command not implemented\r\n")?;
        }
    }
}

/// The address in `MAIL FROM:<a@b> SIZE=…` or `RCPT TO:<a@b>`.
fn address(command: &str) -> String {
    let start = command.find('<').map_or(0, |i| i + 1);
    let end = command[start..]
        .find('>')
        .map_or(command.len(), |i| start + i);
    command[start..end].to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_conversation_over_tcp() {
        let server = SmtpServer::start();
        let stream = TcpStream::connect(server.addr()).unwrap();
        let mut out = stream.try_clone().unwrap();
        let mut replies = BufReader::new(stream);
        let mut reply = || {
            let mut l = String::new();
            replies.read_line(&mut l).unwrap();
            l
        };
        assert!(reply().starts_with("220"));
        out.write_all(b"EHLO client\r\n").unwrap();
        assert!(reply().starts_with("250-"));
        reply();
        assert!(reply().starts_with("250 "));
        for (cmd, code) in [
            ("MAIL FROM:<a@example.com> SIZE=10\r\n", "250"),
            ("RCPT TO:<b@example.com>\r\n", "250"),
            ("DATA\r\n", "354"),
            (
                "Subject: hi\r\n\r\n..dotted\r\nsee https://x.example/verify?token=1\r\n.\r\n",
                "250",
            ),
            ("QUIT\r\n", "221"),
        ] {
            out.write_all(cmd.as_bytes()).unwrap();
            assert!(reply().starts_with(code), "{cmd}");
        }
        let mails = server.wait_for(1, Duration::from_secs(5));
        assert_eq!(mails[0].from, "a@example.com");
        assert_eq!(mails[0].to, vec!["b@example.com"]);
        assert!(mails[0].data.contains("\r\n.dotted\r\n"), "dots unstuffed");
        assert_eq!(mails[0].header("subject").as_deref(), Some("hi"));
        assert_eq!(
            mails[0].link_containing("verify").as_deref(),
            Some("https://x.example/verify?token=1")
        );
    }
}
