//! A redirect rule's target: a web address ([`TargetUrl`]) or an app address ([`AppUrl`]: `tel:`, `mailto:`, `sms:`, `geo:` on any link, or a custom scheme its domain declares as an [`AppScheme`]), and the schemes refused everywhere ([`REFUSED_SCHEMES`]).

use std::fmt;

use serde::{Deserialize, Serialize};

use super::field::FieldRule;
use crate::links::link::{MAX_URL_CHARS, TargetUrl};

/// Most characters of an app scheme (the longest in common use, `com.googleusercontent.apps`
/// aside, are under 20; 32 leaves room for reversed-domain schemes like `com.brand.app`).
pub const MAX_SCHEME_CHARS: usize = 32;
/// Most app schemes a domain declares (a brand has an app or two per platform; 10 is generous
/// and keeps the per-link check a short scan).
pub const MAX_APP_SCHEMES: usize = 10;

/// Schemes never accepted as a rule's target nor declared as a domain's app scheme, with why.
/// The one list both checks read: a scheme added here is refused everywhere at once.
pub const REFUSED_SCHEMES: &[(&str, &str)] = &[
    ("javascript", "it runs script in the page that opens it"),
    ("vbscript", "it runs script in Internet Explorer"),
    (
        "data",
        "it carries a whole page inline, a phishing page with no server to take down",
    ),
    ("file", "it opens files of the scanning device"),
    (
        "blob",
        "it addresses objects held in memory by another page",
    ),
    (
        "about",
        "it opens browser-internal pages (about:blank takes the opener's origin)",
    ),
    ("filesystem", "it addresses another site's sandboxed files"),
    (
        "view-source",
        "it shows another page's source with its cookies",
    ),
    ("chrome", "it opens Chrome's privileged internal pages"),
    (
        "chrome-extension",
        "it opens an installed extension's pages with their privileges",
    ),
    (
        "moz-extension",
        "it opens an installed extension's pages with their privileges",
    ),
    ("resource", "it opens Firefox's internal files"),
    (
        "jar",
        "Firefox ran content from uploaded archives through it (CVE-2007-5947)",
    ),
    ("ws", "it is a WebSocket, not a page a browser can open"),
    ("wss", "it is a WebSocket, not a page a browser can open"),
    (
        "ftp",
        "browsers no longer open it (Chrome 95, Firefox 90) and it has no TLS",
    ),
    (
        "intent",
        "an Android intent can launch any activity of any installed app",
    ),
    (
        "android-app",
        "it is Android's other spelling of an intent, launching any activity",
    ),
    ("content", "it reads data other Android apps provide"),
    (
        "mhtml",
        "Internet Explorer read other sites' data through it",
    ),
    ("res", "it reads resources of local Windows programs"),
    ("shell", "it opens Windows shell folders"),
    (
        "ms-msdt",
        "it ran code through Windows' diagnostics tool (CVE-2022-30190, Follina)",
    ),
    (
        "search-ms",
        "it shows files from a remote share as local search results on Windows",
    ),
];

/// Why `scheme` is refused everywhere, if it is.
pub fn refused(scheme: &str) -> Option<&'static str> {
    REFUSED_SCHEMES
        .iter()
        .find(|(s, _)| *s == scheme)
        .map(|(_, why)| *why)
}

/// Whether `s` is an RFC 3986 scheme: a letter, then letters, digits, `+`, `-` or `.`.
fn is_scheme(s: &str) -> bool {
    let mut bytes = s.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphabetic())
        && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
}

/// The scheme a browser reads in `raw`, lower-cased: leading and trailing spaces and control
/// characters dropped and tabs and line breaks anywhere removed first (as the WHATWG URL parser
/// does, so `java\tscript:` is `javascript`); `None` when the text before the first `:` is no
/// scheme (`%6Aavascript:`, which no browser reads as `javascript` either).
fn scheme_as_browsers_read(raw: &str) -> Option<String> {
    let trimmed = raw.trim_matches(|c: char| c <= ' ');
    let mut scheme = String::new();
    for c in trimmed.chars().filter(|c| !matches!(c, '\t' | '\n' | '\r')) {
        if c == ':' {
            return is_scheme(&scheme).then(|| scheme.to_ascii_lowercase());
        }
        if scheme.len() > MAX_URL_CHARS {
            return None;
        }
        scheme.push(c);
    }
    None
}

