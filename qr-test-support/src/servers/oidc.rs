//! A throwaway OpenID Connect provider (panva's `oidc-provider`, OpenID Certified, run by Node from `qr-test-support/oidc/provider.js`) on a free loopback port, with the test's clients and accounts, and a sign-in driven by plain HTTP the way a browser would.
//!
//! The npm package is installed by `npm ci` in `qr-test-support/oidc/` (`.ci/run` does it when
//! `node_modules` is missing); without Node or the package the suite is skipped (a failure under
//! `QR_REQUIRE_SUITES`).
//!
//! The provider prints `ready <issuer>` once it listens; until then [`OidcProviderServer::start`]
//! waits (up to 30 s). The process is the test's child, killed when the guard drops,
//! and by the watchdog through its pid file should the test process die first.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{Ipv4Addr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use super::redis::free_port;
use super::{Watchdog, find_program, skip, temp_dir};

/// How to install the provider, for the skip message.
const INSTALL: &str = "apt-get install nodejs npm; npm ci --prefix qr-test-support/oidc";

/// How long Node gets to load the provider and generate its keys: about half a second alone, but
/// once over 30 s while the dashboard's test binary ran chromium and forty servers on 2 cores.
const START_TIMEOUT: Duration = Duration::from_secs(120);

/// One HTTP exchange's time limit in [`OidcProviderServer::sign_in`].
const HTTP_TIMEOUT: Duration = Duration::from_secs(10);

/// Most redirects [`OidcProviderServer::sign_in`] follows: authorize → interaction → resume →
/// callback takes three.
const MAX_HOPS: usize = 10;

/// A client registered at the provider.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OidcClient {
    /// `client_id`.
    pub client_id: String,
    /// `client_secret`.
    pub client_secret: String,
    /// The redirect URIs it may use.
    pub redirect_uris: Vec<String>,
    /// The ID token's signing algorithm: `RS256` or `ES256` (the provider has a key of each).
    pub id_token_algorithm: String,
}

/// A person who can sign in at the provider, by typing `email` (or `sub`) in its login form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OidcAccount {
    /// The subject identifier.
    pub sub: String,
    /// The `email` claim (`None`: the claim is not released).
    pub email: Option<String>,
    /// The `email_verified` claim (`None`: not released).
    pub email_verified: Option<bool>,
}

/// What the provider is started with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OidcProviderConfig {
    /// The registered clients.
    pub clients: Vec<OidcClient>,
    /// The accounts.
    pub accounts: Vec<OidcAccount>,
    /// An ID token's lifetime (whole seconds, at least 1).
    pub id_token_ttl: Duration,
    /// The token endpoint's client authentication methods, the first being every client's
    /// registered one (`client_secret_basic` by default).
    pub client_auth_methods: Vec<String>,
}

impl Default for OidcProviderConfig {
    fn default() -> Self {
        Self {
            clients: Vec::new(),
            accounts: Vec::new(),
            id_token_ttl: Duration::from_secs(3600),
            client_auth_methods: vec![
                "client_secret_basic".to_owned(),
                "client_secret_post".to_owned(),
            ],
        }
    }
}

/// A running provider, stopped when dropped.
pub struct OidcProviderServer {
    dir: PathBuf,
    port: u16,
    process: Child,
    _watchdog: Watchdog,
}

/// The folder of `provider.js` and its `node_modules`.
fn provider_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("oidc")
}

