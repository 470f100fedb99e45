//! Webhooks end to end with the real `qr serve`: a receiver that fails for a while, then `kill -9` of the server with deliveries pending, a restart, and every event received at least once with a signature Python's hmac module accepts; and `qr webhooks add` refusing a non-public host unless private ones are allowed.

use std::collections::{BTreeSet, HashSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{Server, Workspace};

/// A request the receiver got: its signature header and body.
#[derive(Debug, Clone)]
struct Received {
    signature: String,
    body: String,
}

/// A local HTTP endpoint answering every POST with the current status.
struct Receiver {
    port: u16,
    status: Arc<AtomicU16>,
    seen: Arc<Mutex<Vec<Received>>>,
}

impl Receiver {
    fn start(status: u16) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let status = Arc::new(AtomicU16::new(status));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (answer, log) = (Arc::clone(&status), Arc::clone(&seen));
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let (mut length, mut signature) = (0usize, String::new());
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                    let (name, value) = line.split_once(':').unwrap_or((&line, ""));
                    match name.to_ascii_lowercase().as_str() {
                        "content-length" => length = value.trim().parse().unwrap_or(0),
                        "qr-signature" => signature = value.trim().to_owned(),
                        _ => {}
                    }
                }
                let mut body = vec![0; length];
                if reader.read_exact(&mut body).is_err() {
                    continue;
                }
                let code = answer.load(Ordering::SeqCst);
                log.lock().unwrap().push(Received {
                    signature,
                    body: String::from_utf8(body).unwrap(),
                });
                let _ = write!(
                    stream,
                    "HTTP/1.1 {code} X\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
                );
            }
        });
        Self { port, status, seen }
    }

    fn seen(&self) -> Vec<Received> {
        self.seen.lock().unwrap().clone()
    }

    /// The event ids received in 2xx-answered or any requests: a scan batch's scans by their
    /// own `eventId`, other events by `id`.
    fn event_ids(&self) -> HashSet<String> {
        let mut ids = HashSet::new();
        for r in self.seen() {
            let body: Value = serde_json::from_str(&r.body).unwrap();
            match body["data"]["scans"].as_array() {
                Some(scans) => ids.extend(
                    scans
                        .iter()
                        .map(|s| s["eventId"].as_str().unwrap().to_owned()),
                ),
                None => {
                    ids.insert(body["id"].as_str().unwrap().to_owned());
                }
            }
        }
        ids
    }

    /// (type, link name or scan id) of every event received.
    fn events(&self) -> BTreeSet<(String, String)> {
        let mut events = BTreeSet::new();
        for r in self.seen() {
            let body: Value = serde_json::from_str(&r.body).unwrap();
            let kind = body["type"].as_str().unwrap().to_owned();
            match body["data"]["scans"].as_array() {
                Some(scans) => {
                    for s in scans {
                        events.insert((kind.clone(), s["scanId"].as_str().unwrap().to_owned()));
                    }
                }
                None => {
                    let name = body["data"]["link"]["name"].as_str().unwrap_or("");
                    events.insert((kind, name.to_owned()));
                }
            }
        }
        events
    }
}