/// The app URLs every link may target, whatever its domain declares.
const UNIVERSAL_SCHEMES: [&str; 4] = ["tel", "mailto", "sms", "geo"];

/// A redirect rule's target.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum RuleTarget {
    /// A web address, normalised as a link's target is.
    Web(TargetUrl),
    /// An address an app on the device opens.
    App(AppUrl),
}

impl RuleTarget {
    /// A web URL (http, https) or an app URL; schemes in [`REFUSED_SCHEMES`] are refused in
    /// every spelling a browser reads as them. Whether a custom scheme is declared by the link's
    /// domain is the service's check ([`AppUrl::custom_scheme`]).
    pub fn parse(raw: &str) -> Result<Self, FieldRule> {
        let scheme = scheme_as_browsers_read(raw);
        if let Some((scheme, why)) = scheme
            .as_deref()
            .and_then(|s| refused(s).map(|why| (s, why)))
        {
            return Err(FieldRule::AppUrl(AppUrlError::Refused {
                scheme: scheme.to_owned(),
                why,
            }));
        }
        match scheme.as_deref() {
            None | Some("http" | "https") => {
                TargetUrl::parse(raw).map(Self::Web).map_err(FieldRule::Url)
            }
            Some(_) => AppUrl::parse(raw).map(Self::App).map_err(FieldRule::AppUrl),
        }
    }

    /// The URL as stored and sent in `Location`.
    pub fn as_str(&self) -> &str {
        match self {
            Self::Web(url) => url.as_str(),
            Self::App(url) => url.as_str(),
        }
    }

    /// The custom scheme the target needs its link's domain to declare, if any.
    pub fn custom_scheme(&self) -> Option<&str> {
        match self {
            Self::Web(_) => None,
            Self::App(url) => url.custom_scheme(),
        }
    }
}

impl From<TargetUrl> for RuleTarget {
    fn from(url: TargetUrl) -> Self {
        Self::Web(url)
    }
}

/// An app URL: printable ASCII without spaces, at most [`MAX_URL_CHARS`] characters, its scheme
/// lower-cased and the rest kept as written; `tel:`, `sms:`, `mailto:` and `geo:` of their
/// form, any other scheme with something after its colon.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AppUrl(String);

impl AppUrl {
    /// Checks an app URL (surrounding whitespace trimmed); the caller has refused the schemes
    /// of [`REFUSED_SCHEMES`] and sent http and https to [`TargetUrl`].
    fn parse(raw: &str) -> Result<Self, AppUrlError> {
        let s = raw.trim();
        let n = s.chars().count();
        if n > MAX_URL_CHARS {
            return Err(AppUrlError::TooLong(n));
        }
        if !s.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(AppUrlError::Character);
        }
        let (scheme, rest) = s.split_once(':').ok_or(AppUrlError::Character)?;
        let scheme = scheme.to_ascii_lowercase();
        match scheme.as_str() {
            "tel" => check_tel(rest)?,
            "sms" => check_sms(rest)?,
            "mailto" => check_mailto(rest)?,
            "geo" => check_geo(rest)?,
            _ if rest.is_empty() => return Err(AppUrlError::NothingAfterScheme(scheme)),
            _ => {}
        }
        Ok(Self(format!("{scheme}:{rest}")))
    }

    /// The URL.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Its scheme, lower case.
    pub fn scheme(&self) -> &str {
        self.0.split_once(':').map_or("", |(scheme, _)| scheme)
    }

    /// Its scheme when it is not one every link may use (`tel`, `mailto`, `sms`, `geo`).
    pub fn custom_scheme(&self) -> Option<&str> {
        Some(self.scheme()).filter(|s| !UNIVERSAL_SCHEMES.contains(s))
    }
}

