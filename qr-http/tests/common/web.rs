//! A small browser for the dashboard's tests: cookies kept between requests, forms posted URL-encoded or multipart, CSRF tokens read from the pages.

use std::collections::BTreeMap;
use std::net::SocketAddr;

use std::time::{Duration, Instant};

use bytes::Bytes;
use qr_test_support::{ReceivedMail, SmtpServer};

use super::{Resp, TestServer, send};

/// A client with a cookie jar.
pub struct Client {
    addr: SocketAddr,
    cookies: BTreeMap<String, String>,
    /// The `Set-Cookie` lines of the last response.
    pub set_cookies: Vec<String>,
}

impl Client {
    pub fn new(addr: SocketAddr) -> Self {
        Self {
            addr,
            cookies: BTreeMap::new(),
            set_cookies: Vec::new(),
        }
    }

    fn cookie_header(&self) -> String {
        self.cookies
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// The value of a cookie in the jar.
    pub fn cookie(&self, name: &str) -> Option<&str> {
        self.cookies.get(name).map(String::as_str)
    }

    /// The same browser talking to another server of the service (as behind a load balancer):
    /// a client for `addr` with this one's cookies.
    pub fn on(&self, addr: SocketAddr) -> Self {
        Self {
            addr,
            cookies: self.cookies.clone(),
            set_cookies: Vec::new(),
        }
    }

    /// Forgets every cookie (a new browser).
    pub fn forget_cookies(&mut self) {
        self.cookies.clear();
    }

    async fn request(
        &mut self,
        method: &str,
        path: &str,
        content_type: Option<&str>,
        body: Bytes,
    ) -> Resp {
        let cookie = self.cookie_header();
        let mut headers: Vec<(&str, &str)> = Vec::new();
        if !cookie.is_empty() {
            headers.push(("cookie", &cookie));
        }
        if let Some(t) = content_type {
            headers.push(("content-type", t));
        }
        let resp = send(self.addr, method, path, &headers, body).await;
        self.set_cookies = resp
            .headers
            .get_all("set-cookie")
            .iter()
            .map(|v| v.to_str().unwrap().to_owned())
            .collect();
        for line in &self.set_cookies {
            let pair = line.split(';').next().unwrap();
            let (name, value) = pair.split_once('=').unwrap();
            if line.contains("Max-Age=0") {
                self.cookies.remove(name);
            } else {
                self.cookies.insert(name.to_owned(), value.to_owned());
            }
        }
        resp
    }

    pub async fn get(&mut self, path: &str) -> Resp {
        self.request("GET", path, None, Bytes::new()).await
    }

    /// A GET with one more header (`if-none-match`).
    pub async fn get_with(&mut self, path: &str, name: &str, value: &str) -> Resp {
        let cookie = self.cookie_header();
        let headers = [("cookie", cookie.as_str()), (name, value)];
        send(self.addr, "GET", path, &headers, Bytes::new()).await
    }

    /// Posts URL-encoded fields.
    pub async fn post(&mut self, path: &str, fields: &[(&str, &str)]) -> Resp {
        let body = super::query(fields);
        self.request(
            "POST",
            path,
            Some("application/x-www-form-urlencoded"),
            Bytes::from(body),
        )
        .await
    }

    /// Posts a multipart form with text fields and, optionally, one file `(field, bytes)`.
    pub async fn post_multipart(
        &mut self,
        path: &str,
        fields: &[(&str, &str)],
        file: Option<(&str, &[u8])>,
    ) -> Resp {
        let boundary = "XtestBoundary7MA4YWxk";
        let mut body = Vec::new();
        for (name, value) in fields {
            body.extend_from_slice(
                format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n").as_bytes(),
            );
        }
        if let Some((name, bytes)) = file {
            body.extend_from_slice(
                format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"logo.png\"\r\nContent-Type: image/png\r\n\r\n").as_bytes(),
            );
            body.extend_from_slice(bytes);
            body.extend_from_slice(b"\r\n");
        }
        body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
        let content_type = format!("multipart/form-data; boundary={boundary}");
        self.request("POST", path, Some(&content_type), Bytes::from(body))
            .await
    }

    /// GETs a page and returns the CSRF token of its first form.
    pub async fn csrf(&mut self, path: &str) -> String {
        let page = self.get(path).await;
        assert_eq!(page.status, 200, "{path}: {}", page.text());
        csrf_in(&page.text())
    }
}

/// The value of the first `name="csrf"` field of a page.
pub fn csrf_in(html: &str) -> String {
    attribute_after(html, "name=\"csrf\" value=\"")
        .unwrap_or_else(|| panic!("no CSRF field in: {html}"))
}

/// The text after `marker` up to the next `"`.
pub fn attribute_after(html: &str, marker: &str) -> Option<String> {
    let start = html.find(marker)? + marker.len();
    Some(html[start..].split('"').next()?.to_owned())
}

