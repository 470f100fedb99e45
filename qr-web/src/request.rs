//! What the dashboard reads from a request: the method, path, query, cookies, form fields (URL-encoded or multipart) and the client address.

use std::net::IpAddr;

use http::header::{CONTENT_TYPE, COOKIE, HeaderMap, USER_AGENT};

/// One request as the mounting server hands it over, body already read within its bound.
#[derive(Debug, Clone)]
pub struct WebRequest {
    /// The method.
    pub method: http::Method,
    /// The path, percent-encoded as sent.
    pub path: String,
    /// The query string without `?` (empty when there is none).
    pub query: String,
    /// The headers.
    pub headers: HeaderMap,
    /// The body.
    pub body: Vec<u8>,
    /// The client's address as the server determined it (trusted proxies applied).
    pub client_ip: Option<IpAddr>,
}

/// Form fields (or query parameters) by name; the first occurrence of a name wins.
#[derive(Debug, Default, Clone)]
pub(crate) struct Fields {
    pairs: Vec<(String, String)>,
    files: Vec<Upload>,
}

/// A file field of a multipart form.
#[derive(Debug, Clone)]
pub(crate) struct Upload {
    pub(crate) name: String,
    pub(crate) bytes: Vec<u8>,
}

impl WebRequest {
    /// Whether the method asks for a page (GET or HEAD).
    pub(crate) fn is_read(&self) -> bool {
        self.method == http::Method::GET || self.method == http::Method::HEAD
    }

    /// Whether the method is POST.
    pub(crate) fn is_post(&self) -> bool {
        self.method == http::Method::POST
    }

    /// The query parameters.
    pub(crate) fn query(&self) -> Fields {
        Fields::urlencoded(self.query.as_bytes())
    }

    /// The form fields of a POST body: URL-encoded, or multipart with its files.
    pub(crate) fn form(&self) -> Fields {
        let content_type = self
            .headers
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        match multipart_boundary(content_type) {
            Some(boundary) => Fields::multipart(&self.body, &boundary),
            None => Fields::urlencoded(&self.body),
        }
    }

    /// The value of the cookie `name`, if sent.
    pub(crate) fn cookie(&self, name: &str) -> Option<String> {
        self.headers
            .get_all(COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .filter_map(|pair| pair.trim().split_once('='))
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.trim().to_owned())
    }

    /// The User-Agent header, cut at 512 bytes.
    pub(crate) fn user_agent(&self) -> Option<String> {
        let text = self.headers.get(USER_AGENT)?.to_str().ok()?;
        Some(text.chars().take(512).collect())
    }
}

impl Fields {
    fn urlencoded(bytes: &[u8]) -> Self {
        Self {
            pairs: url::form_urlencoded::parse(bytes).into_owned().collect(),
            files: Vec::new(),
        }
    }

    /// Fields from `(name, value)` pairs, as a URL-encoded form would give them.
    #[cfg(test)]
    pub(crate) fn from_pairs(pairs: &[(&str, &str)]) -> Self {
        Self {
            pairs: pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
            files: Vec::new(),
        }
    }

