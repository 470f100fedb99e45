//! Scans: what is recorded for each visit, user-agent classification, referrer cleaning and visitor ids.

use std::fmt;
use std::net::IpAddr;
use std::str::FromStr;

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use url::Url;

use crate::accounts::access::canonical;
use crate::ids::{LinkId, ScanId};

/// The value stored for a browser or OS that could not be recognised.
pub const UNKNOWN: &str = "Unknown";
/// Maximum stored length of a referrer; longer referrers are stored as their origin only.
pub const MAX_REFERRER_CHARS: usize = 2048;

/// The device category of a scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Device {
    /// A phone.
    Mobile,
    /// A desktop or laptop computer (also TVs and consoles).
    Desktop,
    /// A tablet.
    Tablet,
    /// No or an unrecognisable User-Agent.
    Unknown,
}

/// What the User-Agent says about the visitor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserAgentInfo {
    /// The device category.
    pub device: Device,
    /// The browser name, or `Unknown`.
    pub browser: String,
    /// The operating system name, or `Unknown`.
    pub os: String,
    /// Whether the agent is a known bot, crawler, link previewer or HTTP library.
    pub is_bot: bool,
}

/// A scan ready to be stored: no IP, only derived and anonymised values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewScan {
    /// The scanned link.
    pub link_id: LinkId,
    /// When the scan happened.
    pub at: DateTime<Utc>,
    /// The anonymous visitor id for the scan's UTC day (see [`visitor_id`]).
    pub visitor: [u8; 16],
    /// ISO country code, or `XX` when unknown.
    pub country: String,
    /// City name, or `Unknown`.
    pub city: String,
    /// Device category.
    pub device: Device,
    /// Browser name.
    pub browser: String,
    /// Operating system name.
    pub os: String,
    /// The referrer without query or fragment, if any.
    pub referrer: Option<String>,
    /// The index of the A/B variant the scan was sent to, if the link has a split.
    pub variant: Option<u8>,
    /// The index of the redirect rule that decided the target, if one did.
    pub rule: Option<u8>,
    /// The link's `maxScans` when the visit was answered: the store keeps the scan only while
    /// the link has recorded fewer, deciding in the batch's transaction, so the cap holds
    /// exactly however many servers record scans of the link. `None` for an uncapped link.
    pub max_scans: Option<u64>,
}

/// What became of a scan handed to the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScanFate {
    /// Committed, with this id.
    Stored(ScanId),
    /// Its link was deleted meanwhile: nothing stored.
    LinkGone,
    /// Its link had already recorded its `maxScans` (the scan's [`NewScan::max_scans`]):
    /// nothing stored, and the visitor gets the link's expired answer instead of the redirect.
    OverCap,
}

impl ScanFate {
    /// The stored scan's id, if it was stored.
    pub fn id(self) -> Option<ScanId> {
        match self {
            ScanFate::Stored(id) => Some(id),
            ScanFate::LinkGone | ScanFate::OverCap => None,
        }
    }
}

/// A stored scan as reported in `recentScans`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScanRecord {
    /// The scan's id.
    pub id: ScanId,
    /// When the scan happened.
    pub timestamp: DateTime<Utc>,
    /// ISO country code, or `XX`.
    pub country: String,
    /// City, or `Unknown`.
    pub city: String,
    /// Device category.
    pub device: Device,
    /// Browser name.
    pub browser: String,
    /// Operating system name.
    pub os: String,
    /// The cleaned referrer, `null` when none.
    pub referrer: Option<String>,
    /// The A/B variant the scan went to (left out when the link had no split).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<u8>,
    /// The redirect rule that decided the target (left out when none did).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<u8>,
}

impl NewScan {
    /// The UTC day of the scan.
    pub fn day(&self) -> NaiveDate {
        self.at.date_naive()
    }
}

impl Device {
    /// The lower-case name used in the API.
    pub fn as_str(self) -> &'static str {
        match self {
            Device::Mobile => "mobile",
            Device::Desktop => "desktop",
            Device::Tablet => "tablet",
            Device::Unknown => "unknown",
        }
    }
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Device {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "mobile" => Ok(Device::Mobile),
            "desktop" => Ok(Device::Desktop),
            "tablet" => Ok(Device::Tablet),
            "unknown" => Ok(Device::Unknown),
            other => Err(format!("unknown device {other:?}")),
        }
    }
}

