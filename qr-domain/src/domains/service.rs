//! The `Service` methods of domains: adding one within the plan's count, reading, changing its settings (addresses, app files, app schemes), removing it while no link uses it, checking its DNS (asked, and in the background), finding the domain a request arrived for, and its orphan visits.

use std::sync::Arc;
use std::time::Instant;

use chrono::Duration;
use thiserror::Error;

use crate::accounts::caller::Caller;
use crate::accounts::permissions::{NotPermitted, Operation};
use crate::accounts::plan::{EnterpriseOverrides, Limit, Plan};
use crate::audit::entry::{AuditAction, AuditObject, ObjectKind};
use crate::audit::service::record;
use crate::audit::summary;
use crate::clock::Clock;
use crate::domains::check;
use crate::domains::dns::DnsResolver;
use crate::domains::domain::{
    AppFile, AppFileError, Domain, DomainSettings, Verification, VerificationToken, next_check,
};
use crate::domains::name::{DomainName, DomainNameError};
use crate::domains::orphan::{ORPHAN_DAYS_KEPT, OrphanReport, OrphanVisit};
use crate::error::StoreError;
use crate::ids::{AccountId, DomainId};
use crate::links::campaign::AppScheme;
use crate::links::campaign::target::AppSchemeListError;
use crate::links::link::{TargetUrl, UrlError};
use crate::links::service::LINK_CACHE_TTL;
use crate::random::RandomError;
use crate::scans::geo::UNKNOWN_COUNTRY;
use crate::scans::scan::classify_user_agent;
use crate::scans::service::Visit;
use crate::service::Service;
use crate::service::cache::BoundedCache;
use crate::store::Store;

/// Most domain names whose answer (a domain, or none) a process keeps for requests.
pub(crate) const DOMAIN_CACHE_MAX: usize = 10_000;
/// Most domains the background checker looks at per round.
pub const CHECKS_PER_ROUND: u32 = 100;

/// How this server checks and serves domains: its own host (never a customer's domain), the
/// host customers' domains should point at, and the DNS client.
#[derive(Clone, Default)]
pub struct DomainConfig {
    /// The service's own host (from its base URL), ASCII, no port.
    pub service_host: String,
    /// What a domain's address records should lead to (`--domain-target`; the service's own
    /// host by default).
    pub target: Option<String>,
    /// The DNS client; without one, checks answer [`DomainError::DnsUnavailable`].
    pub resolver: Option<Arc<dyn DnsResolver>>,
}

impl std::fmt::Debug for DomainConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DomainConfig")
            .field("service_host", &self.service_host)
            .field("target", &self.target)
            .field("resolver", &self.resolver.is_some())
            .finish()
    }
}

/// What this process keeps about domains: the configuration and the answers for request hosts.
pub(crate) struct DomainState {
    pub(crate) config: DomainConfig,
    /// A host's domain (or none) with when it was read: requests for a domain read the store at
    /// most once per [`LINK_CACHE_TTL`] per name, so a change anywhere shows within it.
    pub(crate) hosts: BoundedCache<DomainName, (Option<Domain>, Instant)>,
}

impl DomainState {
    pub(crate) fn new(config: DomainConfig) -> Self {
        Self {
            config,
            hosts: BoundedCache::new(DOMAIN_CACHE_MAX),
        }
    }
}

/// A change of a domain's settings: `None` leaves a setting, `Some(None)` clears it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DomainUpdate {
    /// Where the domain's root redirects.
    pub root_url: Option<Option<TargetUrl>>,
    /// Where unknown codes redirect.
    pub not_found_url: Option<Option<TargetUrl>>,
    /// Apple's app association file.
    pub apple_app_site_association: Option<Option<AppFile>>,
    /// Android's asset links file.
    pub assetlinks: Option<Option<AppFile>>,
    /// The app schemes (replacing the old; empty: none).
    pub app_schemes: Option<Vec<AppScheme>>,
}

/// A setting of a domain, named as the API's field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DomainSetting {
    /// `rootUrl`.
    RootUrl,
    /// `notFoundUrl`.
    NotFoundUrl,
    /// `appleAppSiteAssociation`.
    AppleAppSiteAssociation,
    /// `assetlinks`.
    Assetlinks,
    /// `appSchemes`.
    AppSchemes,
}