/// Whether `s` is made of `allowed` characters and `%20` (a space).
fn only(s: &str, allowed: fn(u8) -> bool) -> bool {
    let mut rest = s;
    while let Some(b) = rest.bytes().next() {
        if let Some(after) = rest.strip_prefix("%20") {
            rest = after;
        } else if allowed(b) {
            rest = &rest[1..];
        } else {
            return false;
        }
    }
    true
}

/// The characters of a phone number as written: digits and the visual separators of RFC 3966,
/// `,` (a pause before an extension's digits).
fn phone_character(b: u8) -> bool {
    b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.' | b'(' | b')' | b',')
}

/// A number with at least one digit, of [`phone_character`]s.
fn is_number(s: &str) -> bool {
    s.bytes().any(|b| b.is_ascii_digit()) && only(s, phone_character)
}

/// `tel:<number>[;param=value…]` (RFC 3966), the number as written.
fn check_tel(rest: &str) -> Result<(), AppUrlError> {
    let (number, parameters) = rest.split_once(';').unwrap_or((rest, ""));
    let parameter =
        |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'+' | b'=' | b';' | b',');
    if is_number(number) && only(parameters, parameter) {
        Ok(())
    } else {
        Err(AppUrlError::Phone("tel"))
    }
}

/// `sms:<number>[,<number>…][?body=<text>]` (RFC 5724), the numbers as written.
fn check_sms(rest: &str) -> Result<(), AppUrlError> {
    let (numbers, query) = match rest.split_once('?') {
        Some((numbers, query)) => (numbers, Some(query)),
        None => (rest, None),
    };
    if !numbers.split([',', ';']).all(is_number) {
        return Err(AppUrlError::Phone("sms"));
    }
    if query.is_some_and(|q| !q.starts_with("body=")) {
        return Err(AppUrlError::SmsQuery);
    }
    Ok(())
}

/// `mailto:` with an address (`name@example.com`, several separated by `,`) or a query.
fn check_mailto(rest: &str) -> Result<(), AppUrlError> {
    let (to, query) = rest.split_once('?').unwrap_or((rest, ""));
    let address = |a: &str| {
        a.split_once('@').is_some_and(|(local, host)| {
            !local.is_empty() && !host.is_empty() && !host.contains('@')
        })
    };
    let fine = if to.is_empty() {
        !query.is_empty()
    } else {
        to.split(',').all(address)
    };
    if fine {
        Ok(())
    } else {
        Err(AppUrlError::Mailto)
    }
}

/// `geo:<lat>,<lon>[,<alt>][;…][?…]` (RFC 5870), latitude -90 to 90, longitude -180 to 180.
fn check_geo(rest: &str) -> Result<(), AppUrlError> {
    let coordinates = rest.split([';', '?']).next().unwrap_or("");
    let numbers: Vec<Option<f64>> = coordinates.split(',').map(decimal).collect();
    let fine = match numbers.as_slice() {
        [Some(lat), Some(lon)] | [Some(lat), Some(lon), Some(_)] => {
            (-90.0..=90.0).contains(lat) && (-180.0..=180.0).contains(lon)
        }
        _ => false,
    };
    if fine { Ok(()) } else { Err(AppUrlError::Geo) }
}

/// A decimal as RFC 5870 writes it: an optional `-`, digits, optionally `.` and digits.
fn decimal(s: &str) -> Option<f64> {
    let digits = s.strip_prefix('-').unwrap_or(s);
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, "0"));
    let all_digits = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    if all_digits(whole) && all_digits(fraction) {
        s.parse().ok()
    } else {
        None
    }
}

