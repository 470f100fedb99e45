//! GeoIP operations: a running `qr serve` follows its City database file (atomic replacement,
//! SIGHUP, broken and wrong files refused), and `qr geoip update` installs downloads served by a
//! local HTTP server (MaxMind's tar.gz with a licence key, DB-IP's .mmdb.gz without), refusing
//! corrupt ones and HTTP errors with the old file untouched and the key never shown.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{Server, Workspace, qr};

fn testdata(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/testdata/geoip")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Database A: the MaxMind City test database (81.2.69.142 is GB, London).
fn city_a() -> Vec<u8> {
    testdata("GeoIP2-City-Test.mmdb")
}

/// `bytes` with the one occurrence of `from` replaced by `to` (same length, so the database's
/// offsets stay valid and it still verifies).
fn patched(bytes: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    assert_eq!(from.len(), to.len());
    let at: Vec<usize> = bytes
        .windows(from.len())
        .enumerate()
        .filter(|(_, w)| *w == from)
        .map(|(i, _)| i)
        .collect();
    assert_eq!(at.len(), 1, "{from:?} occurs once");
    let mut out = bytes.to_vec();
    out[at[0]..at[0] + to.len()].copy_from_slice(to);
    out
}

/// Database B: A with its one country code string `GB` (a 2-byte UTF-8 string, control byte
/// 0x42) made `FR`, so the same address maps differently.
fn city_b() -> Vec<u8> {
    patched(&city_a(), b"\x42GB", b"\x42FR")
}

/// A with the metadata's type `GeoIP2-City` made `GeoIP2-Anon`: valid, but not a City database.
fn wrong_type() -> Vec<u8> {
    patched(&city_a(), b"KGeoIP2-City", b"KGeoIP2-Anon")
}

/// Writes beside `path` and renames over it, as an updater does.
fn replace_atomically(path: &Path, bytes: &[u8]) {
    let temp = path.with_extension("new");
    std::fs::write(&temp, bytes).unwrap();
    std::fs::rename(&temp, path).unwrap();
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .proxy(None)
        .build()
        .into()
}

/// One scan of `code` from 81.2.69.142 (through the trusted proxy 127.0.0.1), then the country
/// the server stored for it. Each scan has its own User-Agent, so the per-visitor limit of 10
/// scans a minute never applies.
fn scan_country(server: &Server, key: &str, link: &Value, n: usize) -> String {
    let code = link["shortCode"].as_str().unwrap();
    let redirect = agent()
        .get(format!("{}/r/{code}", server.base))
        .header("X-Forwarded-For", "81.2.69.142")
        .header(
            "User-Agent",
            format!("Mozilla/5.0 (X11; Linux x86_64; rv:126.0) Gecko/20100101 Firefox/126.{n}"),
        )
        .call()
        .unwrap();
    assert_eq!(redirect.status().as_u16(), 302);
    let id = link["id"].as_str().unwrap();
    let answer = server.get(&format!("/api/analytics?linkId={id}&limit=1"), key);
    assert_eq!(answer.status, 200);
    let report: Value = serde_json::from_slice(&answer.body).unwrap();
    report["recentScans"][0]["country"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Scans until the stored country is `want`, for at most `limit`; returns how long it took.
fn wait_for_country(
    server: &Server,
    key: &str,
    link: &Value,
    n: &mut usize,
    want: &str,
    limit: Duration,
) -> Duration {
    let start = Instant::now();
    loop {
        *n += 1;
        let got = scan_country(server, key, link, *n);
        if got == want {
            return start.elapsed();
        }
        assert!(
            start.elapsed() < limit,
            "still {got}, not {want}, after {limit:?}; log:\n{}",
            server.log()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn wait_for_log(server: &Server, text: &str, count: usize) {
    let start = Instant::now();
    while server.log().matches(text).count() < count {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "no {count}th {text:?} in the log:\n{}",
            server.log()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_running_server_reloads_its_geoip_database_on_change_and_on_sighup() {
    let ws = Workspace::new();
    let geo = ws.path("city.mmdb");
    std::fs::write(&geo, city_a()).unwrap();
    let geo_text = geo.display().to_string();
    let server = Server::start_with(
        &ws,
        &[],
        &[
            ("QR_GEOIP_DB", &geo_text),
            ("QR_TRUSTED_PROXIES", "127.0.0.1"),
            ("RUST_LOG", "info"),
        ],
    );
    wait_for_log(&server, "GeoIP database loaded", 1);
    assert!(server.log().contains("GeoIP2-City"), "{}", server.log());
    let key = ws.create_key("geo@example.com", "pro");
    let link: Value = serde_json::from_slice(
        &agent()
            .post(format!("{}/api/links", server.base))
            .header("Authorization", format!("Bearer {key}"))
            .header("Content-Type", "application/json")
            .send(json!({"name": "Geo", "targetUrl": "https://example.com/"}).to_string())
            .unwrap()
            .body_mut()
            .read_to_vec()
            .unwrap(),
    )
    .unwrap();
    let mut n = 0;
    assert_eq!(scan_country(&server, &key, &link, n), "GB");

    // B renamed over A: the next scans get B's answer within the 2 s poll (10 s allowed for a
    // loaded machine).
    replace_atomically(&geo, &city_b());
    let took = wait_for_country(&server, &key, &link, &mut n, "FR", Duration::from_secs(10));
    eprintln!("the replaced database answered after {took:?}");
    wait_for_log(&server, "GeoIP database loaded", 2);

    // A broken file and then a database of the wrong type are refused: B stays in force.
    replace_atomically(&geo, &b"not a MaxMind database ".repeat(200));
    wait_for_log(&server, "GeoIP database not reloaded", 1);
    n += 1;
    assert_eq!(scan_country(&server, &key, &link, n), "FR");
    replace_atomically(&geo, &wrong_type());
    wait_for_log(&server, "GeoIP database not reloaded", 2);
    assert!(server.log().contains("GeoIP2-Anon"), "{}", server.log());
    n += 1;
    assert_eq!(scan_country(&server, &key, &link, n), "FR");

    // A written in place over the wrong-type file, same size, same inode and the old
    // modification time: the poll cannot see it, SIGHUP loads it at once.
    let before = std::fs::metadata(&geo).unwrap();
    let a = city_a();
    assert_eq!(before.len(), a.len() as u64);
    let mut file = std::fs::OpenOptions::new().write(true).open(&geo).unwrap();
    file.write_all(&a).unwrap();
    file.set_modified(before.modified().unwrap()).unwrap();
    file.sync_all().unwrap();
    drop(file);
    std::thread::sleep(Duration::from_secs(3));
    n += 1;
    assert_eq!(
        scan_country(&server, &key, &link, n),
        "FR",
        "an unchanged identity is not reloaded by the poll"
    );
    let status = std::process::Command::new("kill")
        .args(["-HUP", &server.pid().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let took = wait_for_country(&server, &key, &link, &mut n, "GB", Duration::from_secs(3));
    eprintln!("SIGHUP's database answered after {took:?}");
    assert!(server.log().contains("SIGHUP"), "{}", server.log());
    server.stop();
}

/// A local HTTP server answering every request with `status` and `body`; returns its base URL
/// and the request lines it received.
fn serve(status: u16, body: Vec<u8>) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let requests = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&requests);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            seen.lock().unwrap().push(line.trim_end().to_owned());
            loop {
                let mut header = String::new();
                if reader.read_line(&mut header).unwrap() == 0 || header.trim().is_empty() {
                    break;
                }
            }
            let head = format!(
                "HTTP/1.1 {status} Status\r\nContent-Type: application/octet-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(&body);
        }
    });
    (base, requests)
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

/// A tar.gz laid out as MaxMind's: a dated directory with text files and the database.
fn maxmind_archive(database: Option<&[u8]>) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    let mut add = |name: &str, data: &[u8]| {
        let mut header = tar::Header::new_gnu();
        header.set_size(data.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        builder.append_data(&mut header, name, data).unwrap();
    };
    add(
        "GeoLite2-City_20240503/COPYRIGHT.txt",
        b"Database and Contents Copyright (c) 2024 MaxMind, Inc.\n",
    );
    if let Some(db) = database {
        add("GeoLite2-City_20240503/GeoLite2-City.mmdb", db);
    }
    add(
        "GeoLite2-City_20240503/LICENSE.txt",
        b"GeoLite2 End User License Agreement\n",
    );
    gzip(&builder.into_inner().unwrap())
}

/// `qr geoip update` in the workspace, with no proxy in the way and no key from the environment.
fn update(ws: &Workspace, args: &[&str]) -> assert_cmd::Command {
    let mut cmd = qr();
    cmd.current_dir(ws.dir.path())
        .env_remove("QR_MAXMIND_LICENSE_KEY")
        .args(["geoip", "update", "--geoip-db", "city.mmdb"])
        .args(args);
    for var in [
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
    ] {
        cmd.env_remove(var);
    }
    cmd
}

/// The files of the workspace's directory: no temporary file may be left behind.
fn files(ws: &Workspace) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(ws.dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn update_installs_maxminds_tar_gz_with_the_licence_key_never_shown() {
    let ws = Workspace::new();
    std::fs::write(ws.path("city.mmdb"), city_a()).unwrap();
    let lite = testdata("GeoLite2-City-Test.mmdb");
    let (base, requests) = serve(200, maxmind_archive(Some(&lite)));
    let key = "k3y_Secret-9f8e7d";
    let output = update(&ws, &["--url", &format!("{base}/app/geoip_download")])
        .env("QR_MAXMIND_LICENSE_KEY", key)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(std::fs::read(ws.path("city.mmdb")).unwrap(), lite);
    assert!(stdout.contains("GeoLite2-City"), "{stdout}");
    assert!(stdout.contains("license_key=REDACTED"), "{stdout}");
    assert!(!stdout.contains(key) && !stderr.contains(key));
    let line = requests.lock().unwrap()[0].clone();
    assert!(line.starts_with("GET /app/geoip_download?"), "{line}");
    for part in [
        "edition_id=GeoLite2-City",
        &format!("license_key={key}"),
        "suffix=tar.gz",
    ] {
        assert!(line.contains(part), "{line} lacks {part}");
    }
    assert_eq!(files(&ws), ["city.mmdb"]);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(ws.path("city.mmdb"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(
            mode & 0o044,
            0o044,
            "readable by the server's user: {mode:o}"
        );
    }
}

#[test]
fn update_installs_a_dbip_mmdb_gz_without_a_key() {
    let ws = Workspace::new();
    let (base, requests) = serve(200, gzip(&city_b()));
    let url = format!("{base}/free/dbip-city-lite-2024-05.mmdb.gz");
    let output = update(&ws, &["--url", &url, "--json"]).output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["databaseType"], "GeoIP2-City");
    assert_eq!(report["bytes"], city_b().len());
    assert!(
        report["builtAt"].as_str().unwrap().starts_with("20"),
        "{report}"
    );
    assert_eq!(std::fs::read(ws.path("city.mmdb")).unwrap(), city_b());
    assert_eq!(
        requests.lock().unwrap()[0],
        "GET /free/dbip-city-lite-2024-05.mmdb.gz HTTP/1.1"
    );
    assert_eq!(files(&ws), ["city.mmdb"]);
}

#[test]
fn corrupt_and_wrong_downloads_leave_the_old_file_untouched() {
    let valid = gzip(&city_b());
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "truncated gzip",
            valid[..valid.len() / 2].to_vec(),
            "read to its end",
        ),
        (
            "gzip of garbage",
            gzip(&b"garbage ".repeat(500)),
            "not a usable City database",
        ),
        ("wrong type", gzip(&wrong_type()), "GeoIP2-Anon"),
        (
            "archive without a database",
            maxmind_archive(None),
            "no .mmdb file",
        ),
        ("empty body", Vec::new(), "empty"),
    ];
    for (what, body, message) in cases {
        let ws = Workspace::new();
        std::fs::write(ws.path("city.mmdb"), city_a()).unwrap();
        let (base, _) = serve(200, body);
        let output = update(&ws, &["--url", &format!("{base}/db.mmdb.gz")])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{what}: {stderr}");
        assert!(stderr.contains(message), "{what}: {stderr}");
        assert_eq!(
            std::fs::read(ws.path("city.mmdb")).unwrap(),
            city_a(),
            "{what}"
        );
        assert_eq!(files(&ws), ["city.mmdb"], "{what}: no temporary file left");
    }
}

#[test]
fn http_errors_are_reported_without_the_licence_key() {
    let ws = Workspace::new();
    std::fs::write(ws.path("city.mmdb"), city_a()).unwrap();
    let (base, _) = serve(401, b"Invalid license key\n".to_vec());
    let key = "bad_key_0123456789";
    let output = update(
        &ws,
        &[
            "--url",
            &format!("{base}/app/geoip_download"),
            "--license-key",
            key,
        ],
    )
    .output()
    .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("HTTP 401 (Invalid license key)"),
        "{stderr}"
    );
    assert!(stderr.contains("license_key=REDACTED"), "{stderr}");
    assert!(!stderr.contains(key), "{stderr}");
    assert_eq!(std::fs::read(ws.path("city.mmdb")).unwrap(), city_a());
    assert_eq!(files(&ws), ["city.mmdb"]);

    // Nobody listening: a clear error, the file untouched.
    let closed = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let output = update(&ws, &["--url", &format!("http://{closed}/db.mmdb.gz")])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("cannot download"), "{stderr}");
    assert_eq!(std::fs::read(ws.path("city.mmdb")).unwrap(), city_a());

    // A URL that is not http(s) is a usage error.
    update(&ws, &["--url", "ftp://example.com/x"])
        .assert()
        .code(2);
}
