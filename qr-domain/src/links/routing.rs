//! Where a visit to a link with campaign settings goes: the first rule whose conditions all hold, else the visitor's A/B variant, else the link's target; then the UTM parameters and the scan's own query added to a web target, never twice (an app target is sent as written).

use url::Url;

use crate::links::campaign::{Conditions, LinkOptions, OsFamily, RuleTarget, Utm};
use crate::links::link::TargetUrl;
use crate::scans::scan::Device;

/// Most `Accept-Language` entries read (a header is bounded anyway; this bounds the work).
const MAX_LANGUAGE_ENTRIES: usize = 32;
/// Longest scan query forwarded to the target; a longer one is not forwarded at all, so the
/// redirect's URL stays bounded.
pub const MAX_FORWARDED_QUERY_CHARS: usize = 2048;

/// What the rules look at in a visit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VisitTraits {
    /// The device category of the User-Agent.
    pub device: Device,
    /// The operating system family of the User-Agent, if one the rules know.
    pub os: Option<OsFamily>,
    /// The country code of the visitor's address (`XX` when unknown).
    pub country: String,
    /// The visitor's preferred language tag, normalised (`de-AT`), if any.
    pub language: Option<String>,
}

/// Where a visit goes, and which rule or variant sent it there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    /// The URL of the `Location` header.
    pub target: String,
    /// The index of the rule that matched.
    pub rule: Option<u8>,
    /// The index of the variant chosen.
    pub variant: Option<u8>,
}

/// A language tag normalised (`DE-at` → `de-AT`): a primary subtag of 2 or 3 letters, then at
/// most one more subtag (a region of 2 letters or 3 digits, or a script of 4 letters).
pub fn language_tag(raw: &str) -> Option<String> {
    let raw = raw.trim();
    let mut parts = raw.split(['-', '_']);
    let primary = parts.next()?;
    if !(2..=3).contains(&primary.len()) || !primary.bytes().all(|b| b.is_ascii_alphabetic()) {
        return None;
    }
    let mut tag = primary.to_ascii_lowercase();
    if let Some(sub) = parts.next() {
        let region = (sub.len() == 2 && sub.bytes().all(|b| b.is_ascii_alphabetic()))
            || (sub.len() == 3 && sub.bytes().all(|b| b.is_ascii_digit()));
        let script = sub.len() == 4 && sub.bytes().all(|b| b.is_ascii_alphabetic());
        tag.push('-');
        if region {
            tag.push_str(&sub.to_ascii_uppercase());
        } else if script {
            tag.push_str(&sub[..1].to_ascii_uppercase());
            tag.push_str(&sub[1..].to_ascii_lowercase());
        } else {
            return None;
        }
    }
    if parts.next().is_some() {
        return None;
    }
    Some(tag)
}

/// The visitor's preferred language from `Accept-Language`: the entry with the highest `q`
/// (the first on ties), ignoring `*`, `q=0` and entries that are not language tags. Only the
/// first two subtags of an entry count (`zh-Hant-TW` is `zh-Hant`).
pub fn preferred_language(header: Option<&str>) -> Option<String> {
    let mut best: Option<(u16, String)> = None;
    for entry in header?.split(',').take(MAX_LANGUAGE_ENTRIES) {
        let mut fields = entry.split(';');
        let range = fields.next().unwrap_or("").trim();
        let q = fields
            .find_map(|p| p.trim().strip_prefix("q="))
            .map_or(Some(1000), quality);
        let Some(q) = q.filter(|q| *q > 0) else {
            continue;
        };
        let short: String = range.split('-').take(2).collect::<Vec<_>>().join("-");
        let Some(tag) = language_tag(&short) else {
            continue;
        };
        if best.as_ref().is_none_or(|(b, _)| q > *b) {
            best = Some((q, tag));
        }
    }
    best.map(|(_, tag)| tag)
}

/// A `q` value in thousandths (`0.8` → 800); `None` when malformed.
fn quality(raw: &str) -> Option<u16> {
    let raw = raw.trim();
    let (whole, frac) = raw.split_once('.').unwrap_or((raw, ""));
    if frac.len() > 3 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let frac: u16 = format!("{frac:0<3}").parse().ok()?;
    match whole {
        "0" => Some(frac),
        "1" if frac == 0 => Some(1000),
        _ => None,
    }
}

/// Whether every condition of a rule holds for the visit.
pub fn matches(when: &Conditions, visit: &VisitTraits) -> bool {
    when.device.is_none_or(|d| d == visit.device)
        && when.os.is_none_or(|o| Some(o) == visit.os)
        && when.country.as_deref().is_none_or(|c| c == visit.country)
        && when.language.as_deref().is_none_or(|want| {
            visit.language.as_deref().is_some_and(|have| {
                have == want
                    || (!want.contains('-') && have.split('-').next().is_some_and(|p| p == want))
            })
        })
}