impl DomainSetting {
    /// The JSON field's name.
    pub fn field(self) -> &'static str {
        match self {
            DomainSetting::RootUrl => "rootUrl",
            DomainSetting::NotFoundUrl => "notFoundUrl",
            DomainSetting::AppleAppSiteAssociation => "appleAppSiteAssociation",
            DomainSetting::Assetlinks => "assetlinks",
            DomainSetting::AppSchemes => "appSchemes",
        }
    }
}

impl DomainUpdate {
    /// Sets `rootUrl` (a target URL's rules).
    pub fn set_root_url(&mut self, url: &str) -> Result<(), DomainError> {
        self.root_url = Some(Some(parse_url(DomainSetting::RootUrl, url)?));
        Ok(())
    }

    /// Sets `notFoundUrl` (a target URL's rules).
    pub fn set_not_found_url(&mut self, url: &str) -> Result<(), DomainError> {
        self.not_found_url = Some(Some(parse_url(DomainSetting::NotFoundUrl, url)?));
        Ok(())
    }

    /// Sets Apple's `apple-app-site-association` (a JSON object's text).
    pub fn set_apple_app_site_association(&mut self, json: &str) -> Result<(), DomainError> {
        let file = AppFile::apple(json).map_err(|e| DomainError::AppFile {
            setting: DomainSetting::AppleAppSiteAssociation,
            error: e,
        })?;
        self.apple_app_site_association = Some(Some(file));
        Ok(())
    }

    /// Sets Android's `assetlinks.json` (a JSON array's text).
    pub fn set_assetlinks(&mut self, json: &str) -> Result<(), DomainError> {
        let file = AppFile::android(json).map_err(|e| DomainError::AppFile {
            setting: DomainSetting::Assetlinks,
            error: e,
        })?;
        self.assetlinks = Some(Some(file));
        Ok(())
    }

    /// Sets the app schemes its links' rules may target, replacing the old ones (each as
    /// typed, any case, a repeated one kept once; `[]` removes them). Rules already stored keep
    /// redirecting when a scheme is removed: only new or changed rules are checked.
    pub fn set_app_schemes<S: AsRef<str>>(&mut self, schemes: &[S]) -> Result<(), DomainError> {
        self.app_schemes = Some(AppScheme::parse_list(schemes)?);
        Ok(())
    }

    /// Clears a setting.
    pub fn clear(&mut self, setting: DomainSetting) {
        match setting {
            DomainSetting::RootUrl => self.root_url = Some(None),
            DomainSetting::NotFoundUrl => self.not_found_url = Some(None),
            DomainSetting::AppleAppSiteAssociation => self.apple_app_site_association = Some(None),
            DomainSetting::Assetlinks => self.assetlinks = Some(None),
            DomainSetting::AppSchemes => self.app_schemes = Some(Vec::new()),
        }
    }

    fn apply(&self, settings: &mut DomainSettings) {
        fn set<T: Clone>(slot: &mut T, value: Option<&T>) {
            if let Some(value) = value {
                slot.clone_from(value);
            }
        }
        set(&mut settings.root_url, self.root_url.as_ref());
        set(&mut settings.not_found_url, self.not_found_url.as_ref());
        set(
            &mut settings.apple_app_site_association,
            self.apple_app_site_association.as_ref(),
        );
        set(&mut settings.assetlinks, self.assetlinks.as_ref());
        set(&mut settings.app_schemes, self.app_schemes.as_ref());
    }
}

fn parse_url(setting: DomainSetting, url: &str) -> Result<TargetUrl, DomainError> {
    TargetUrl::parse(url).map_err(|error| DomainError::Url { setting, error })
}