/// The text content of the element with `id`, when it holds only text.
pub fn element_text(html: &str, id: &str) -> Option<String> {
    let marker = format!("id=\"{id}\">");
    let start = html.find(&marker)? + marker.len();
    Some(html[start..].split('<').next()?.trim().to_owned())
}

// ----- The dashboard's flows, shared by its test files -----

pub const PASSWORD: &str = "plum tree at dawn";
pub const CSP: &str = "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; object-src 'none'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'";

/// A server at `http://localhost:<port>` (passkeys need a domain name) with a loopback SMTP
/// server for its mail.
pub async fn start_at_localhost(
    configure: impl FnOnce(&mut qr_http::ServerConfig),
) -> (TestServer, SmtpServer) {
    let smtp = SmtpServer::start();
    let url = smtp.url();
    let server = TestServer::start_at_localhost(move |c| {
        c.smtp_url = Some(url);
        configure(c);
    })
    .await;
    (server, smtp)
}

pub async fn start(configure: impl FnOnce(&mut qr_http::ServerConfig)) -> (TestServer, SmtpServer) {
    let smtp = SmtpServer::start();
    let url = smtp.url();
    let server = TestServer::start(move |c| {
        c.smtp_url = Some(url);
        configure(c);
    })
    .await;
    (server, smtp)
}

/// The first mail to `to` whose subject contains `subject`, waiting for it.
pub fn mail(smtp: &SmtpServer, to: &str, subject: &str) -> ReceivedMail {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        if let Some(m) = smtp.received().into_iter().find(|m| {
            m.to.iter().any(|t| t.eq_ignore_ascii_case(to))
                && m.header("subject").is_some_and(|s| s.contains(subject))
        }) {
            return m;
        }
        assert!(
            Instant::now() < deadline,
            "no mail {subject:?} to {to}: {:#?}",
            smtp.received()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The path and query of a link in a mail.
pub fn path_of(link: &str) -> String {
    let rest = link.split_once("://").unwrap().1;
    rest[rest.find('/').unwrap()..].to_owned()
}

pub async fn sign_up(c: &mut Client, email: &str, plan: &str) -> Resp {
    let csrf = c.csrf("/dashboard/signup").await;
    c.post(
        "/dashboard/signup",
        &[
            ("csrf", &csrf),
            ("email", email),
            ("password", PASSWORD),
            ("plan", plan),
        ],
    )
    .await
}

/// Follows an e-mailed link whose page shows a confirmation button, and presses it.
pub async fn follow(c: &mut Client, link: &str, action: &str) -> Resp {
    let page = c.get(&path_of(link)).await;
    assert_eq!(page.status, 200, "{}", page.text());
    let html = page.text();
    let token = attribute_after(&html, "name=\"token\" value=\"").unwrap();
    c.post(action, &[("csrf", &csrf_in(&html)), ("token", &token)])
        .await
}

pub async fn log_in(c: &mut Client, email: &str, password: &str) -> Resp {
    let csrf = c.csrf("/dashboard/login").await;
    c.post(
        "/dashboard/login",
        &[("csrf", &csrf), ("email", email), ("password", password)],
    )
    .await
}

/// A verified, logged-in customer.
pub async fn customer(s: &TestServer, smtp: &SmtpServer, email: &str) -> Client {
    let mut c = Client::new(s.addr);
    assert_eq!(sign_up(&mut c, email, "free").await.status, 200);
    let link = mail(smtp, email, "Verify")
        .link_containing("/dashboard/verify")
        .unwrap();
    assert_eq!(follow(&mut c, &link, "/dashboard/verify").await.status, 200);
    assert_eq!(log_in(&mut c, email, PASSWORD).await.status, 303);
    c
}

/// Puts the account of `email` on `plan` (as the operator would), for pages gated by plan;
/// returns the account's id.
pub fn set_plan(s: &TestServer, email: &str, plan: qr_domain::Plan) -> qr_domain::AccountId {
    let service = s.handle.app().service();
    let id = service
        .account_by_email(&qr_domain::Email::parse(email).unwrap())
        .unwrap()
        .expect("the account")
        .id;
    service.set_plan(id, plan).unwrap();
    id
}

/// Creates a key in the dashboard and returns (its id, its secret).
pub async fn create_key(c: &mut Client, name: &str) -> (String, String) {
    let csrf = c.csrf("/dashboard/keys").await;
    let r = c
        .post(
            "/dashboard/keys",
            &[("csrf", &csrf), ("name", name), ("mode", "live")],
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text());
    let html = r.text();
    let secret = element_text(&html, "new-api-key").unwrap();
    let id = attribute_after(&html, "action=\"/dashboard/keys/").unwrap();
    (id.split('/').next().unwrap().to_owned(), secret)
}