/// The variant of a visitor: the first 8 bytes of the visitor hash (daily salted, so the choice
/// holds for the day) modulo the total weight. Without a visitor hash, the first variant.
pub fn variant_of(weights: &[u32], visitor: Option<&[u8; 16]>) -> usize {
    let total: u64 = weights.iter().map(|w| u64::from(*w)).sum();
    let Some(visitor) = visitor.filter(|_| total > 0) else {
        return 0;
    };
    let mut head = [0u8; 8];
    head.copy_from_slice(&visitor[..8]);
    let mut point = u64::from_be_bytes(head) % total;
    for (i, w) in weights.iter().enumerate() {
        let w = u64::from(*w);
        if point < w {
            return i;
        }
        point -= w;
    }
    weights.len().saturating_sub(1)
}

/// Which target a visit gets, with the UTM parameters and the forwarded query added.
pub fn route(
    options: &LinkOptions,
    target: &TargetUrl,
    visit: &VisitTraits,
    visitor: Option<&[u8; 16]>,
    scan_query: Option<&str>,
) -> Route {
    let mut route = Route {
        target: String::new(),
        rule: None,
        variant: None,
    };
    let chosen = if let Some((i, rule)) = options
        .rules
        .iter()
        .enumerate()
        .find(|(_, r)| matches(&r.when, visit))
    {
        route.rule = u8::try_from(i).ok();
        match &rule.target_url {
            RuleTarget::Web(url) => url,
            // An app URL is sent as written: UTM and query parameters are a web page's, and
            // appended to `tel:` or `geo:` they would change the number or the place.
            RuleTarget::App(url) => {
                route.target = url.as_str().to_owned();
                return route;
            }
        }
    } else if options.variants.is_empty() {
        target
    } else {
        let weights: Vec<u32> = options.variants.iter().map(|v| v.weight).collect();
        let i = variant_of(&weights, visitor);
        route.variant = u8::try_from(i).ok();
        &options.variants[i].target_url
    };
    let forwarded = scan_query
        .filter(|_| options.forward_query)
        .filter(|q| !q.is_empty() && q.len() <= MAX_FORWARDED_QUERY_CHARS);
    route.target = decorate(chosen.as_str(), options.utm.as_ref(), forwarded);
    route
}