    /// The first value of `name`.
    pub(crate) fn get(&self, name: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The first value of `name`, or an empty string.
    pub(crate) fn text(&self, name: &str) -> &str {
        self.get(name).unwrap_or("")
    }

    /// Every value of `name`, in order (checkbox groups).
    pub(crate) fn all(&self, name: &str) -> Vec<&str> {
        self.pairs
            .iter()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
            .collect()
    }

    /// Every text pair, in order.
    pub(crate) fn pairs(&self) -> &[(String, String)] {
        &self.pairs
    }

    /// Replaces the text pairs (the files stay): a page that completes a form before reading
    /// it (the designer applies a preset or a picked link).
    pub(crate) fn set_pairs(&mut self, pairs: Vec<(String, String)>) {
        self.pairs = pairs;
    }

    /// The non-empty file of field `name`, if one was sent.
    pub(crate) fn file(&self, name: &str) -> Option<&Upload> {
        self.files
            .iter()
            .find(|f| f.name == name && !f.bytes.is_empty())
    }

    /// Parses a `multipart/form-data` body (RFC 7578): parts separated by `--boundary` lines,
    /// each with headers, a blank line and its content. Parts without a name are skipped; a part
    /// with a `filename` is a file, any other a text field (UTF-8, replacement characters for
    /// other bytes).
    fn multipart(body: &[u8], boundary: &str) -> Self {
        let mut fields = Self::default();
        let delimiter = format!("--{boundary}");
        let mut rest = body;
        // Everything before the first delimiter is preamble.
        let Some(start) = find(rest, delimiter.as_bytes()) else {
            return fields;
        };
        rest = &rest[start + delimiter.len()..];
        let separator = format!("\r\n--{boundary}");
        loop {
            if rest.starts_with(b"--") {
                break; // the closing delimiter
            }
            let Some(after_line) = rest.strip_prefix(b"\r\n") else {
                break;
            };
            let Some(head_end) = find(after_line, b"\r\n\r\n") else {
                break;
            };
            let head = String::from_utf8_lossy(&after_line[..head_end]);
            let content_start = &after_line[head_end + 4..];
            let Some(content_end) = find(content_start, separator.as_bytes()) else {
                break;
            };
            let content = &content_start[..content_end];
            let (name, filename) = disposition(&head);
            match (name, filename) {
                (Some(name), Some(_)) => fields.files.push(Upload {
                    name,
                    bytes: content.to_vec(),
                }),
                (Some(name), None) => fields
                    .pairs
                    .push((name, String::from_utf8_lossy(content).into_owned())),
                (None, _) => {}
            }
            rest = &content_start[content_end + separator.len()..];
        }
        fields
    }
}

/// The boundary of a `multipart/form-data` content type.
fn multipart_boundary(content_type: &str) -> Option<String> {
    let (media, params) = content_type.split_once(';')?;
    if !media.trim().eq_ignore_ascii_case("multipart/form-data") {
        return None;
    }
    params.split(';').find_map(|p| {
        let (k, v) = p.trim().split_once('=')?;
        let v = v.trim().trim_matches('"');
        (k.trim().eq_ignore_ascii_case("boundary") && !v.is_empty() && v.len() <= 70)
            .then(|| v.to_owned())
    })
}

/// The `name` and `filename` of a part's `Content-Disposition: form-data` header.
fn disposition(head: &str) -> (Option<String>, Option<String>) {
    let Some(line) = head.lines().find(|l| {
        l.split_once(':')
            .is_some_and(|(k, _)| k.trim().eq_ignore_ascii_case("content-disposition"))
    }) else {
        return (None, None);
    };
    let value = line.split_once(':').map_or("", |(_, v)| v);
    let mut name = None;
    let mut filename = None;
    for param in value.split(';').skip(1) {
        let Some((k, v)) = param.trim().split_once('=') else {
            continue;
        };
        let v = v.trim().trim_matches('"').to_owned();
        match k.trim().to_ascii_lowercase().as_str() {
            "name" => name = Some(v),
            "filename" => filename = Some(v),
            _ => {}
        }
    }
    (name, filename)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(content_type: &str, body: &[u8]) -> WebRequest {
        let mut headers = HeaderMap::new();
        headers.insert(CONTENT_TYPE, content_type.parse().unwrap());
        headers.insert(COOKIE, "a=1; qr_session=abc ; b=2".parse().unwrap());
        WebRequest {
            method: http::Method::POST,
            path: "/dashboard/design".into(),
            query: "q=caf%C3%A9&page=2".into(),
            headers,
            body: body.to_vec(),
            client_ip: None,
        }
    }

    #[test]
    fn url_encoded_forms_queries_and_cookies() {
        let r = request(
            "application/x-www-form-urlencoded",
            b"email=a%40example.com&x=1&x=2&name=a+b",
        );
        let f = r.form();
        assert_eq!(f.get("email"), Some("a@example.com"));
        assert_eq!(f.all("x"), vec!["1", "2"]);
        assert_eq!(f.text("name"), "a b");
        assert_eq!(f.text("missing"), "");
        assert_eq!(r.query().get("q"), Some("café"));
        assert_eq!(r.cookie("qr_session").as_deref(), Some("abc"));
        assert_eq!(r.cookie("nope"), None);
    }

    #[test]
    fn multipart_forms_with_files() {
        let body = b"preamble\r\n--XyZ\r\nContent-Disposition: form-data; name=\"data\"\r\n\r\nhello\r\nworld\r\n--XyZ\r\nContent-Disposition: form-data; name=\"logo\"; filename=\"l.png\"\r\nContent-Type: image/png\r\n\r\n\x89PNG\r\n\x00\x01\r\n--XyZ\r\nContent-Disposition: form-data; name=\"empty\"; filename=\"\"\r\n\r\n\r\n--XyZ--\r\n";
        let r = request("multipart/form-data; boundary=XyZ", body);
        let f = r.form();
        assert_eq!(f.get("data"), Some("hello\r\nworld"));
        assert_eq!(f.file("logo").unwrap().bytes, b"\x89PNG\r\n\x00\x01");
        assert!(f.file("empty").is_none(), "an empty file field is no file");
        assert_eq!(
            multipart_boundary("multipart/form-data; boundary=\"q\""),
            Some("q".into())
        );
        assert_eq!(multipart_boundary("text/plain; boundary=q"), None);
        // A truncated body gives the complete parts only.
        let cut = &body[..60];
        assert!(
            request("multipart/form-data; boundary=XyZ", cut)
                .form()
                .get("data")
                .is_none()
        );
    }
}