impl OidcProviderServer {
    /// Starts the provider on a free loopback port; `None` after printing the skip line when
    /// Node or the npm package is missing (a failure under `QR_REQUIRE_SUITES`).
    pub fn start(suite: &str, config: &OidcProviderConfig) -> Option<OidcProviderServer> {
        let Some(node) = find_program("node", &[]) else {
            skip(suite, "node", INSTALL);
            return None;
        };
        let package = provider_dir().join("node_modules/oidc-provider/package.json");
        if !package.is_file() {
            skip(suite, "the oidc-provider npm package", INSTALL);
            return None;
        }
        let dir = temp_dir("qr-oidc-", None).expect("a temporary directory for the provider");
        let port = free_port();
        let pid = dir.join("node.pid");
        let stop = vec![
            "sh".to_owned(),
            "-c".to_owned(),
            r#"[ -f "$1" ] && kill -9 "$(cat "$1")""#.to_owned(),
            "sh".to_owned(),
            pid.display().to_string(),
        ];
        let watchdog = Watchdog::spawn(&dir, &stop).expect("the provider's watchdog starts");
        let log = std::fs::File::create(dir.join("provider.log")).expect("the provider's log");
        let mut process = Command::new(node)
            .current_dir(provider_dir())
            .arg("provider.js")
            .arg(config_json(port, config))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .expect("node starts");
        std::fs::write(&pid, process.id().to_string()).expect("the pid file written");
        let stdout = process
            .stdout
            .take()
            .expect("the provider's standard output");
        let (ready, lines) = mpsc::channel();
        // Reads the `ready` line, then keeps draining so the provider never blocks on a pipe.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = ready.send(line);
            }
        });
        let mut server = OidcProviderServer {
            dir,
            port,
            process,
            _watchdog: watchdog,
        };
        match lines.recv_timeout(START_TIMEOUT) {
            Ok(line) if line.starts_with("ready ") => Some(server),
            outcome => {
                let _ = server.process.kill();
                let _ = server.process.wait();
                panic!(
                    "the OpenID provider did not start ({outcome:?}): {}",
                    server.log()
                );
            }
        }
    }

    /// The issuer, `http://127.0.0.1:<port>`.
    pub fn issuer(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The loopback port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The provider's standard error so far, for a failing test's message.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("provider.log")).unwrap_or_default()
    }

    /// Signs in as a browser would: opens `authorization_url` (one of this provider's), follows
    /// its redirects with a cookie jar, fills the login form with `login` (an account's e-mail
    /// address or subject) and posts it, and follows on until a redirect leaves the provider.
    /// Returns that redirect's URL (the client's callback with `code` and `state`, or with an
    /// `error`); `Err` with the provider's answer when it stops on a page instead.
    pub fn sign_in(&self, authorization_url: &str, login: &str) -> Result<String, String> {
        let mut cookies = BTreeMap::new();
        let mut target = self
            .local_path(authorization_url)
            .ok_or_else(|| format!("{authorization_url} is not this provider's"))?;
        let mut logged_in = false;
        for _ in 0..MAX_HOPS {
            let response = match target.strip_prefix("/interaction/") {
                Some(uid) if !logged_in && !uid.contains('/') => {
                    // The login page first (as a browser shows it), then its form posted.
                    let page = self.request("GET", &target, &mut cookies, None)?;
                    let action = format!("{target}/login");
                    if page.status != 200 || !page.body.contains(&format!("action=\"{action}\"")) {
                        return Err(format!("no login form at {target}: {}", page.describe()));
                    }
                    logged_in = true;
                    let form = format!("login={}", form_encode(login));
                    self.request("POST", &action, &mut cookies, Some(&form))?
                }
                _ => self.request("GET", &target, &mut cookies, None)?,
            };
            let Some(location) = response.header("location") else {
                return Err(format!(
                    "{target} did not redirect: {}",
                    response.describe()
                ));
            };
            match self.local_path(location) {
                Some(path) => target = path,
                None => return Ok(location.to_owned()),
            }
        }
        Err(format!("more than {MAX_HOPS} redirects"))
    }

    /// The path (and query) of `url` when it points at this provider.
    fn local_path(&self, url: &str) -> Option<String> {
        if url.starts_with('/') {
            return Some(url.to_owned());
        }
        let rest = url.strip_prefix(&self.issuer())?;
        (rest.is_empty() || rest.starts_with('/') || rest.starts_with('?'))
            .then(|| format!("/{}", rest.trim_start_matches('/')))
    }

    /// One HTTP/1.1 exchange on a fresh connection, sending and keeping cookies.
    fn request(
        &self,
        method: &str,
        target: &str,
        cookies: &mut BTreeMap<String, String>,
        form: Option<&str>,
    ) -> Result<Response, String> {
        let fail = |e: std::io::Error| format!("{method} {target}: {e}");
        let mut stream = TcpStream::connect((Ipv4Addr::LOCALHOST, self.port)).map_err(fail)?;
        stream.set_read_timeout(Some(HTTP_TIMEOUT)).map_err(fail)?;
        let mut request = format!(
            "{method} {target} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\nAccept: text/html\r\n",
            self.port
        );
        if !cookies.is_empty() {
            let jar: Vec<String> = cookies.iter().map(|(k, v)| format!("{k}={v}")).collect();
            let _ = write!(request, "Cookie: {}\r\n", jar.join("; "));
        }
        if let Some(form) = form {
            let _ = write!(
                request,
                "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n",
                form.len()
            );
        }
        request.push_str("\r\n");
        request.push_str(form.unwrap_or_default());
        stream.write_all(request.as_bytes()).map_err(fail)?;
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).map_err(fail)?;
        let response =
            Response::parse(&raw).ok_or_else(|| format!("{method} {target}: not HTTP"))?;
        for (name, value) in &response.headers {
            if name != "set-cookie" {
                continue;
            }
            let pair = value.split(';').next().unwrap_or_default();
            if let Some((cookie, content)) = pair.split_once('=') {
                // oidc-provider deletes a cookie by setting it empty (and expired).
                if content.is_empty() {
                    cookies.remove(cookie.trim());
                } else {
                    cookies.insert(cookie.trim().to_owned(), content.to_owned());
                }
            }
        }
        Ok(response)
    }
}

