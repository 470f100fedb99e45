//! Visits to links with campaign settings: pause, schedule and scan cap, the password and its throttle, and the rule or variant chosen, recorded with the scan. Links without settings keep the plain redirect of `scans.rs`.

use std::sync::LazyLock;

use chrono::{DateTime, Utc};

use crate::clock::Clock;
use crate::links::campaign::{LinkOptions, OsFamily};
use crate::links::link::Link;
use crate::links::routing::{self, VisitTraits};
use crate::links::service::CodeAddress;
use crate::scans::geo::Location;
use crate::scans::scan::{classify_user_agent, visitor_id};
use crate::scans::service::{Pick, PreparedScan, ScanError, Skip, Visit};
use crate::service::Service;
use crate::store::Store;

/// A visit to a short URL as the domain needs it to choose the answer.
#[derive(Debug, Clone, Default)]
pub struct Opening {
    /// The visitor (address, User-Agent, Referer, hints).
    pub visit: Visit,
    /// Whether the visit is a scan to record (a person's GET, or a password form sent), not a
    /// HEAD of a link checker.
    pub record: bool,
    /// The `Accept-Language` header, for rules on the language.
    pub accept_language: Option<String>,
    /// The query of the scanned URL, forwarded when the link says so.
    pub query: Option<String>,
    /// The password sent with the form, if this is the form's POST.
    pub password: Option<String>,
}

/// What a visit gets.
#[derive(Debug, Clone, PartialEq, Eq)]
// Built once per visit and taken apart at once: boxing the redirect would add an allocation to
// every campaign redirect to save a move of about 240 bytes.
#[allow(clippy::large_enum_variant)]
pub enum Landing {
    /// A redirect to `target`; `scan` is what the visit records (`None` for a HEAD).
    Redirect {
        /// The `Location`.
        target: String,
        /// The scan to queue, or why there is none.
        scan: Option<PreparedScan>,
        /// For a link with `maxScans`, the answer instead of the redirect when the store finds
        /// the cap already reached as it stores the scan.
        capped: Option<CapAnswer>,
    },
    /// The link is paused: the paused page (404), nothing recorded.
    Paused,
    /// The link's `validFrom` is still ahead: the not-yet-active page (404).
    NotYetActive,
    /// The link is past `validUntil` or has reached `maxScans`: a redirect to `expired_url`,
    /// or the expired page (410) without one; nothing recorded.
    Expired {
        /// The link's `expiredUrl`.
        expired_url: Option<String>,
    },
    /// The link has a password: the form, and why it is shown again.
    Password(PasswordPrompt),
}

/// The answer of a capped link's visit whose scan the store refused ([`ScanFate::OverCap`](crate::scans::scan::ScanFate::OverCap)):
/// the scans recorded elsewhere since this server last read the link reached `maxScans`, so the
/// visitor gets what the next visit will get, the link's expired answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CapAnswer {
    /// The link's `expiredUrl`.
    pub expired_url: Option<String>,
}

/// Why the password form is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PasswordPrompt {
    /// No password was sent yet.
    Ask,
    /// The password sent is not the link's.
    Wrong,
    /// Too many wrong passwords from this address: wait this many seconds.
    Throttled(u64),
}

static NO_OPTIONS: LazyLock<LinkOptions> = LazyLock::new(LinkOptions::default);

impl<S: Store, C: Clock> Service<S, C> {
    /// What a visit to `link` gets, from memory only: `None` when the store is needed (the day's
    /// visitor salt is not in memory yet) or a password must be verified (Argon2id, about 30 ms:
    /// never on an async thread); call [`Service::open`] then.
    pub fn open_in_memory(&self, link: &Link, opening: &Opening) -> Option<Landing> {
        let options = link.options.get().unwrap_or(&NO_OPTIONS);
        let now = self.clock.now();
        if let Some(landing) = gate(link, options, now) {
            return Some(landing);
        }
        if options.password.is_some() {
            return opening
                .password
                .is_none()
                .then_some(Landing::Password(PasswordPrompt::Ask));
        }
        let salt = self.salts.get(&now.date_naive());
        if salt.is_none() && needs_salt(options, opening) {
            return None;
        }
        Some(self.land(link, options, opening, now, salt.as_ref()))
    }