/// Why an app URL is refused; `Display` is the rule's message about "the URL".
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AppUrlError {
    /// A scheme of [`REFUSED_SCHEMES`], with why.
    Refused {
        /// The scheme, lower case.
        scheme: String,
        /// Why it is refused.
        why: &'static str,
    },
    /// Longer than [`MAX_URL_CHARS`] (its length).
    TooLong(usize),
    /// A space, a control character or a character beyond ASCII.
    Character,
    /// Nothing after the scheme's colon.
    NothingAfterScheme(String),
    /// A `tel:` or `sms:` without a number of its characters.
    Phone(&'static str),
    /// An `sms:` query other than `?body=`.
    SmsQuery,
    /// A `mailto:` without an address or a query.
    Mailto,
    /// A `geo:` without latitude and longitude in range.
    Geo,
}

impl fmt::Display for AppUrlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AppUrlError::Refused { scheme, why } => {
                write!(f, "the URL must not use {scheme}: {why}")
            }
            AppUrlError::TooLong(n) => write!(
                f,
                "the URL must be at most {MAX_URL_CHARS} characters (got {n})"
            ),
            AppUrlError::Character => f.write_str(
                "an app URL must be ASCII without spaces or control characters; percent-encode them (a space is %20)",
            ),
            AppUrlError::NothingAfterScheme(scheme) => write!(
                f,
                "the URL must have something after {scheme}: (such as {scheme}://product/42)"
            ),
            AppUrlError::Phone(scheme) => write!(
                f,
                "a {scheme}: URL must have a phone number of digits and + - . ( ) , or %20, such as {scheme}:+4930123456"
            ),
            AppUrlError::SmsQuery => {
                f.write_str("an sms: URL's query must be ?body= and the message, percent-encoded")
            }
            AppUrlError::Mailto => f.write_str(
                "a mailto: URL must have an address such as mailto:info@example.com, or a ?query",
            ),
            AppUrlError::Geo => f.write_str(
                "a geo: URL must start with latitude,longitude in degrees (-90 to 90, -180 to 180), such as geo:52.52,13.405",
            ),
        }
    }
}

/// A scheme a domain declares for its links' rules: an RFC 3986 scheme of at most
/// [`MAX_SCHEME_CHARS`] characters, lower case; never http, https, the schemes every link may
/// use already, nor those of [`REFUSED_SCHEMES`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct AppScheme(String);

impl AppScheme {
    /// Checks a scheme as typed (surrounding whitespace and a trailing `:` or `://` dropped,
    /// any case).
    pub fn parse(raw: &str) -> Result<Self, AppSchemeError> {
        let s = raw.trim();
        let s = s
            .strip_suffix("://")
            .or_else(|| s.strip_suffix(':'))
            .unwrap_or(s);
        let n = s.chars().count();
        if n == 0 || n > MAX_SCHEME_CHARS || !is_scheme(s) {
            return Err(AppSchemeError::Syntax);
        }
        let scheme = s.to_ascii_lowercase();
        if scheme == "http" || scheme == "https" {
            return Err(AppSchemeError::Web(scheme));
        }
        if UNIVERSAL_SCHEMES.contains(&scheme.as_str()) {
            return Err(AppSchemeError::Universal(scheme));
        }
        if let Some(why) = refused(&scheme) {
            return Err(AppSchemeError::Refused { scheme, why });
        }
        Ok(Self(scheme))
    }

    /// The scheme, lower case.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// A domain's schemes as typed: at most [`MAX_APP_SCHEMES`], each checked, a repeated one
    /// (in any case) kept once, in the order given.
    pub fn parse_list<S: AsRef<str>>(raw: &[S]) -> Result<Vec<Self>, AppSchemeListError> {
        if raw.len() > MAX_APP_SCHEMES {
            return Err(AppSchemeListError::TooMany(raw.len()));
        }
        let mut out: Vec<Self> = Vec::with_capacity(raw.len());
        for (index, item) in raw.iter().enumerate() {
            let scheme = Self::parse(item.as_ref())
                .map_err(|error| AppSchemeListError::Scheme { index, error })?;
            if !out.contains(&scheme) {
                out.push(scheme);
            }
        }
        Ok(out)
    }
}

impl fmt::Display for AppScheme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<String> for AppScheme {
    type Error = AppSchemeError;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        Self::parse(&s)
    }
}

impl From<AppScheme> for String {
    fn from(s: AppScheme) -> String {
        s.0
    }
}