impl Drop for OidcProviderServer {
    fn drop(&mut self) {
        // So the watchdog never kills a later process that reused the pid.
        let _ = std::fs::remove_file(self.dir.join("node.pid"));
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

impl std::fmt::Debug for OidcProviderServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OidcProviderServer")
            .field("port", &self.port)
            .finish_non_exhaustive()
    }
}

/// An HTTP response: status, headers (names in lower case) and the body as text (a chunked
/// body's framing left in: only searched, never parsed).
struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Response {
    fn parse(raw: &[u8]) -> Option<Response> {
        let text = String::from_utf8_lossy(raw);
        let (head, body) = text.split_once("\r\n\r\n")?;
        let mut lines = head.split("\r\n");
        let status = lines.next()?.split(' ').nth(1)?.parse().ok()?;
        let headers = lines
            .filter_map(|line| line.split_once(':'))
            .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
            .collect();
        Some(Response {
            status,
            headers,
            body: body.to_owned(),
        })
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    fn describe(&self) -> String {
        let body: String = self.body.chars().take(500).collect();
        format!("HTTP {}: {body}", self.status)
    }
}

/// `application/x-www-form-urlencoded` encoding of one value.
fn form_encode(value: &str) -> String {
    let mut out = String::new();
    for byte in value.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => {
                out.push(char::from(byte));
            }
            b' ' => out.push('+'),
            _ => {
                let _ = write!(out, "%{byte:02X}");
            }
        }
    }
    out
}

/// A JSON string literal.
fn json_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A JSON array of strings.
fn json_strings(items: &[String]) -> String {
    let items: Vec<String> = items.iter().map(|s| json_string(s)).collect();
    format!("[{}]", items.join(","))
}

/// `provider.js`'s configuration argument.
fn config_json(port: u16, config: &OidcProviderConfig) -> String {
    let clients: Vec<String> = config
        .clients
        .iter()
        .map(|c| {
            format!(
                r#"{{"client_id":{},"client_secret":{},"redirect_uris":{},"id_token_signed_response_alg":{}}}"#,
                json_string(&c.client_id),
                json_string(&c.client_secret),
                json_strings(&c.redirect_uris),
                json_string(&c.id_token_algorithm)
            )
        })
        .collect();
    let accounts: Vec<String> = config
        .accounts
        .iter()
        .map(|a| {
            let mut account = format!(r#"{{"sub":{}"#, json_string(&a.sub));
            if let Some(email) = &a.email {
                let _ = write!(account, r#","email":{}"#, json_string(email));
            }
            if let Some(verified) = a.email_verified {
                let _ = write!(account, r#","email_verified":{verified}"#);
            }
            account.push('}');
            account
        })
        .collect();
    format!(
        r#"{{"port":{port},"clients":[{}],"accounts":[{}],"id_token_ttl":{},"client_auth_methods":{}}}"#,
        clients.join(","),
        accounts.join(","),
        config.id_token_ttl.as_secs().max(1),
        json_strings(&config.client_auth_methods)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_configuration_is_json_with_escapes() {
        let config = OidcProviderConfig {
            clients: vec![OidcClient {
                client_id: "app\"1".to_owned(),
                client_secret: "s\\e\n".to_owned(),
                redirect_uris: vec!["http://127.0.0.1:9/cb".to_owned()],
                id_token_algorithm: "ES256".to_owned(),
            }],
            accounts: vec![OidcAccount {
                sub: "alice".to_owned(),
                email: Some("alice@example.com".to_owned()),
                email_verified: Some(true),
            }],
            ..OidcProviderConfig::default()
        };
        assert_eq!(
            config_json(4000, &config),
            r#"{"port":4000,"clients":[{"client_id":"app\"1","client_secret":"s\\e\u000a","redirect_uris":["http://127.0.0.1:9/cb"],"id_token_signed_response_alg":"ES256"}],"accounts":[{"sub":"alice","email":"alice@example.com","email_verified":true}],"id_token_ttl":3600,"client_auth_methods":["client_secret_basic","client_secret_post"]}"#
        );
        assert_eq!(form_encode("a b@c.d&"), "a+b%40c.d%26");
    }
}