    /// What a visit to `link` gets: [`Service::open_in_memory`]'s answer, verifying a sent
    /// password (throttled per link and client address) and creating the day's salt if needed.
    pub fn open(&self, link: &Link, opening: &Opening) -> Result<Landing, ScanError> {
        let options = link.options.get().unwrap_or(&NO_OPTIONS);
        let now = self.clock.now();
        if let Some(landing) = gate(link, options, now) {
            return Ok(landing);
        }
        if let Some(hash) = &options.password {
            let Some(given) = &opening.password else {
                return Ok(Landing::Password(PasswordPrompt::Ask));
            };
            let ip = opening.visit.ip;
            if let Some(wait) = self.link_passwords.throttled(link.id, ip, now) {
                return Ok(Landing::Password(PasswordPrompt::Throttled(wait)));
            }
            if !hash.verify(given) {
                return Ok(Landing::Password(
                    match self.link_passwords.fail(link.id, ip, now) {
                        Some(wait) => PasswordPrompt::Throttled(wait),
                        None => PasswordPrompt::Wrong,
                    },
                ));
            }
        }
        let day = now.date_naive();
        let salt = if !needs_salt(options, opening) {
            None
        } else if self.read_only() {
            // No salt can be written: the first variant, and the scan is skipped anyway.
            self.salts.get(&day)
        } else {
            Some(self.salt_for(day)?)
        };
        Ok(self.land(link, options, opening, now, salt.as_ref()))
    }

    /// The route of a visit that passed the gates, and its scan.
    fn land(
        &self,
        link: &Link,
        options: &LinkOptions,
        opening: &Opening,
        now: DateTime<Utc>,
        salt: Option<&[u8; 32]>,
    ) -> Landing {
        let visit = &opening.visit;
        // Classified once: the rules read the device and OS, the scan records them (the
        // User-Agent's regexes were a tenth of a campaign redirect's CPU when done twice).
        let ua = classify_user_agent(visit.user_agent.as_deref());
        let rules_need = |f: fn(&crate::links::campaign::Conditions) -> bool| {
            options.rules.iter().any(|r| f(&r.when))
        };
        let location =
            (opening.record || rules_need(|w| w.country.is_some())).then(|| self.locate(visit));
        let visitor = salt.map(|s| visitor_id(s, visit.ip, visit.user_agent.as_deref(), link.id));
        let traits = VisitTraits {
            device: ua.device,
            os: OsFamily::of(&ua.os),
            country: location
                .as_ref()
                .map_or_else(|| Location::unknown().country, |l| l.country.clone()),
            language: rules_need(|w| w.language.is_some())
                .then(|| routing::preferred_language(opening.accept_language.as_deref()))
                .flatten(),
        };
        let route = routing::route(
            options,
            &link.target_url,
            &traits,
            visitor.as_ref(),
            opening.query.as_deref(),
        );
        let scan = opening.record.then(|| match (self.admit_agent(ua), salt) {
            (Err(skip), _) => PreparedScan::Skip(skip),
            (Ok(_), None) => PreparedScan::Skip(Skip::ReadOnly),
            (Ok(ua), Some(salt)) => {
                let pick = Pick {
                    location,
                    variant: route.variant,
                    rule: route.rule,
                    visitor,
                };
                self.within_budget(self.build_scan(link, visit, ua, now, salt, pick))
            }
        });
        if options.max_scans.is_some() && matches!(scan, Some(PreparedScan::Record(_))) {
            // The cached copy counts this server's scans until it is read again (within 1 s),
            // so the cap holds between reads.
            self.links
                .modify(&CodeAddress::of(link), |(cached, _)| cached.scan_count += 1);
        }
        Landing::Redirect {
            target: route.target,
            scan,
            capped: options.max_scans.map(|_| CapAnswer {
                expired_url: options.expired_url.as_ref().map(ToString::to_string),
            }),
        }
    }
}

/// The answer of a paused, not yet active or expired link.
fn gate(link: &Link, options: &LinkOptions, now: DateTime<Utc>) -> Option<Landing> {
    if options.disabled {
        return Some(Landing::Paused);
    }
    if options.valid_from.is_some_and(|from| now < from) {
        return Some(Landing::NotYetActive);
    }
    let expired = options.valid_until.is_some_and(|until| now >= until)
        || options.max_scans.is_some_and(|max| link.scan_count >= max);
    expired.then(|| Landing::Expired {
        expired_url: options.expired_url.as_ref().map(ToString::to_string),
    })
}

/// Whether the visit needs the day's visitor salt: to record a scan, or to pick a variant.
fn needs_salt(options: &LinkOptions, opening: &Opening) -> bool {
    opening.record || !options.variants.is_empty()
}
