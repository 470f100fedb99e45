//! Test helpers: running the `qr` binary, decoding images (qr-test-support), and a temporary database.

use std::path::{Path, PathBuf};

/// Images decoded back to their content: the workspace's shared helpers. `decode` is the one that
/// wants exactly one readable code of text.
pub use qr_test_support::{Luma, decode_image, decode_single as decode, png_luma, svg_luma};

/// The `qr` binary built for these tests.
pub fn qr() -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::new(env!("CARGO_BIN_EXE_qr"));
    // The tests never depend on the environment they run in.
    for var in [
        "QR_DB",
        "QR_REDIS_URL",
        "QR_LISTEN",
        "QR_BASE_URL",
        "QR_GEOIP_DB",
        "QR_TRUSTED_PROXIES",
        "QR_ALLOW_PRIVATE_LOGO_HOSTS",
        "QR_SIGNUP",
        "QR_SELF_SERVICE_PLANS",
        "QR_SMTP_URL",
        "QR_MAIL_FROM",
        "NO_COLOR",
    ] {
        cmd.env_remove(var);
    }
    cmd
}

/// A temporary directory with a database path in it.
pub struct Workspace {
    /// The directory (removed on drop).
    pub dir: tempfile::TempDir,
}

impl Workspace {
    /// A new empty directory.
    pub fn new() -> Self {
        Self {
            dir: tempfile::tempdir().expect("a temporary directory"),
        }
    }

    /// A path inside the directory.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// The database file.
    pub fn db(&self) -> PathBuf {
        self.path("qr.db")
    }

    /// `qr` with `--db` pointing at this workspace's database, run from the directory.
    pub fn qr(&self, args: &[&str]) -> assert_cmd::Command {
        let mut cmd = qr();
        cmd.current_dir(self.dir.path())
            .env("QR_DB", self.db())
            .args(args);
        cmd
    }

    /// Runs `qr` and returns its standard output, failing the test if it fails.
    pub fn ok(&self, args: &[&str]) -> String {
        let output = self.qr(args).output().expect("qr runs");
        assert!(
            output.status.success(),
            "qr {args:?} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).expect("UTF-8 output")
    }

    /// Creates a key (and its account) and returns the key.
    pub fn create_key(&self, email: &str, plan: &str) -> String {
        let key = self.ok(&["keys", "create", "--email", email, "--plan", plan]);
        key.trim_end().to_owned()
    }
}

/// Reads a file, failing the test with its path if that is impossible.
pub fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// An HTTP client that returns every status as an answer, follows no redirect and uses no proxy.
fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .proxy(None)
        .build()
        .into()
}

/// A `qr serve` process on 127.0.0.1, stopped when dropped.
pub struct Server {
    child: Option<std::process::Child>,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    log: PathBuf,
}