/// Why a domain's app scheme is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AppSchemeError {
    /// Not an RFC 3986 scheme of 1 to [`MAX_SCHEME_CHARS`] characters.
    #[error(
        "an app scheme is a letter, then letters, digits, +, - or ., at most 32 characters (such as brandapp)"
    )]
    Syntax,
    /// http or https.
    #[error("{0} is a web address, not an app scheme; rules accept web addresses already")]
    Web(String),
    /// tel, mailto, sms or geo.
    #[error("{0}: works on every link without being declared")]
    Universal(String),
    /// A scheme of [`REFUSED_SCHEMES`].
    #[error("{scheme} is refused: {why}")]
    Refused {
        /// The scheme.
        scheme: String,
        /// Why it is refused.
        why: &'static str,
    },
}

/// Why a domain's list of app schemes is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AppSchemeListError {
    /// More than [`MAX_APP_SCHEMES`] (the count given).
    #[error("appSchemes: at most 10 app schemes are allowed (got {0})")]
    TooMany(usize),
    /// One of them.
    #[error("appSchemes[{index}]: {error}")]
    Scheme {
        /// Its index.
        index: usize,
        /// Why.
        error: AppSchemeError,
    },
}

impl fmt::Display for RuleTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl TryFrom<String> for RuleTarget {
    type Error = FieldRule;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        Self::parse(&s)
    }
}