/// Classifies a User-Agent with the woothee dataset, adding tablet detection and the agents of
/// [`crate::scans::bots::BOT_TOKENS`].
///
/// Tablets: iPads, Android devices without the `Mobile` token (Google's convention for tablets),
/// and agents that say `Tablet`. An empty or missing agent is a person with an unknown device.
pub fn classify_user_agent(user_agent: Option<&str>) -> UserAgentInfo {
    let unknown = |is_bot| UserAgentInfo {
        device: Device::Unknown,
        browser: UNKNOWN.to_owned(),
        os: UNKNOWN.to_owned(),
        is_bot,
    };
    let Some(ua) = user_agent.map(str::trim).filter(|s| !s.is_empty()) else {
        return unknown(false);
    };
    // "Cubot" is a phone brand, not a bot.
    let lower = ua.to_ascii_lowercase().replace("cubot", "cu-phone");
    let extra_bot = crate::scans::bots::is_listed(&lower);
    let Some(r) = woothee::parser::Parser::new().parse(ua) else {
        return unknown(extra_bot);
    };
    let is_bot = extra_bot || r.category == "crawler";
    let tablet = lower.contains("ipad")
        || lower.contains("tablet")
        || (lower.contains("android") && !lower.contains("mobile"));
    let device = match r.category {
        _ if tablet && r.category != "crawler" => Device::Tablet,
        "smartphone" | "mobilephone" => Device::Mobile,
        "pc" | "appliance" => Device::Desktop,
        _ => Device::Unknown,
    };
    let known = |s: &str| {
        if s.is_empty() || s == "UNKNOWN" {
            UNKNOWN.to_owned()
        } else {
            s.to_owned()
        }
    };
    let os = match r.os {
        "iPhone" | "iPad" | "iPod" => "iOS".to_owned(),
        "Mac OSX" => "macOS".to_owned(),
        other => known(other),
    };
    UserAgentInfo {
        device,
        browser: known(r.name),
        os,
        is_bot,
    }
}

/// Cleans a Referer header: query, fragment and credentials are removed; unparseable values give `None`.
pub fn clean_referrer(referer: Option<&str>) -> Option<String> {
    let raw = referer?.trim();
    if raw.is_empty() {
        return None;
    }
    let mut url = Url::parse(raw).ok()?;
    url.set_query(None);
    url.set_fragment(None);
    // Both calls only fail for URLs that cannot have credentials, which then have none to remove.
    let _ = url.set_username("");
    let _ = url.set_password(None);
    let cleaned = String::from(url);
    if cleaned.chars().count() <= MAX_REFERRER_CHARS {
        return Some(cleaned);
    }
    let origin = Url::parse(&cleaned).ok()?.origin().ascii_serialization();
    (origin != "null").then_some(origin)
}