/// `url` with the UTM parameters and then the forwarded query's parameters added, each only
/// when the URL does not have a parameter of that name already (the target's own win).
pub fn decorate(url: &str, utm: Option<&Utm>, forwarded: Option<&str>) -> String {
    if utm.is_none() && forwarded.is_none() {
        return url.to_owned();
    }
    let Ok(mut parsed) = Url::parse(url) else {
        return url.to_owned();
    };
    let mut names: Vec<String> = parsed.query_pairs().map(|(k, _)| k.into_owned()).collect();
    let mut added: Vec<(String, String)> = Vec::new();
    let extra = utm
        .into_iter()
        .flat_map(|u| u.pairs().map(|(k, v)| (k.to_owned(), v.to_owned())))
        .chain(
            forwarded
                .into_iter()
                .flat_map(|q| url::form_urlencoded::parse(q.as_bytes()).into_owned()),
        );
    for (k, v) in extra {
        if k.is_empty() || names.contains(&k) {
            continue;
        }
        names.push(k.clone());
        added.push((k, v));
    }
    if added.is_empty() {
        return url.to_owned();
    }
    parsed.query_pairs_mut().extend_pairs(added);
    String::from(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::links::campaign::{Rule, Variant};

    fn traits(
        device: Device,
        os: Option<OsFamily>,
        country: &str,
        lang: Option<&str>,
    ) -> VisitTraits {
        VisitTraits {
            device,
            os,
            country: country.into(),
            language: lang.map(str::to_owned),
        }
    }

    #[test]
    fn languages() {
        assert_eq!(language_tag("DE-at").as_deref(), Some("de-AT"));
        assert_eq!(language_tag("zh-hant").as_deref(), Some("zh-Hant"));
        assert_eq!(language_tag("es-419").as_deref(), Some("es-419"));
        assert_eq!(language_tag("english"), None);
        assert_eq!(language_tag("de-AT-x"), None);
        let p = |h| preferred_language(Some(h));
        assert_eq!(p("de-AT,de;q=0.9,en;q=0.8").as_deref(), Some("de-AT"));
        assert_eq!(p("en;q=0.5, fr;q=0.9").as_deref(), Some("fr"));
        assert_eq!(p("*, it;q=0.1").as_deref(), Some("it"));
        assert_eq!(p("de;q=0, en;q=0.2").as_deref(), Some("en"));
        assert_eq!(p("zh-Hant-TW").as_deref(), Some("zh-Hant"));
        assert_eq!(p("en;q=2"), None);
        assert_eq!(preferred_language(None), None);
    }

    #[test]
    fn conditions_all_hold() {
        let when = Conditions {
            device: Some(Device::Mobile),
            language: Some("de".into()),
            ..Conditions::default()
        };
        assert!(matches(
            &when,
            &traits(Device::Mobile, None, "XX", Some("de-AT"))
        ));
        assert!(!matches(
            &when,
            &traits(Device::Desktop, None, "XX", Some("de"))
        ));
        assert!(!matches(&when, &traits(Device::Mobile, None, "XX", None)));
        let exact = Conditions {
            language: Some("de-AT".into()),
            country: Some("AT".into()),
            os: Some(OsFamily::Ios),
            ..Conditions::default()
        };
        assert!(matches(
            &exact,
            &traits(Device::Mobile, Some(OsFamily::Ios), "AT", Some("de-AT"))
        ));
        assert!(!matches(
            &exact,
            &traits(Device::Mobile, Some(OsFamily::Ios), "AT", Some("de"))
        ));
        assert!(!matches(
            &exact,
            &traits(Device::Mobile, Some(OsFamily::Ios), "DE", Some("de-AT"))
        ));
    }

    #[test]
    fn variants_split_by_weight_and_stick() {
        let mut counts = [0u32; 2];
        use sha2::{Digest, Sha256};
        for i in 0..10_000u32 {
            // Visitor ids are SHA-256 prefixes.
            let digest = Sha256::digest(i.to_be_bytes());
            let mut v = [0u8; 16];
            v.copy_from_slice(&digest[..16]);
            counts[variant_of(&[1, 3], Some(&v))] += 1;
        }
        assert!((2_200..=2_800).contains(&counts[0]), "{counts:?}");
        let v = [7u8; 16];
        assert_eq!(variant_of(&[5, 5], Some(&v)), variant_of(&[5, 5], Some(&v)));
        assert_eq!(variant_of(&[5, 5], None), 0);
    }

    #[test]
    fn rules_win_then_variants_then_the_target() {
        let url = |s: &str| TargetUrl::parse(s).unwrap();
        let options = LinkOptions {
            rules: vec![Rule {
                when: Conditions {
                    os: Some(OsFamily::Ios),
                    ..Conditions::default()
                },
                target_url: url("https://apps.apple.com/app").into(),
            }],
            variants: vec![
                Variant {
                    target_url: url("https://a.example/"),
                    weight: 1,
                },
                Variant {
                    target_url: url("https://b.example/"),
                    weight: 1,
                },
            ],
            ..LinkOptions::default()
        };
        let target = url("https://example.com/");
        let ios = route(
            &options,
            &target,
            &traits(Device::Mobile, Some(OsFamily::Ios), "XX", None),
            None,
            None,
        );
        assert_eq!(
            (ios.target.as_str(), ios.rule, ios.variant),
            ("https://apps.apple.com/app", Some(0), None)
        );
        let other = route(
            &options,
            &target,
            &traits(Device::Desktop, None, "XX", None),
            None,
            None,
        );
        assert_eq!(
            (other.target.as_str(), other.rule, other.variant),
            ("https://a.example/", None, Some(0))
        );
        let plain = route(
            &LinkOptions::default(),
            &target,
            &traits(Device::Desktop, None, "XX", None),
            None,
            Some("a=1"),
        );
        assert_eq!(plain.target, "https://example.com/");
    }

    #[test]
    fn an_app_target_is_sent_as_written_without_utm_or_the_scan_query() {
        let options = LinkOptions {
            rules: vec![
                Rule {
                    when: Conditions {
                        os: Some(OsFamily::Android),
                        ..Conditions::default()
                    },
                    target_url: RuleTarget::parse("BrandApp://product/42?x=1").unwrap(),
                },
                Rule {
                    when: Conditions {
                        device: Some(Device::Mobile),
                        ..Conditions::default()
                    },
                    target_url: RuleTarget::parse("tel:+49-30-123").unwrap(),
                },
            ],
            utm: Some(Utm {
                source: Some("poster".into()),
                ..Utm::default()
            }),
            forward_query: true,
            ..LinkOptions::default()
        };
        let target = TargetUrl::parse("https://example.com/").unwrap();
        let go = |t: VisitTraits| route(&options, &target, &t, None, Some("a=1"));
        let android = go(traits(Device::Mobile, Some(OsFamily::Android), "XX", None));
        assert_eq!(
            (android.target.as_str(), android.rule),
            ("brandapp://product/42?x=1", Some(0))
        );
        let phone = go(traits(Device::Mobile, Some(OsFamily::Ios), "XX", None));
        assert_eq!(
            (phone.target.as_str(), phone.rule),
            ("tel:+49-30-123", Some(1))
        );
        let desktop = go(traits(Device::Desktop, None, "XX", None));
        assert_eq!(desktop.target, "https://example.com/?utm_source=poster&a=1");
    }

    #[test]
    fn utm_and_forwarded_queries_never_duplicate() {
        let utm = Utm {
            source: Some("poster".into()),
            campaign: Some("spring sale".into()),
            ..Utm::default()
        };
        assert_eq!(
            decorate(
                "https://example.com/p?utm_source=web&x=1",
                Some(&utm),
                Some("x=2&y=3&utm_campaign=zzz&&=4")
            ),
            "https://example.com/p?utm_source=web&x=1&utm_campaign=spring+sale&y=3"
        );
        assert_eq!(
            decorate("https://example.com/", None, None),
            "https://example.com/"
        );
        assert_eq!(
            decorate("https://example.com/#top", None, Some("a=%C3%A9")),
            "https://example.com/?a=%C3%A9#top"
        );
    }
}