impl From<RuleTarget> for String {
    fn from(t: RuleTarget) -> String {
        match t {
            RuleTarget::Web(url) => url.into(),
            RuleTarget::App(url) => url.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::links::link::UrlError;

    fn target(raw: &str) -> Result<String, FieldRule> {
        RuleTarget::parse(raw).map(String::from)
    }

    fn refused_as(raw: &str, scheme: &str) {
        match RuleTarget::parse(raw) {
            Err(FieldRule::AppUrl(AppUrlError::Refused { scheme: s, .. })) => {
                assert_eq!(s, scheme, "{raw:?}");
            }
            other => panic!("{raw:?} gave {other:?}"),
        }
    }

    #[test]
    fn web_targets_are_normalised_as_before() {
        assert_eq!(
            target("  HTTPS://Example.COM:443/a b ").unwrap(),
            "https://example.com/a%20b"
        );
        assert!(matches!(
            RuleTarget::parse("https://example.com").unwrap(),
            RuleTarget::Web(_)
        ));
        assert_eq!(
            target("example.com/page"),
            Err(FieldRule::Url(UrlError::NotAbsolute))
        );
        assert_eq!(target("   "), Err(FieldRule::Url(UrlError::Empty)));
        assert_eq!(
            target("https://user:pw@example.com/"),
            Err(FieldRule::Url(UrlError::Credentials))
        );
    }

    #[test]
    fn universal_app_urls_keep_what_was_written_but_the_scheme_case() {
        for (raw, stored) in [
            ("tel:+4930123", "tel:+4930123"),
            ("TEL:+49-(30)-123.45", "tel:+49-(30)-123.45"),
            ("tel:+49%2030%20123", "tel:+49%2030%20123"),
            ("tel:+4930123;ext=12", "tel:+4930123;ext=12"),
            ("tel:030,123", "tel:030,123"),
            (" sms:+4930123 ", "sms:+4930123"),
            ("sms:+4930123,+4930456", "sms:+4930123,+4930456"),
            (
                "sms:+4930123?body=Hello%20there",
                "sms:+4930123?body=Hello%20there",
            ),
            ("mailto:info@example.com", "mailto:info@example.com"),
            (
                "MailTo:a@example.com,b@example.com?subject=Hi",
                "mailto:a@example.com,b@example.com?subject=Hi",
            ),
            ("mailto:?subject=Hi", "mailto:?subject=Hi"),
            ("geo:52.52,13.405", "geo:52.52,13.405"),
            ("geo:-90,180,35.5;u=10", "geo:-90,180,35.5;u=10"),
            (
                "geo:0,0?q=Brandenburger%20Tor",
                "geo:0,0?q=Brandenburger%20Tor",
            ),
        ] {
            let parsed = RuleTarget::parse(raw).unwrap_or_else(|e| panic!("{raw:?}: {e}"));
            assert_eq!(parsed.as_str(), stored, "{raw:?}");
            assert_eq!(parsed.custom_scheme(), None, "{raw:?}");
        }
    }

    #[test]
    fn malformed_universal_app_urls_are_refused_with_their_form() {
        let app = |raw: &str| match RuleTarget::parse(raw) {
            Err(FieldRule::AppUrl(e)) => e,
            other => panic!("{raw:?} gave {other:?}"),
        };
        assert_eq!(app("tel:"), AppUrlError::Phone("tel"));
        assert_eq!(app("tel:call-me"), AppUrlError::Phone("tel"));
        assert_eq!(app("tel:+49;ext=1<2"), AppUrlError::Phone("tel"));
        assert_eq!(app("tel:+49 30"), AppUrlError::Character);
        assert_eq!(app("tel:+49\t30"), AppUrlError::Character);
        assert_eq!(app("sms:"), AppUrlError::Phone("sms"));
        assert_eq!(app("sms:?body=hi"), AppUrlError::Phone("sms"));
        assert_eq!(app("sms:+4930123?subject=x"), AppUrlError::SmsQuery);
        assert_eq!(app("mailto:"), AppUrlError::Mailto);
        assert_eq!(app("mailto:nobody"), AppUrlError::Mailto);
        assert_eq!(app("mailto:@example.com"), AppUrlError::Mailto);
        assert_eq!(app("mailto:?"), AppUrlError::Mailto);
        assert_eq!(app("geo:"), AppUrlError::Geo);
        assert_eq!(app("geo:91,0"), AppUrlError::Geo);
        assert_eq!(app("geo:0,180.5"), AppUrlError::Geo);
        assert_eq!(app("geo:1e1,2"), AppUrlError::Geo);
        assert_eq!(app("geo:52.52"), AppUrlError::Geo);
        assert_eq!(app("geo:a,b"), AppUrlError::Geo);
        assert_eq!(
            app("brandapp:"),
            AppUrlError::NothingAfterScheme("brandapp".into())
        );
        assert_eq!(app("brandapp://pröduct"), AppUrlError::Character);
        assert_eq!(app("brandapp://a b"), AppUrlError::Character);
        assert_eq!(app("brandapp://a\u{7f}"), AppUrlError::Character);
        let long = format!("brandapp://{}", "a".repeat(2048 - 11));
        assert_eq!(RuleTarget::parse(&long).unwrap().as_str(), long);
        assert_eq!(app(&format!("{long}a")), AppUrlError::TooLong(2049));
        assert_eq!(
            app("geo:91,0").to_string(),
            "a geo: URL must start with latitude,longitude in degrees (-90 to 90, -180 to 180), such as geo:52.52,13.405"
        );
    }

    #[test]
    fn custom_schemes_are_app_urls_whose_scheme_the_domain_must_declare() {
        let t = RuleTarget::parse("BrandApp://product/42?ref=Poster").unwrap();
        assert_eq!(t.as_str(), "brandapp://product/42?ref=Poster");
        assert_eq!(t.custom_scheme(), Some("brandapp"));
        let t = RuleTarget::parse("com.brand.app:open").unwrap();
        assert_eq!(t.custom_scheme(), Some("com.brand.app"));
        assert_eq!(String::from(t.clone()), "com.brand.app:open");
        assert_eq!(RuleTarget::try_from("com.brand.app:open".to_owned()), Ok(t));
    }

    #[test]
    fn refused_schemes_are_refused_in_every_spelling_a_browser_reads() {
        for (raw, scheme) in [
            ("javascript:alert(1)", "javascript"),
            ("JavaScript:alert(1)", "javascript"),
            ("JAVASCRIPT:alert(1)", "javascript"),
            ("   javascript:alert(1)", "javascript"),
            ("\u{1}javascript:alert(1)", "javascript"),
            ("java\tscript:alert(1)", "javascript"),
            ("java\nscript:alert(1)", "javascript"),
            ("java\r\nscript:alert(1)", "javascript"),
            ("javascript\t:alert(1)", "javascript"),
            ("vbscript:msgbox(1)", "vbscript"),
            ("data:text/html,<script>alert(1)</script>", "data"),
            ("DATA:text/html;base64,PHNjcmlwdD4=", "data"),
            ("file:///etc/passwd", "file"),
            ("blob:https://example.com/uuid", "blob"),
            ("about:blank", "about"),
            ("filesystem:https://example.com/temporary/x", "filesystem"),
            ("view-source:https://example.com", "view-source"),
            ("chrome://settings", "chrome"),
            ("jar:https://example.com/a.jar!/x.html", "jar"),
            ("ws://example.com", "ws"),
            ("wss://example.com", "wss"),
            ("ftp://example.com/file", "ftp"),
            ("intent://scan/#Intent;scheme=zxing;end", "intent"),
            ("Intent://x#Intent;end", "intent"),
            ("android-app://com.example/http/x", "android-app"),
            ("ms-msdt:/id PCWDiagnostic", "ms-msdt"),
        ] {
            refused_as(raw, scheme);
        }
        // Encoded or disguised schemes are no scheme at all, so no browser runs them either.
        for raw in [
            "%6Aavascript:alert(1)",
            "javascript%3Aalert(1)",
            "jav&#x09;ascript:alert(1)",
            "javascrіpt:alert(1)",
        ] {
            assert_eq!(
                target(raw),
                Err(FieldRule::Url(UrlError::NotAbsolute)),
                "{raw:?}"
            );
        }
        assert_eq!(
            RuleTarget::parse("javascript:alert(1)")
                .unwrap_err()
                .to_string(),
            "the URL must not use javascript: it runs script in the page that opens it"
        );
    }

    #[test]
    fn the_refused_list_is_lower_case_schemes_each_with_a_reason() {
        for (scheme, why) in REFUSED_SCHEMES {
            assert!(is_scheme(scheme) && *scheme == scheme.to_ascii_lowercase());
            assert!(!why.is_empty());
            assert!(!UNIVERSAL_SCHEMES.contains(scheme));
        }
    }

    #[test]
    fn a_domain_declares_app_schemes_of_its_own() {
        let scheme = |raw: &str| AppScheme::parse(raw).map(|s| s.as_str().to_owned());
        assert_eq!(scheme(" BrandApp ").as_deref(), Ok("brandapp"));
        assert_eq!(scheme("brandapp://").as_deref(), Ok("brandapp"));
        assert_eq!(
            scheme("com.brand.app+x-1:").as_deref(),
            Ok("com.brand.app+x-1")
        );
        assert_eq!(
            scheme(&"a".repeat(32)).as_deref(),
            Ok("a".repeat(32).as_str())
        );
        assert_eq!(scheme(&"a".repeat(33)), Err(AppSchemeError::Syntax));
        assert_eq!(scheme(""), Err(AppSchemeError::Syntax));
        assert_eq!(scheme("1app"), Err(AppSchemeError::Syntax));
        assert_eq!(scheme("brand app"), Err(AppSchemeError::Syntax));
        assert_eq!(scheme("brand_app"), Err(AppSchemeError::Syntax));
        assert_eq!(scheme("java\tscript"), Err(AppSchemeError::Syntax));
        assert_eq!(scheme("HTTPS"), Err(AppSchemeError::Web("https".into())));
        assert_eq!(scheme("tel"), Err(AppSchemeError::Universal("tel".into())));
        assert!(matches!(
            scheme("JavaScript"),
            Err(AppSchemeError::Refused { scheme, .. }) if scheme == "javascript"
        ));
        assert!(matches!(
            scheme("intent"),
            Err(AppSchemeError::Refused { .. })
        ));
        let list = AppScheme::parse_list(&["brandapp", "BRANDAPP", "otherapp"]).unwrap();
        assert_eq!(
            list.iter().map(AppScheme::as_str).collect::<Vec<_>>(),
            ["brandapp", "otherapp"]
        );
        let eleven: Vec<String> = (0..11).map(|i| format!("app{i}")).collect();
        assert_eq!(
            AppScheme::parse_list(&eleven).unwrap_err().to_string(),
            "appSchemes: at most 10 app schemes are allowed (got 11)"
        );
        assert_eq!(
            AppScheme::parse_list(&["ok", "data"])
                .unwrap_err()
                .to_string(),
            "appSchemes[1]: data is refused: it carries a whole page inline, a phishing page with no server to take down"
        );
        assert!(AppScheme::try_from("file".to_owned()).is_err());
    }
}
