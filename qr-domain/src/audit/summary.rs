//! What changed, field by field, for each object the log names: a link, a design, a domain, a webhook, a key. Secrets never appear: a link's password and a key's secret show as changed without values, a webhook's secret not at all.
//!
//! A creation lists the new object's fields (before: none), a deletion its last fields (after:
//! none), so the entry still says what the object was once it is gone; an update lists the
//! fields whose value differs. Values are text as the API writes them (JSON for lists and
//! campaign settings), each cut to [`crate::audit::entry::MAX_VALUE_CHARS`].

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::accounts::key::ApiKey;
use crate::audit::entry::Change;
use crate::designs::design::Design;
use crate::domains::domain::{Domain, DomainSettings};
use crate::links::campaign::LinkOptions;
use crate::links::link::Link;
use crate::webhooks::webhook::Webhook;

/// A value as compact JSON text (a string without its quotes).
fn text<T: Serialize>(value: &T) -> Option<String> {
    match serde_json::to_value(value).ok()? {
        serde_json::Value::Null => None,
        serde_json::Value::String(s) => Some(s),
        other => Some(other.to_string()),
    }
}

/// The fields of an object as (name, value) pairs, secrets excluded, in a fixed order; and
/// whether it holds a secret whose change is shown without values.
struct Fields {
    shown: Vec<(&'static str, Option<String>)>,
    /// A secret's field name and a fingerprint that differs when it changes (never shown).
    secret: Option<(&'static str, Option<String>)>,
}

/// The differences between two field lists of the same object kind.
fn diff(before: Option<Fields>, after: Option<Fields>) -> Vec<Change> {
    let names_of = |f: &Option<Fields>| {
        f.as_ref().map(|f| {
            f.shown
                .iter()
                .map(|(n, _)| *n)
                .collect::<Vec<&'static str>>()
        })
    };
    let names = names_of(&after)
        .or_else(|| names_of(&before))
        .unwrap_or_default();
    let value = |f: &Option<Fields>, i: usize| -> Option<String> {
        f.as_ref()
            .and_then(|f| f.shown.get(i).and_then(|(_, v)| v.clone()))
    };
    let mut changes: Vec<Change> = names
        .iter()
        .enumerate()
        .filter_map(|(i, name)| {
            let (b, a) = (value(&before, i), value(&after, i));
            (b != a).then(|| Change::shown(name, b, a))
        })
        .collect();
    let secret = |f: &Option<Fields>| f.as_ref().and_then(|f| f.secret.clone());
    match (secret(&before), secret(&after)) {
        (Some((name, b)), Some((_, a))) if b != a => changes.push(Change::hidden(name)),
        (Some((name, Some(_))), None) | (None, Some((name, Some(_)))) => {
            changes.push(Change::hidden(name));
        }
        _ => {}
    }
    changes
}

fn link_fields(link: &Link) -> Fields {
    let options = link.options.get().cloned().unwrap_or_default();
    let password = options.password.as_ref().map(|h| h.as_str().to_owned());
    let public = LinkOptions {
        password: None,
        ..options
    };
    let mut shown = vec![
        ("name", Some(link.name.as_str().to_owned())),
        ("targetUrl", Some(link.target_url.as_str().to_owned())),
        ("shortCode", Some(link.short_code.to_string())),
        ("domain", link.domain.as_ref().map(ToString::to_string)),
        (
            "tags",
            (!link.tags.is_empty()).then(|| text(&link.tags)).flatten(),
        ),
        ("design", link.design.map(|d| d.to_string())),
    ];
    // Each campaign setting as its own field, by its API name (the password excluded above).
    let settings = match serde_json::to_value(&public) {
        Ok(serde_json::Value::Object(map)) => map,
        _ => serde_json::Map::new(),
    };
    for name in CAMPAIGN_FIELDS {
        shown.push((name, settings.get(name).and_then(text)));
    }
    Fields {
        shown,
        secret: Some(("password", password)),
    }
}

/// The campaign settings a summary lists, by their API names (`LinkOptions`' serde names,
/// the password excepted).
const CAMPAIGN_FIELDS: [&str; 9] = [
    "validFrom",
    "validUntil",
    "maxScans",
    "expiredUrl",
    "disabled",
    "rules",
    "variants",
    "utm",
    "forwardQuery",
];

/// A link's fields on creation.
pub fn link_created(link: &Link) -> Vec<Change> {
    diff(None, Some(link_fields(link)))
}

/// The link's fields that differ between `before` and `after`.
pub fn link_updated(before: &Link, after: &Link) -> Vec<Change> {
    diff(Some(link_fields(before)), Some(link_fields(after)))
}

/// A deleted link's last fields.
pub fn link_deleted(link: &Link) -> Vec<Change> {
    diff(Some(link_fields(link)), None)
}

fn design_fields(design: &Design) -> Fields {
    let look: Vec<String> = design
        .look
        .pairs()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    Fields {
        shown: vec![
            ("name", Some(design.name.as_str().to_owned())),
            ("look", (!look.is_empty()).then(|| look.join("&"))),
            (
                "logo",
                design.logo.as_ref().map(|l| {
                    // The digest's first 8 bytes tell one upload from another of equal size.
                    let digest = Sha256::digest(l.bytes());
                    let short: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
                    format!(
                        "{}, {} bytes, sha256 {short}",
                        l.kind().media_type(),
                        l.bytes().len()
                    )
                }),
            ),
            ("isDefault", Some(design.is_default.to_string())),
        ],
        secret: None,
    }
}

/// A design's fields on creation.
pub fn design_created(design: &Design) -> Vec<Change> {
    diff(None, Some(design_fields(design)))
}

/// The design's fields that differ.
pub fn design_updated(before: &Design, after: &Design) -> Vec<Change> {
    diff(Some(design_fields(before)), Some(design_fields(after)))
}

/// A removed design's last fields.
pub fn design_deleted(design: &Design) -> Vec<Change> {
    diff(Some(design_fields(design)), None)
}

fn domain_fields(name: &str, settings: &DomainSettings) -> Fields {
    let mut shown = vec![("domain", Some(name.to_owned()))];
    let map = match serde_json::to_value(settings) {
        Ok(serde_json::Value::Object(map)) => map,
        _ => serde_json::Map::new(),
    };
    for field in DOMAIN_FIELDS {
        shown.push((field, map.get(field).and_then(text)));
    }
    Fields {
        shown,
        secret: None,
    }
}

/// A domain's settings by their API names.
const DOMAIN_FIELDS: [&str; 5] = [
    "rootUrl",
    "notFoundUrl",
    "appleAppSiteAssociation",
    "assetlinks",
    "appSchemes",
];

/// An added domain's name and settings.
pub fn domain_added(domain: &Domain) -> Vec<Change> {
    diff(
        None,
        Some(domain_fields(domain.name.as_str(), &domain.settings)),
    )
}

/// The domain's settings that differ.
pub fn domain_updated(before: &Domain, after: &Domain) -> Vec<Change> {
    diff(
        Some(domain_fields(before.name.as_str(), &before.settings)),
        Some(domain_fields(after.name.as_str(), &after.settings)),
    )
}

/// A removed domain's last name and settings.
pub fn domain_deleted(domain: &Domain) -> Vec<Change> {
    diff(
        Some(domain_fields(domain.name.as_str(), &domain.settings)),
        None,
    )
}

fn webhook_fields(webhook: &Webhook) -> Fields {
    let events: Vec<&str> = webhook.events.kinds().map(|k| k.as_str()).collect();
    // The secret is left out entirely: it is only ever shown in the answer to its creation.
    Fields {
        shown: vec![
            ("url", Some(webhook.url.as_str().to_owned())),
            ("events", Some(events.join(","))),
        ],
        secret: None,
    }
}

/// A registered webhook's URL and events.
pub fn webhook_created(webhook: &Webhook) -> Vec<Change> {
    diff(None, Some(webhook_fields(webhook)))
}

/// A removed webhook's URL and events.
pub fn webhook_deleted(webhook: &Webhook) -> Vec<Change> {
    diff(Some(webhook_fields(webhook)), None)
}

/// The key settings a summary lists, by their API names (`KeySettings`' serde names).
const KEY_SETTING_FIELDS: [&str; 5] = [
    "allowedOrigins",
    "ipAllowlist",
    "ratePerSecond",
    "disabledEndpoints",
    "scopes",
];

fn key_fields(key: &ApiKey) -> Fields {
    let mut shown = vec![
        ("name", Some(key.name.clone())),
        ("mode", Some(key.mode.as_str().to_owned())),
        ("prefix", Some(key.display_prefix.clone())),
    ];
    let settings = match serde_json::to_value(&key.settings) {
        Ok(serde_json::Value::Object(map)) => map,
        _ => serde_json::Map::new(),
    };
    for name in KEY_SETTING_FIELDS {
        // An empty list restricts nothing, as an absent one: neither is shown.
        let value = settings
            .get(name)
            .filter(|v| v.as_array().is_none_or(|a| !a.is_empty()))
            .and_then(text);
        shown.push((name, value));
    }
    if key.settings.scopes.is_none() {
        shown.push(("access", Some("full".to_owned())));
    } else {
        shown.push(("access", Some("scoped".to_owned())));
    }
    Fields {
        shown,
        // The secret's hash tells a regeneration apart; it is never shown.
        secret: Some((
            "secret",
            Some(key.hash.0.iter().map(|b| format!("{b:02x}")).collect()),
        )),
    }
}

/// A new key's name, mode, prefix and restrictions (the secret only as set).
pub fn key_created(key: &ApiKey) -> Vec<Change> {
    diff(None, Some(key_fields(key)))
}

/// The key's fields that differ between `before` and `after`; a new secret shows as
/// `secret: changed`.
pub fn key_updated(before: &ApiKey, after: &ApiKey) -> Vec<Change> {
    diff(Some(key_fields(before)), Some(key_fields(after)))
}

/// A revoked key's last fields.
pub fn key_revoked(key: &ApiKey) -> Vec<Change> {
    diff(Some(key_fields(key)), None)
}

/// A field that went from one value to another (a member's role, the plan).
pub fn field_changed(field: &str, before: Option<&str>, after: Option<&str>) -> Vec<Change> {
    vec![Change::shown(
        field,
        before.map(str::to_owned),
        after.map(str::to_owned),
    )]
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::accounts::caller::Caller;
    use crate::accounts::plan::Plan;
    use crate::audit::query::AuditQuery;
    use crate::clock::TestClock;
    use crate::links::link::LinkUpdate;
    use crate::memory::MemoryStore;
    use crate::scans::geo::NoGeoLocator;
    use crate::service::Service;

    use super::*;

    const PASSWORD: &str = "correct-horse-battery";
    const NEW_PASSWORD: &str = "tr0ub4dor-and-3";
    const WEBHOOK_SECRET: &str = "whsec-twenty-chars-or-more";

    /// Every field of every entry the log holds, as text.
    fn logged(svc: &Service<MemoryStore, TestClock>, caller: &Caller) -> Vec<String> {
        let page = svc.audit_log(caller, &AuditQuery::default()).unwrap();
        page.entries
            .iter()
            .flat_map(|e| {
                let e = &e.entry;
                let mut fields = vec![
                    e.actor.id.clone(),
                    e.actor.label.clone(),
                    e.action.to_string(),
                    e.object.id.clone(),
                    format!("{e:?}"),
                    crate::audit::entry::summary_line(&e.changes),
                    serde_json::to_string(&e.changes).unwrap(),
                ];
                fields.extend(e.changes.iter().flat_map(|c| match &c.values {
                    crate::audit::entry::ChangeValues::Shown { before, after } => {
                        vec![
                            before.clone().unwrap_or_default(),
                            after.clone().unwrap_or_default(),
                        ]
                    }
                    crate::audit::entry::ChangeValues::Hidden { .. } => Vec::new(),
                }));
                fields
            })
            .collect()
    }

    #[test]
    fn no_secret_reaches_any_field_of_the_log() {
        let clock = TestClock::new("2026-11-28T10:00:00Z".parse().unwrap());
        let svc =
            Service::new(Arc::new(MemoryStore::new()), clock, Arc::new(NoGeoLocator)).unwrap();
        let account = svc.create_account("owner@example.com", Plan::Pro).unwrap();
        let caller = Caller::operator(account.id);
        let mut fields = LinkUpdate::parse(Some("Gated"), Some("https://example.com/")).unwrap();
        fields.set_password(Some(PASSWORD)).unwrap();
        let link = svc.create_link_with(&caller, fields).unwrap();
        let hash = link
            .options
            .get()
            .unwrap()
            .password
            .as_ref()
            .unwrap()
            .as_str()
            .to_owned();
        let mut update = LinkUpdate::default();
        update.set_password(Some(NEW_PASSWORD)).unwrap();
        let changed = svc.update_link(&caller, link.id, &update).unwrap();
        let new_hash = changed
            .options
            .get()
            .unwrap()
            .password
            .as_ref()
            .unwrap()
            .as_str()
            .to_owned();
        let mut cleared = LinkUpdate::default();
        cleared.set_password(None).unwrap();
        svc.update_link(&caller, link.id, &cleared).unwrap();
        svc.delete_link(&caller, link.id).unwrap();
        let hook = svc
            .create_webhook(
                &caller,
                "https://hooks.example.com/qr",
                &["link.created"],
                Some(WEBHOOK_SECRET),
            )
            .unwrap();
        svc.delete_webhook(&caller, hook.id).unwrap();
        let text = logged(&svc, &caller);
        assert!(text.len() > 20, "the log holds the six entries' fields");
        for secret in [
            PASSWORD,
            NEW_PASSWORD,
            WEBHOOK_SECRET,
            &hash,
            &new_hash,
            "argon2",
        ] {
            for field in &text {
                assert!(!field.contains(secret), "{secret:?} appears in {field:?}");
            }
        }
        // The password's changes are there, as changes without values.
        let page = svc.audit_log(&caller, &AuditQuery::default()).unwrap();
        let password_changes = page
            .entries
            .iter()
            .filter(|e| e.entry.changes.contains(&Change::hidden("password")))
            .count();
        assert_eq!(
            password_changes, 3,
            "set on creation, changed, removed (the deletion came after)"
        );
        assert!(
            text.iter().any(|f| f == "https://hooks.example.com/qr"),
            "the webhook's URL is kept"
        );
    }

    #[test]
    fn an_update_lists_only_what_changed() {
        let clock = TestClock::new("2026-11-28T10:00:00Z".parse().unwrap());
        let svc =
            Service::new(Arc::new(MemoryStore::new()), clock, Arc::new(NoGeoLocator)).unwrap();
        let account = svc.create_account("owner@example.com", Plan::Pro).unwrap();
        let caller = Caller::operator(account.id);
        let link = svc
            .create_link(&caller, "Flyer", "https://example.com/a")
            .unwrap();
        let mut update = LinkUpdate::parse(None, Some("https://example.com/b")).unwrap();
        update.set_tags(&["spring"]).unwrap();
        update.set_max_scans(Some(10)).unwrap();
        let after = svc.update_link(&caller, link.id, &update).unwrap();
        assert_eq!(
            link_updated(&link, &after),
            [
                Change::shown(
                    "targetUrl",
                    Some("https://example.com/a".into()),
                    Some("https://example.com/b".into())
                ),
                Change::shown("tags", None, Some(r#"["spring"]"#.into())),
                Change::shown("maxScans", None, Some("10".into())),
            ]
        );
        assert!(link_updated(&after, &after).is_empty());
        let created = link_created(&link);
        assert!(created.contains(&Change::shown("name", None, Some("Flyer".into()))));
        assert!(
            created.iter().all(|c| c.field != "password"),
            "no password, no entry for it"
        );
    }
}