/// Why a domain operation failed; each `Display` is the API's message.
#[derive(Debug, Error)]
pub enum DomainError {
    /// The name is not a domain the service accepts.
    #[error("Invalid domain: {0}")]
    Name(#[from] DomainNameError),
    /// The plan includes no (more) domains.
    #[error("{}", limit_message(*.plan, *.limit))]
    LimitReached {
        /// The account's plan.
        plan: Plan,
        /// Its domain count.
        limit: u64,
    },
    /// The name belongs to an account (whose is never said).
    #[error("Domain {0} is already registered")]
    Taken(String),
    /// No domain with this id belongs to the account.
    #[error("Domain not found")]
    NotFound,
    /// Links still use the domain.
    #[error("Domain {name} is used by {links} link{}; move or delete them first", if *.links == 1 { "" } else { "s" })]
    InUse {
        /// The domain.
        name: String,
        /// How many links.
        links: u64,
    },
    /// A URL setting is invalid.
    #[error("Invalid {}: {}", .setting.field(), .error.about("the URL"))]
    Url {
        /// Which.
        setting: DomainSetting,
        /// Why.
        error: UrlError,
    },
    /// An app association file is invalid.
    #[error("Invalid {}: {}", .setting.field(), .error)]
    AppFile {
        /// Which.
        setting: DomainSetting,
        /// Why.
        error: AppFileError,
    },
    /// The app schemes are invalid.
    #[error("Invalid {0}")]
    AppSchemes(#[from] AppSchemeListError),
    /// This server has no DNS client.
    #[error("DNS checks are not available on this server")]
    DnsUnavailable,
    /// The OS random number generator failed.
    #[error(transparent)]
    Random(#[from] RandomError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The caller may not manage domains (members, viewers, a key without `domains`).
    #[error(transparent)]
    NotPermitted(#[from] NotPermitted),
}

/// The refusal naming the plan needed: "Custom domains require Starter plan" when the plan has
/// none, else the count reached and the next plan with more.
fn limit_message(plan: Plan, limit: u64) -> String {
    let more = Plan::ALL
        .into_iter()
        .skip_while(|p| *p != plan)
        .skip(1)
        .find(
            |p| match p.limits(&EnterpriseOverrides::default()).domains {
                Limit::Unlimited => true,
                Limit::Max(max) => max > limit,
            },
        );
    match (limit, more) {
        (0, Some(needed)) => format!("Custom domains require {} plan", needed.title()),
        (0, None) => {
            "Custom domains are not included in this account's limits; ask the operator".to_owned()
        }
        (_, Some(needed)) => format!(
            "Domain limit reached: the {} plan allows {limit} domain{}; upgrade to {} for more",
            plan.title(),
            if limit == 1 { "" } else { "s" },
            needed.title()
        ),
        (_, None) => format!(
            "Domain limit reached: this account allows {limit} domain{}; ask the operator for more",
            if limit == 1 { "" } else { "s" }
        ),
    }
}

/// The id of a domain as a client presents it: a malformed id names no domain, so it is
/// [`DomainError::NotFound`] like an unknown one or another account's.
pub fn parse_domain_id(raw: &str) -> Result<DomainId, DomainError> {
    raw.parse().map_err(|_| DomainError::NotFound)
}

impl<S: Store, C: Clock> Service<S, C> {
    /// The service with this server's domain settings.
    pub fn with_domains(mut self, config: DomainConfig) -> Self {
        self.domains = DomainState::new(config);
        self
    }

    /// Adds a domain to the account (pending until its TXT record is found), within the plan's
    /// count; a name any account holds is [`DomainError::Taken`]. The caller needs
    /// [`Operation::WriteDomains`]; the domain is audited as added.
    pub fn add_domain(&self, caller: &Caller, name: &str) -> Result<Domain, DomainError> {
        caller.require(Operation::WriteDomains)?;
        let account = caller.account;
        let name = DomainName::parse(name, &self.domains.config.service_host)?;
        let now = self.clock.now();
        let mut domain = Domain {
            id: DomainId::random(),
            account_id: account,
            name,
            token: VerificationToken::random()?,
            created_at: now,
            verification: Verification::default(),
            settings: DomainSettings::default(),
        };
        domain.verification.next_check_at = next_check(&domain, now);
        let added = self.store.write(|tx| {
            let current = tx.account(account)?.ok_or(DomainError::NotFound)?;
            let limits = current.limits();
            if let Limit::Max(max) = limits.domains
                && tx.count_domains(account)? >= max
            {
                return Err(DomainError::LimitReached {
                    plan: current.plan,
                    limit: max,
                });
            }
            if tx.domain_by_name(&domain.name)?.is_some() {
                return Err(DomainError::Taken(domain.name.to_string()));
            }
            tx.insert_domain(&domain)?;
            record(
                tx,
                caller,
                now,
                AuditAction::DomainAdded,
                AuditObject::new(ObjectKind::Domain, domain.id),
                summary::domain_added(&domain),
            )?;
            Ok(domain)
        })?;
        self.domains.hosts.forget(|name, _| *name == added.name);
        Ok(added)
    }

    /// The account's domains, by name.
    pub fn domains(&self, account: AccountId) -> Result<Vec<Domain>, StoreError> {
        self.store.read(|tx| tx.domains_of(account))
    }

    /// One of the account's domains; another account's is "not found".
    pub fn domain(&self, account: AccountId, id: DomainId) -> Result<Domain, DomainError> {
        self.store
            .read(|tx| tx.domain(account, id))?
            .ok_or(DomainError::NotFound)
    }

    /// Changes a domain's settings. The caller needs [`Operation::WriteDomains`]; a change is
    /// audited with the settings it changed.
    pub fn update_domain(
        &self,
        caller: &Caller,
        id: DomainId,
        update: &DomainUpdate,
    ) -> Result<Domain, DomainError> {
        caller.require(Operation::WriteDomains)?;
        let account = caller.account;
        let now = self.clock.now();
        let domain = self.store.write(|tx| {
            let mut domain = tx.domain(account, id)?.ok_or(DomainError::NotFound)?;
            let before = domain.clone();
            update.apply(&mut domain.settings);
            if !tx.update_domain(&domain)? {
                return Err(DomainError::NotFound);
            }
            let changes = summary::domain_updated(&before, &domain);
            if !changes.is_empty() {
                record(
                    tx,
                    caller,
                    now,
                    AuditAction::DomainUpdated,
                    AuditObject::new(ObjectKind::Domain, domain.id),
                    changes,
                )?;
            }
            Ok(domain)
        })?;
        self.domains.hosts.forget(|name, _| *name == domain.name);
        Ok(domain)
    }

    /// Removes a domain no live link uses (its tombstoned codes stay tombstoned). The caller
    /// needs [`Operation::WriteDomains`]; the audit entry keeps the domain's last settings.
    pub fn delete_domain(&self, caller: &Caller, id: DomainId) -> Result<(), DomainError> {
        caller.require(Operation::WriteDomains)?;
        let account = caller.account;
        let now = self.clock.now();
        let name = self.store.write(|tx| {
            let domain = tx.domain(account, id)?.ok_or(DomainError::NotFound)?;
            let links = tx.count_domain_links(&domain.name)?;
            if links > 0 {
                return Err(DomainError::InUse {
                    name: domain.name.to_string(),
                    links,
                });
            }
            tx.delete_domain(account, id)?;
            record(
                tx,
                caller,
                now,
                AuditAction::DomainDeleted,
                AuditObject::new(ObjectKind::Domain, id),
                summary::domain_deleted(&domain),
            )?;
            Ok(domain.name)
        })?;
        self.domains.hosts.forget(|cached, _| *cached == name);
        Ok(())
    }

    /// Checks a domain's TXT record (and where it points) now, and stores the result. The
    /// caller needs [`Operation::WriteDomains`]; a check is not audited (it changes no setting,
    /// and the background checker makes the same check unattended).
    pub fn check_domain(&self, caller: &Caller, id: DomainId) -> Result<Domain, DomainError> {
        caller.require(Operation::WriteDomains)?;
        let account = caller.account;
        let resolver = self
            .domains
            .config
            .resolver
            .clone()
            .ok_or(DomainError::DnsUnavailable)?;
        let domain = self.domain(account, id)?;
        let checked = self.run_check(resolver.as_ref(), domain)?;
        checked.ok_or(DomainError::NotFound)
    }

    /// One round of the background checker: the domains due now (at most
    /// [`CHECKS_PER_ROUND`]) checked and stored. Returns how many were checked (0 without a
    /// DNS client).
    pub fn check_due_domains(&self) -> Result<usize, StoreError> {
        let Some(resolver) = self.domains.config.resolver.clone() else {
            return Ok(0);
        };
        let due = self
            .store
            .read(|tx| tx.domains_due(self.clock.now(), CHECKS_PER_ROUND))?;
        let count = due.len();
        for domain in due {
            self.run_check(resolver.as_ref(), domain)?;
        }
        Ok(count)
    }

    /// Looks up the domain's DNS (outside any transaction: a lookup may take seconds) and
    /// stores what it found, unless the domain was removed meanwhile (`None`).
    fn run_check(
        &self,
        resolver: &dyn DnsResolver,
        domain: Domain,
    ) -> Result<Option<Domain>, StoreError> {
        let target = self
            .domains
            .config
            .target
            .as_deref()
            .or(Some(self.domains.config.service_host.as_str()))
            .filter(|t| !t.is_empty());
        let checked = check::check(resolver, target, domain, self.clock.now());
        let stored = self.store.write(|tx| {
            // Settings may have changed during the lookup: only the verification is the check's.
            let Some(mut current) = tx.domain(checked.account_id, checked.id)? else {
                return Ok::<_, StoreError>(None);
            };
            current.verification = checked.verification.clone();
            tx.update_domain(&current)?;
            Ok(Some(current))
        })?;
        self.domains.hosts.forget(|name, _| *name == checked.name);
        Ok(stored)
    }

    /// The domain a request for `host` (a `Host` header's name, without its port) arrived for,
    /// if it serves requests (verified once, and not removed); read from the store at most once
    /// per [`LINK_CACHE_TTL`] per name, so a change on any server shows within it.
    pub fn serving_domain(&self, host: &str) -> Result<Option<Domain>, StoreError> {
        let Ok(name) = DomainName::parse_any(host) else {
            return Ok(None);
        };
        let cached = self.domains.hosts.read(&name, |(domain, read_at)| {
            (read_at.elapsed() < LINK_CACHE_TTL).then(|| domain.clone())
        });
        if let Some(domain) = cached {
            return Ok(domain);
        }
        let seen = self.domains.hosts.generation();
        let found = self
            .store
            .read(|tx| tx.domain_by_name(&name))?
            .filter(Domain::serves_requests);
        self.domains
            .hosts
            .insert_since(seen, name, (found.clone(), Instant::now()));
        Ok(found)
    }

    /// Counts a visit to `path` on the domain that found no link (an unknown or deleted code),
    /// with the visitor's country and device; bots are not counted (a crawler's guesses are not
    /// misprinted codes) and the address is not kept.
    pub fn record_orphan_visit(
        &self,
        domain: DomainId,
        path: &str,
        visit: &Visit,
    ) -> Result<(), StoreError> {
        let agent = classify_user_agent(visit.user_agent.as_deref());
        if agent.is_bot {
            return Ok(());
        }
        let country = Some(self.locate(visit).country).filter(|c| c.as_str() != UNKNOWN_COUNTRY);
        let orphan = OrphanVisit::new(path, self.clock.now(), country, agent.device);
        self.store
            .write(|tx| tx.record_orphan_visit(domain, &orphan))
    }

    /// The service's own host (from its base URL; empty when not configured): requests for it
    /// are never a customer's domain.
    pub fn service_host(&self) -> &str {
        &self.domains.config.service_host
    }

    /// [`Service::serving_domain`] from memory: `None` when the host's answer is not cached (or
    /// older than [`LINK_CACHE_TTL`]), so the caller reads the store on a blocking thread.
    pub fn cached_serving_domain(&self, host: &str) -> Option<Option<Domain>> {
        let name = DomainName::parse_any(host).ok()?;
        self.domains.hosts.read(&name, |(domain, read_at)| {
            (read_at.elapsed() < LINK_CACHE_TTL).then(|| domain.clone())
        })
    }

    /// The domain's orphan visits of the last [`ORPHAN_DAYS_KEPT`] days.
    pub fn orphan_visits(
        &self,
        account: AccountId,
        id: DomainId,
    ) -> Result<OrphanReport, DomainError> {
        let since = (self.clock.now() - Duration::days(ORPHAN_DAYS_KEPT - 1)).date_naive();
        self.store.read(|tx| {
            tx.domain(account, id)?.ok_or(DomainError::NotFound)?;
            Ok(tx.orphan_visits(id, since)?)
        })
    }
}