/// The anonymous visitor id: the first 16 bytes of SHA-256(daily salt, IP, User-Agent, link).
///
/// The salt is random per UTC day and destroyed after two days, after which the id can no
/// longer be linked to an IP address.
pub fn visitor_id(
    salt: &[u8; 32],
    ip: Option<IpAddr>,
    user_agent: Option<&str>,
    link: LinkId,
) -> [u8; 16] {
    let mut h = Sha256::new();
    h.update(salt);
    match ip.map(canonical) {
        Some(IpAddr::V4(v4)) => h.update(
            [4u8]
                .iter()
                .chain(v4.octets().iter())
                .copied()
                .collect::<Vec<u8>>(),
        ),
        Some(IpAddr::V6(v6)) => h.update(
            [6u8]
                .iter()
                .chain(v6.octets().iter())
                .copied()
                .collect::<Vec<u8>>(),
        ),
        None => h.update([0u8]),
    }
    let ua = user_agent.unwrap_or("").as_bytes();
    h.update((ua.len() as u64).to_be_bytes());
    h.update(ua);
    h.update(link.as_uuid().as_bytes());
    let digest = h.finalize();
    let mut out = [0u8; 16];
    out.copy_from_slice(&digest[..16]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(ua: &str, device: Device, browser: &str, os: &str, is_bot: bool) {
        let got = classify_user_agent(Some(ua));
        let want = UserAgentInfo {
            device,
            browser: browser.to_owned(),
            os: os.to_owned(),
            is_bot,
        };
        assert_eq!(got, want, "{ua}");
    }

    #[test]
    fn user_agents() {
        check(
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
            Device::Mobile,
            "Safari",
            "iOS",
            false,
        );
        check(
            "Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1",
            Device::Tablet,
            "Safari",
            "iOS",
            false,
        );
        check(
            "Mozilla/5.0 (Linux; Android 13; SM-X700) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
            Device::Tablet,
            "Chrome",
            "Android",
            false,
        );
        check(
            "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36",
            Device::Mobile,
            "Chrome",
            "Android",
            false,
        );
        check(
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
            Device::Desktop,
            "Chrome",
            "Windows 10",
            false,
        );
        check(
            "Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:121.0) Gecko/20100101 Firefox/121.0",
            Device::Desktop,
            "Firefox",
            "macOS",
            false,
        );
        check(
            "Mozilla/5.0 (Linux; Android 12; CUBOT X50) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/118.0.0.0 Mobile Safari/537.36",
            Device::Mobile,
            "Chrome",
            "Android",
            false,
        );
    }

    #[test]
    fn bots_are_recognised() {
        let bot = |ua: &str, expected: bool| {
            assert_eq!(classify_user_agent(Some(ua)).is_bot, expected, "{ua}")
        };
        bot(
            "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
            true,
        );
        bot(
            "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
            true,
        );
        bot(
            "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
            true,
        );
        bot(
            "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
            true,
        );
        bot("WhatsApp/2.23.20.0", true);
        bot(
            "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0 Safari/537.36",
            true,
        );
        bot("curl/8.4.0", true);
        bot("python-requests/2.31.0", true);
        bot(
            "Mozilla/5.0 (Linux; Android 12; CUBOT X50) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/118.0.0.0 Mobile Safari/537.36",
            false,
        );
        bot(
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0",
            false,
        );
    }

    #[test]
    fn missing_user_agent_is_a_person_with_unknown_device() {
        let none = classify_user_agent(None);
        assert_eq!(none.device, Device::Unknown);
        assert!(!none.is_bot);
        assert_eq!(classify_user_agent(Some("  ")), none);
    }

    fn referrer(input: Option<&str>, expected: Option<&str>) {
        assert_eq!(clean_referrer(input).as_deref(), expected, "{input:?}");
    }

    #[test]
    fn referrers() {
        referrer(None, None);
        referrer(Some(""), None);
        referrer(Some("not a url"), None);
        referrer(
            Some("https://news.example.com/a/b?utm=1&x=2#top"),
            Some("https://news.example.com/a/b"),
        );
        referrer(
            Some("https://u:p@example.com/x?q"),
            Some("https://example.com/x"),
        );
        referrer(
            Some("android-app://com.google.android.gm/"),
            Some("android-app://com.google.android.gm/"),
        );
        let long = format!("https://example.com/{}", "a".repeat(3000));
        referrer(Some(&long), Some("https://example.com"));
    }

    #[test]
    fn visitor_ids_depend_on_every_input() {
        let link = LinkId::random();
        let salt = [1u8; 32];
        let ip: IpAddr = "192.0.2.1".parse().unwrap();
        let base = visitor_id(&salt, Some(ip), Some("UA"), link);
        assert_eq!(base, visitor_id(&salt, Some(ip), Some("UA"), link));
        assert_eq!(
            base,
            visitor_id(
                &salt,
                Some("::ffff:192.0.2.1".parse().unwrap()),
                Some("UA"),
                link
            )
        );
        assert_ne!(base, visitor_id(&[2u8; 32], Some(ip), Some("UA"), link));
        assert_ne!(
            base,
            visitor_id(&salt, Some("192.0.2.2".parse().unwrap()), Some("UA"), link)
        );
        assert_ne!(base, visitor_id(&salt, Some(ip), Some("UB"), link));
        assert_ne!(
            base,
            visitor_id(&salt, Some(ip), Some("UA"), LinkId::random())
        );
    }
}