/// An HTTP answer: status, headers and body.
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Answer {
    /// The first value of the header `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

impl Server {
    /// Starts `qr serve` on a free port of 127.0.0.1 with the workspace's database (given through
    /// the environment, as an operator would) and waits until it accepts connections.
    pub fn start(ws: &Workspace) -> Self {
        Self::start_with(ws, &[], &[("RUST_LOG", "warn")])
    }

    /// [`Server::start`] with more `qr serve` arguments and environment variables.
    pub fn start_with(ws: &Workspace, args: &[&str], envs: &[(&str, &str)]) -> Self {
        // Bind port 0 to learn a free port, then release it for the server.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let addr = format!("127.0.0.1:{port}");
        let log = ws.path(&format!("serve-{port}.log"));
        let log_file = std::fs::File::create(&log).unwrap();
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_qr"))
            .arg("serve")
            .args(args)
            .env("QR_LISTEN", &addr)
            .env("QR_DB", ws.db())
            .env_remove("QR_BASE_URL")
            .env_remove("QR_TRUSTED_PROXIES")
            .envs(envs.iter().copied())
            .stdin(std::process::Stdio::null())
            .stdout(log_file.try_clone().unwrap())
            .stderr(log_file)
            .spawn()
            .expect("qr serve starts");
        let mut server = Self {
            child: Some(child),
            base: format!("http://{addr}"),
            log,
        };
        server.wait_until_ready(&addr);
        server
    }

    fn wait_until_ready(&mut self, addr: &str) {
        // A readiness wait with a generous limit, not a timing assertion. The port accepts
        // connections before the database is open, so readiness is an HTTP answer (a 401 here).
        for _ in 0..3000 {
            if agent()
                .get(format!("http://{addr}/api/health"))
                .call()
                .is_ok()
            {
                return;
            }
            let child = self.child.as_mut().unwrap();
            if let Some(status) = child.try_wait().unwrap() {
                panic!(
                    "qr serve exited with {status}: {}",
                    std::fs::read_to_string(&self.log).unwrap_or_default()
                );
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        panic!("qr serve did not start listening on {addr}");
    }

    /// The process id, for signals.
    pub fn pid(&self) -> u32 {
        self.child.as_ref().map_or(0, std::process::Child::id)
    }

    /// What the server has logged so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// GET `path` with the key in the Authorization header, without following redirects.
    pub fn get(&self, path: &str, key: &str) -> Answer {
        self.browser_get(path, ("Authorization", &format!("Bearer {key}")))
    }

    /// GET `path` as a proxied visitor at `client` (`X-Forwarded-For`), with no key.
    pub fn get_from(&self, path: &str, client: &str) -> Answer {
        self.browser_get(path, ("X-Forwarded-For", client))
    }

    /// GET `path` with a browser's User-Agent and one more header.
    fn browser_get(&self, path: &str, (name, value): (&str, &str)) -> Answer {
        let response = agent()
            .get(format!("{}{path}", self.base))
            .header(name, value)
            .header(
                "User-Agent",
                "Mozilla/5.0 (X11; Linux x86_64) Firefox/126.0",
            )
            .call()
            .expect("an HTTP answer");
        answer(response)
    }

    /// POST a JSON `body` to `path` with the key in the Authorization header.
    pub fn post_json(&self, path: &str, key: &str, body: &str) -> Answer {
        let response = agent()
            .post(format!("{}{path}", self.base))
            .header("Authorization", format!("Bearer {key}"))
            .header("Content-Type", "application/json")
            .send(body)
            .expect("an HTTP answer");
        answer(response)
    }

    /// What the server wrote on standard output and standard error so far.
    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Sends `body` (JSON) with `method` to `path` with the key.
    pub fn send_json(&self, method: &str, path: &str, key: &str, body: &str) -> Answer {
        let request = ureq::http::Request::builder()
            .method(method)
            .uri(format!("{}{path}", self.base))
            .header("Authorization", format!("Bearer {key}"))
            .header("Content-Type", "application/json")
            .body(body.to_owned())
            .expect("a request");
        answer(agent().run(request).expect("an HTTP answer"))
    }

    /// Kills the server with SIGKILL (no shutdown at all) and waits for it to end.
    pub fn kill(mut self) {
        let mut child = self.child.take().unwrap();
        child.kill().expect("SIGKILL");
        let _ = child.wait();
    }

    /// Stops the server with SIGTERM, as an operator would, waits for it to finish, and returns
    /// what it wrote.
    pub fn stop(mut self) -> String {
        let mut child = self.child.take().unwrap();
        let status = std::process::Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success());
        let exit = child.wait().unwrap();
        assert!(
            exit.success(),
            "qr serve exited with {exit}: {}",
            std::fs::read_to_string(&self.log).unwrap_or_default()
        );
        self.log_text()
    }
}

fn answer(mut response: ureq::http::Response<ureq::Body>) -> Answer {
    Answer {
        status: response.status().as_u16(),
        headers: response
            .headers()
            .iter()
            .map(|(n, v)| (n.as_str().to_owned(), v.to_str().unwrap_or("").to_owned()))
            .collect(),
        body: response.body_mut().read_to_vec().expect("a body"),
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