fn wait_for(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let started = Instant::now();
    while !done() {
        assert!(started.elapsed() < limit, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

const ENV: &[(&str, &str)] = &[
    ("QR_WEBHOOKS_ALLOW_PRIVATE", "1"),
    ("QR_WEBHOOK_BACKOFF_BASE", "200ms"),
    ("QR_WEBHOOK_TIMEOUT", "2s"),
];

#[test]
fn deliveries_survive_a_failing_receiver_and_kill_9_and_verify_in_python() {
    let ws = Workspace::new();
    let key = ws.create_key("hooks@example.com", "pro");
    let receiver = Receiver::start(500);
    let server = Server::start_with(&ws, &[], ENV);
    let created = server.send_json(
        "POST",
        "/api/webhooks",
        &key,
        &format!(
            r#"{{"url":"http://127.0.0.1:{}/hook","events":["link.created","link.updated","link.deleted","scan.recorded"]}}"#,
            receiver.port
        ),
    );
    assert_eq!(
        created.status,
        201,
        "{}",
        String::from_utf8_lossy(&created.body)
    );
    let hook: Value = serde_json::from_slice(&created.body).unwrap();
    let secret = hook["secret"].as_str().unwrap().to_owned();
    let listed = server.get("/api/webhooks", &key);
    assert!(
        !String::from_utf8_lossy(&listed.body).contains(&secret),
        "never listed"
    );

    let mut codes = Vec::new();
    for i in 0..4 {
        let link = server.send_json(
            "POST",
            "/api/links",
            &key,
            &format!(r#"{{"name":"Flyer {i}","targetUrl":"https://example.com/{i}"}}"#),
        );
        assert_eq!(link.status, 201);
        let link: Value = serde_json::from_slice(&link.body).unwrap();
        codes.push((
            link["id"].as_str().unwrap().to_owned(),
            link["shortCode"].as_str().unwrap().to_owned(),
        ));
    }
    let (first_id, first_code) = codes[0].clone();
    let renamed = server.send_json(
        "PUT",
        &format!("/api/links?id={first_id}"),
        &key,
        r#"{"name":"Poster"}"#,
    );
    assert_eq!(renamed.status, 200);
    for _ in 0..3 {
        assert_eq!(server.get(&format!("/r/{first_code}"), &key).status, 302);
    }
    let deleted = server.send_json("DELETE", &format!("/api/links?id={}", codes[3].0), &key, "");
    assert_eq!(deleted.status, 204);
    // The receiver answers 500: every event is tried, retried with backoff, and stays pending.
    wait_for("failed attempts", Duration::from_secs(30), || {
        receiver.seen().len() >= 12
    });
    server.kill();

    receiver.status.store(200, Ordering::SeqCst);
    let before = receiver.event_ids();
    let server = Server::start_with(&ws, &[], ENV);
    // 4 created, 1 updated, 1 deleted, 3 scans: every one at least once after the restart
    // (claimed rows of the killed server come back when their 6 s lease ends).
    let expected: BTreeSet<(String, String)> = (0..4)
        .map(|i| ("link.created".to_owned(), format!("Flyer {i}")))
        .chain([
            ("link.updated".to_owned(), "Poster".to_owned()),
            ("link.deleted".to_owned(), "Flyer 3".to_owned()),
        ])
        .collect();
    wait_for("every event delivered", Duration::from_secs(60), || {
        let events = receiver.events();
        expected.is_subset(&events)
            && events.iter().filter(|(k, _)| k == "scan.recorded").count() == 3
    });
    assert!(before.is_subset(&receiver.event_ids()));
    let deliveries = ws.ok(&[
        "webhooks",
        "deliveries",
        "--email",
        "hooks@example.com",
        "--json",
    ]);
    let deliveries: Value = serde_json::from_str(&deliveries).unwrap();
    wait_for(
        "the outbox to show them delivered",
        Duration::from_secs(10),
        || {
            let out = ws.ok(&[
                "webhooks",
                "deliveries",
                "--email",
                "hooks@example.com",
                "--json",
            ]);
            let list: Value = serde_json::from_str(&out).unwrap();
            list["deliveries"]
                .as_array()
                .unwrap()
                .iter()
                .all(|d| d["state"] == "delivered")
        },
    );
    assert_eq!(deliveries["deliveries"].as_array().unwrap().len(), 9);
    server.stop();

    // Every request's signature, checked by an independent implementation.
    let seen = receiver.seen();
    let dir = ws.path("signed");
    std::fs::create_dir(&dir).unwrap();
    for (i, r) in seen.iter().enumerate() {
        std::fs::write(dir.join(format!("{i}.sig")), &r.signature).unwrap();
        std::fs::write(dir.join(format!("{i}.body")), &r.body).unwrap();
    }
    let script = r#"
import hashlib, hmac, pathlib, sys
secret, folder = sys.argv[1].encode(), pathlib.Path(sys.argv[2])
checked = 0
for sig in sorted(folder.glob("*.sig")):
    fields = dict(part.split("=", 1) for part in sig.read_text().split(","))
    body = sig.with_suffix(".body").read_bytes()
    mac = hmac.new(secret, fields["t"].encode() + b"." + body, hashlib.sha256).hexdigest()
    assert hmac.compare_digest(mac, fields["v1"]), sig
    checked += 1
print(checked)
"#;
    let out = std::process::Command::new("python3")
        .args(["-c", script, &secret, dir.to_str().unwrap()])
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        seen.len().to_string()
    );
}

#[test]
fn add_refuses_a_non_public_host_unless_private_ones_are_allowed() {
    let ws = Workspace::new();
    ws.create_key("local@example.com", "free");
    let add = |url: &str, extra: &[&str], env: Option<&str>| {
        let mut args = vec![
            "webhooks",
            "add",
            "--email",
            "local@example.com",
            "--url",
            url,
            "--events",
            "link.created",
        ];
        args.extend_from_slice(extra);
        let mut cmd = ws.qr(&args);
        match env {
            Some(value) => cmd.env("QR_WEBHOOKS_ALLOW_PRIVATE", value),
            None => cmd.env_remove("QR_WEBHOOKS_ALLOW_PRIVATE"),
        };
        cmd.output().expect("qr runs")
    };
    let refused = add("http://127.0.0.1:9/hook", &[], None);
    assert_eq!(refused.status.code(), Some(2), "a usage error");
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains(
            "Invalid url: 127.0.0.1 is a loopback address; webhooks are only delivered to public addresses"
        ),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    let refused = add("http://169.254.169.254/latest/hook", &[], Some("false"));
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("a cloud metadata address"));
    assert!(
        add("http://127.0.0.1:9/a", &["--allow-private"], None)
            .status
            .success()
    );
    assert!(add("http://[::1]:9/b", &[], Some("1")).status.success());
    let list = ws.ok(&["webhooks", "list", "--email", "local@example.com", "--json"]);
    let hooks: Value = serde_json::from_str(&list).unwrap();
    assert_eq!(hooks["webhooks"].as_array().unwrap().len(), 2);
}
