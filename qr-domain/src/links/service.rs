//! Dynamic links: creation within the plan's limit, reads, updates, deletion, and short-code resolution with the redirect cache.

use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};

use crate::accounts::account::Account;
use crate::accounts::caller::Caller;
use crate::accounts::permissions::Operation;
use crate::accounts::plan::{Limit, PlanLimits};
use crate::audit::entry::{AuditAction, AuditObject, ObjectKind};
use crate::audit::service::record;
use crate::audit::summary;
use crate::clock::Clock;
use crate::dashboard::password::{Password, PasswordHash};
use crate::domains::name::DomainName;
use crate::error::StoreError;
use crate::ids::{AccountId, DesignId, LinkId};
use crate::links::campaign::{
    DomainUnusable, FieldError, FieldRule, LinkField, LinkOptions, Options, Rule, RulePart, Tag,
};
use crate::links::link::{Link, LinkError, LinkName, LinkUpdate, TargetUrl};
use crate::links::listing::{LinkCursor, LinkListQuery, LinkPageResult};
use crate::links::shortcode::ShortCode;
use crate::service::Service;
use crate::store::{ReadTx, Store, WriteTx};
use crate::webhooks::outbox::link_event;
use crate::webhooks::webhook::EventKind;

/// What a presented short code stands for.
// One value per redirect on the uncached path, moved once into the answer: boxing the link
// would add an allocation there to save 280 bytes of stack.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    /// A live link: redirect to its target.
    Live(Link),
    /// The code belonged to a link that was deleted; it is never issued again.
    Gone,
    /// The code is malformed or was never issued.
    Unknown,
}

/// Which page of a link list: numbered from 1, of `size` links.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkPage {
    /// The page number, from 1.
    pub number: usize,
    /// Links per page.
    pub size: usize,
}

/// How long a cached link is used. Changes made through this service show at once; changes
/// made by another process (the CLI) show within this time.
pub const LINK_CACHE_TTL: Duration = Duration::from_secs(1);
/// Short codes drawn per new link; one free code among them is practically certain with 40
/// random bits per code.
const CODE_ATTEMPTS: usize = 16;

impl<S: Store, C: Clock> Service<S, C> {
    /// Creates a link in the caller's workspace, enforcing the plan's link limit.
    pub fn create_link(
        &self,
        caller: &Caller,
        name: &str,
        target_url: &str,
    ) -> Result<Link, LinkError> {
        self.create_link_with(caller, LinkUpdate::parse(Some(name), Some(target_url))?)
    }

    /// Creates a link from the fields of `fields` (the name and target URL are required),
    /// enforcing the plan's link limit and the plan's link features; a custom short code that
    /// is taken or tombstoned is [`LinkError::CodeTaken`]. The caller needs
    /// [`Operation::WriteLinks`]; the `link.created` audit entry is written with the link.
    pub fn create_link_with(&self, caller: &Caller, fields: LinkUpdate) -> Result<Link, LinkError> {
        caller.require(Operation::WriteLinks)?;
        let limits = self.workspace(caller.account)?.limits();
        let new = NewLink::prepare(&limits, fields)?;
        let now = self.clock.now();
        self.store.write(|tx| {
            let mut room = LinkRoom::read(tx, caller.account, &limits)?;
            new.insert(tx, caller, now, &mut room)
        })
    }

    /// The workspace's account as stored (its plan decides the limits); gone is "not found".
    pub(crate) fn workspace(&self, account: AccountId) -> Result<Account, LinkError> {
        self.store
            .read(|tx| tx.account(account))?
            .ok_or(LinkError::NotFound)
    }

    /// One of the account's links. An unknown id and another account's id are both "not found".
    pub fn link(&self, account: AccountId, id: LinkId) -> Result<Link, LinkError> {
        self.store
            .read(|tx| tx.link(account, id))?
            .ok_or(LinkError::NotFound)
    }

    /// The account's links, oldest first.
    pub fn links(&self, account: AccountId) -> Result<Vec<Link>, StoreError> {
        self.store.read(|tx| tx.links_of(account))
    }

    /// How many links the account holds (one count, not the links themselves).
    pub fn count_links(&self, account: AccountId) -> Result<u64, StoreError> {
        self.store.read(|tx| tx.count_links(account))
    }

    /// One page of the account's links, newest first, whose name, target URL or short code
    /// contains `text` (ignoring ASCII case, as both SQL engines fold it; empty matches all),
    /// with the number of matches.
    pub fn search_links(
        &self,
        account: AccountId,
        text: &str,
        page: LinkPage,
    ) -> Result<(Vec<Link>, usize), StoreError> {
        let needle = text.trim().to_ascii_lowercase();
        let offset = page.number.saturating_sub(1).saturating_mul(page.size);
        let limit = u32::try_from(page.size).unwrap_or(u32::MAX);
        let (links, total) = self.store.read(|tx| {
            tx.search_links(
                account,
                &needle,
                u64::try_from(offset).unwrap_or(u64::MAX),
                limit,
            )
        })?;
        Ok((links, usize::try_from(total).unwrap_or(usize::MAX)))
    }

    /// Changes the given fields; updatedAt is set whenever at least one field is given.
    /// An update without fields returns the link unchanged. A field the account's plan does not
    /// include is [`LinkError::PlanRequired`] (clearing one never is); a new short code that is
    /// taken is [`LinkError::CodeTaken`], and the old code is never issued again. The caller
    /// needs [`Operation::WriteLinks`]; a change writes its `link.updated` audit entry.
    pub fn update_link(
        &self,
        caller: &Caller,
        id: LinkId,
        update: &LinkUpdate,
    ) -> Result<Link, LinkError> {
        caller.require(Operation::WriteLinks)?;
        let account = caller.account;
        if !update.features().is_empty() {
            let owner = self
                .store
                .read(|tx| tx.account(account))?
                .ok_or(LinkError::NotFound)?;
            check_features(&owner.limits(), update)?;
        }
        let password = hash_password(update)?;
        let now = self.clock.now();
        self.store
            .write(|tx| {
                let mut link = tx.link(account, id)?.ok_or(LinkError::NotFound)?;
                if update.is_empty() {
                    return Ok(link);
                }
                let before = link.clone();
                if let Some(name) = &update.name {
                    link.name = name.clone();
                }
                if let Some(target) = &update.target_url {
                    link.target_url = target.clone();
                }
                // A new domain or code must leave the code free where it lands; a code whose
                // case alone changes keeps its place.
                let mut moved = false;
                // The rules that stay where they were need no check of their app schemes.
                let mut kept_rules = link.options.get().map(|o| o.rules.clone());
                if let Some(domain) = &update.domain
                    && *domain != link.domain
                {
                    if let Some(name) = domain {
                        usable_domain(tx, account, name, now)?;
                    }
                    link.domain = domain.clone();
                    moved = true;
                    kept_rules = None;
                }
                if let Some(code) = update.short_code {
                    moved |= code != link.short_code;
                    link.short_code = code;
                }
                if moved && tx.code_taken(link.domain.as_ref(), &link.short_code)? {
                    return Err(LinkError::CodeTaken(link.short_code.to_string()));
                }
                if let Some(tags) = &update.tags {
                    link.tags = tags.clone();
                }
                if let Some(design) = update.design {
                    usable_design(tx, account, design)?;
                    link.design = design;
                }
                link.options = Options::new(apply(link.options.or_default(), update, password)?);
                if let Some(options) = link.options.get() {
                    declared_app_schemes(
                        tx,
                        account,
                        link.domain.as_ref(),
                        &options.rules,
                        kept_rules.as_deref().unwrap_or_default(),
                    )?;
                }
                link.updated_at = now.max(link.created_at);
                if !tx.update_link(&link)? {
                    return Err(LinkError::NotFound);
                }
                tx.enqueue_webhook_event(account, &link_event(EventKind::LinkUpdated, &link, now))?;
                let changes = summary::link_updated(&before, &link);
                if !changes.is_empty() {
                    record(
                        tx,
                        caller,
                        now,
                        AuditAction::LinkUpdated,
                        AuditObject::new(ObjectKind::Link, link.id),
                        changes,
                    )?;
                }
                Ok(link)
            })
            .inspect(|link| self.forget_link(link.id))
    }

    /// One page of the account's links, newest first, matching the query's filters, with the
    /// cursor of the next page when there are more.
    pub fn list_links(
        &self,
        account: AccountId,
        list: &LinkListQuery,
    ) -> Result<LinkPageResult, StoreError> {
        let mut query = list.query.clone();
        let size = usize::try_from(query.limit).unwrap_or(usize::MAX);
        // One more than the page tells whether there is a next page.
        query.limit = query.limit.saturating_add(1);
        let mut links = self.store.read(|tx| tx.list_links(account, &query))?;
        let next_cursor = if links.len() > size {
            links.truncate(size);
            links.last().map(LinkCursor::after)
        } else {
            None
        };
        Ok(LinkPageResult { links, next_cursor })
    }

    /// Deletes a link with all its scans; its code is never issued again. The caller needs
    /// [`Operation::WriteLinks`]; the `link.deleted` audit entry keeps the link's last fields.
    pub fn delete_link(&self, caller: &Caller, id: LinkId) -> Result<(), LinkError> {
        caller.require(Operation::WriteLinks)?;
        let account = caller.account;
        let now = self.clock.now();
        let deleted = self.store.write(|tx| {
            let Some(link) = tx.link(account, id)? else {
                return Ok::<_, StoreError>(false);
            };
            let deleted = tx.delete_link(account, id)?;
            if deleted {
                tx.enqueue_webhook_event(account, &link_event(EventKind::LinkDeleted, &link, now))?;
                record(
                    tx,
                    caller,
                    now,
                    AuditAction::LinkDeleted,
                    AuditObject::new(ObjectKind::Link, link.id),
                    summary::link_deleted(&link),
                )?;
            }
            Ok(deleted)
        })?;
        self.forget_link(id);
        if deleted {
            Ok(())
        } else {
            Err(LinkError::NotFound)
        }
    }

    /// What a presented short code stands for on `domain` (`None`: the service's own address;
    /// lower case and aliases accepted). Always reads the store, in one transaction, and
    /// refreshes the redirect cache with what it read.
    pub fn resolve(
        &self,
        domain: Option<&DomainName>,
        code: &str,
    ) -> Result<Resolution, StoreError> {
        let Ok(code) = ShortCode::presented(code) else {
            return Ok(Resolution::Unknown);
        };
        let code = CodeAddress::new(domain, code);
        let seen = self.links.generation();
        let read = self.store.read(|tx| {
            Ok::<_, StoreError>(match tx.link_by_code(domain, &code.code)? {
                Some(link) => Resolution::Live(link),
                None if tx.code_taken(domain, &code.code)? => Resolution::Gone,
                None => Resolution::Unknown,
            })
        });
        let resolution = match read {
            Ok(resolution) => resolution,
            // The database cannot answer for now (a server restarting, say): a link this service
            // has read before keeps redirecting, however old the copy, until it can.
            Err(e) if e.is_unavailable() => {
                return self
                    .links
                    .read(&code, |(link, _)| Some(link.clone()))
                    .map(Resolution::Live)
                    .ok_or(e);
            }
            Err(e) => return Err(e),
        };
        match &resolution {
            Resolution::Live(link) => {
                self.links
                    .insert_since(seen, code, (link.clone(), Instant::now()));
            }
            Resolution::Gone | Resolution::Unknown => self.links.remove_since(seen, &code),
        }
        Ok(resolution)
    }

    /// The live link of a code on `domain` from memory, if [`Service::resolve`] read it less
    /// than [`LINK_CACHE_TTL`] ago and it has not changed here since; never touches the store.
    /// Its `scan_count` may be behind.
    pub fn cached_link(&self, domain: Option<&DomainName>, code: &str) -> Option<Link> {
        let code = ShortCode::presented(code)
            .ok()
            .map(|code| CodeAddress::new(domain, code));
        let found = code.and_then(|code| {
            self.links.read(&code, |(link, read_at)| {
                (read_at.elapsed() < LINK_CACHE_TTL).then(|| link.clone())
            })
        });
        self.stats.links.record(found)
    }

    /// Drops the cached link `id` after a local change.
    fn forget_link(&self, id: LinkId) {
        self.links.forget(|_, (link, _)| link.id == id);
        self.link_codes.forget(|(_, link), _| *link == id);
    }
}

/// Where a code is looked up: its domain (`None`: the service's own address) and the code, the
/// key of the redirect cache.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct CodeAddress {
    domain: Option<DomainName>,
    code: ShortCode,
}

impl CodeAddress {
    fn new(domain: Option<&DomainName>, code: ShortCode) -> Self {
        Self {
            domain: domain.cloned(),
            code,
        }
    }

    /// Where `link` is found.
    pub(crate) fn of(link: &Link) -> Self {
        Self::new(link.domain.as_ref(), link.short_code)
    }
}

/// Refuses a domain the account cannot put links on at `now`: another account's or an unknown
/// one (alike, so a name's owner is never revealed), one never verified, or one whose record
/// has been missing for longer than the grace period.
fn usable_domain(
    tx: &dyn ReadTx,
    account: AccountId,
    name: &DomainName,
    now: DateTime<Utc>,
) -> Result<(), LinkError> {
    let refuse = |why| {
        LinkError::Field(FieldError::new(
            LinkField::Domain,
            FieldRule::DomainUnusable(why),
        ))
    };
    match tx.domain_by_name(name)? {
        Some(domain) if domain.account_id == account => match domain.refuses_links(now) {
            None => Ok(()),
            Some(why) => Err(refuse(why)),
        },
        _ => Err(refuse(DomainUnusable::Unknown)),
    }
}

/// Refuses a rule whose target's custom app scheme the link's domain does not declare (on the
/// service's own address none is declared). Rules in `kept`, those the link had on the same
/// domain before the change, are not checked again: a scheme removed from the domain's settings
/// never breaks a printed code, only new or changed rules must name a declared scheme.
fn declared_app_schemes(
    tx: &dyn ReadTx,
    account: AccountId,
    domain: Option<&DomainName>,
    rules: &[Rule],
    kept: &[Rule],
) -> Result<(), LinkError> {
    let mut unchecked = rules
        .iter()
        .enumerate()
        .filter(|(_, rule)| !kept.iter().any(|k| k.target_url == rule.target_url))
        .filter_map(|(i, rule)| rule.target_url.custom_scheme().map(|scheme| (i, scheme)))
        .peekable();
    // Most links have no app rule: the domain is read only when one needs it.
    if unchecked.peek().is_none() {
        return Ok(());
    }
    let declared = match domain {
        Some(name) => tx
            .domain_by_name(name)?
            .filter(|d| d.account_id == account)
            .map(|d| d.settings.app_schemes)
            .unwrap_or_default(),
        None => Vec::new(),
    };
    match unchecked.find(|(_, scheme)| !declared.iter().any(|d| d.as_str() == *scheme)) {
        Some((i, scheme)) => Err(LinkError::Field(FieldError::new(
            LinkField::Rule(i, RulePart::TargetUrl),
            FieldRule::SchemeNotDeclared {
                scheme: scheme.to_owned(),
                domain: domain.cloned(),
            },
        ))),
        None => Ok(()),
    }
}

/// Refuses a design the account does not hold ([`LinkError::DesignNotFound`]).
fn usable_design(
    tx: &dyn ReadTx,
    account: AccountId,
    design: Option<DesignId>,
) -> Result<(), LinkError> {
    match design {
        Some(id) if tx.design(account, id)?.is_none() => Err(LinkError::DesignNotFound),
        _ => Ok(()),
    }
}

/// A link checked against the plan and ready to insert: everything but its id, code and times.
pub(crate) struct NewLink {
    name: LinkName,
    target_url: TargetUrl,
    short_code: Option<ShortCode>,
    domain: Option<DomainName>,
    design: Option<DesignId>,
    tags: Vec<Tag>,
    options: LinkOptions,
    /// When the link was created elsewhere (an import), if it was.
    created_at: Option<DateTime<Utc>>,
}

/// How many more links an account may hold, read once per write transaction.
pub(crate) struct LinkRoom {
    count: u64,
    limit: Limit,
    plan: String,
}

impl NewLink {
    /// Checks the fields against the plan's features and builds the options (hashing a
    /// password, the slow part, so it runs before the write transaction).
    pub(crate) fn prepare(limits: &PlanLimits, fields: LinkUpdate) -> Result<Self, LinkError> {
        let (Some(name), Some(target_url)) = (fields.name.clone(), fields.target_url.clone())
        else {
            return Err(LinkError::Field(FieldError::new(
                LinkField::Link,
                FieldRule::NameAndTargetRequired,
            )));
        };
        check_features(limits, &fields)?;
        let password = hash_password(&fields)?;
        let options = apply(LinkOptions::default(), &fields, password)?;
        Ok(Self {
            name,
            target_url,
            short_code: fields.short_code,
            domain: fields.domain.flatten(),
            design: fields.design.flatten(),
            tags: fields.tags.unwrap_or_default(),
            options,
            created_at: fields.created_at,
        })
    }

    /// Inserts the link within the account's room (its link limit), with a free code (the
    /// custom one, or one of [`CODE_ATTEMPTS`] drawn), its `link.created` event and its
    /// audit entry by `caller`.
    pub(crate) fn insert(
        &self,
        tx: &mut dyn WriteTx,
        caller: &Caller,
        now: DateTime<Utc>,
        room: &mut LinkRoom,
    ) -> Result<Link, LinkError> {
        let account = caller.account;
        if let Limit::Max(max) = room.limit
            && room.count >= max
        {
            return Err(LinkError::LimitReached {
                plan: room.plan.clone(),
                limit: max,
            });
        }
        let domain = self.domain.as_ref();
        if let Some(name) = domain {
            usable_domain(tx, account, name, now)?;
        }
        declared_app_schemes(tx, account, domain, &self.options.rules, &[])?;
        usable_design(tx, account, self.design)?;
        let short_code = match self.short_code {
            Some(custom) if tx.code_taken(domain, &custom)? => {
                return Err(LinkError::CodeTaken(custom.to_string()));
            }
            Some(custom) => custom,
            None => free_code(tx, domain)?,
        };
        let link = Link {
            id: LinkId::random(),
            account_id: account,
            name: self.name.clone(),
            short_code,
            domain: self.domain.clone(),
            design: self.design,
            target_url: self.target_url.clone(),
            scan_count: 0,
            created_at: self.created_at.map_or(now, |at| at.min(now)),
            updated_at: now,
            tags: self.tags.clone(),
            options: Options::new(self.options.clone()),
        };
        tx.insert_link(&link)?;
        tx.enqueue_webhook_event(account, &link_event(EventKind::LinkCreated, &link, now))?;
        record(
            tx,
            caller,
            now,
            AuditAction::LinkCreated,
            AuditObject::new(ObjectKind::Link, link.id),
            summary::link_created(&link),
        )?;
        room.count += 1;
        Ok(link)
    }
}

impl LinkRoom {
    /// The account's link count and limit (the stored plan's and `limits`', the smaller).
    pub(crate) fn read(
        tx: &dyn ReadTx,
        account: AccountId,
        limits: &PlanLimits,
    ) -> Result<Self, LinkError> {
        let current = tx.account(account)?.ok_or(LinkError::NotFound)?;
        Ok(Self {
            count: tx.count_links(account)?,
            limit: current.limits().links.min_with(limits.links),
            plan: current.plan.to_string(),
        })
    }
}

/// A generated code no link uses or used on `domain`.
fn free_code(tx: &dyn ReadTx, domain: Option<&DomainName>) -> Result<ShortCode, LinkError> {
    for _ in 0..CODE_ATTEMPTS {
        let code = ShortCode::generate()?;
        if !tx.code_taken(domain, &code)? {
            return Ok(code);
        }
    }
    Err(LinkError::CodeSpace)
}

/// Refuses a field the plan does not include, naming the cheapest plan that does.
fn check_features(limits: &PlanLimits, update: &LinkUpdate) -> Result<(), LinkError> {
    match update
        .features()
        .into_iter()
        .find(|(_, f)| !limits.link_features.contains(f))
    {
        Some((field, feature)) => Err(LinkError::PlanRequired {
            field,
            plan: feature.plan(),
        }),
        None => Ok(()),
    }
}

/// The Argon2id hash of a new password (`Some(None)`: remove it; `None`: unchanged).
fn hash_password(update: &LinkUpdate) -> Result<Option<Option<PasswordHash>>, LinkError> {
    update
        .password
        .as_ref()
        .map(|p| {
            p.as_ref()
                .map(|p| PasswordHash::of(&Password::unchecked(p.expose())))
                .transpose()
        })
        .transpose()
        .map_err(LinkError::from)
}

/// `options` with the update's campaign fields applied; a validity that ends before it starts
/// is refused.
fn apply(
    mut options: LinkOptions,
    update: &LinkUpdate,
    password: Option<Option<PasswordHash>>,
) -> Result<LinkOptions, LinkError> {
    fn set<T: Clone>(slot: &mut T, value: Option<&T>) {
        if let Some(v) = value {
            *slot = v.clone();
        }
    }
    set(&mut options.valid_from, update.valid_from.as_ref());
    set(&mut options.valid_until, update.valid_until.as_ref());
    set(&mut options.max_scans, update.max_scans.as_ref());
    set(&mut options.expired_url, update.expired_url.as_ref());
    set(&mut options.disabled, update.disabled.as_ref());
    set(&mut options.password, password.as_ref());
    set(&mut options.rules, update.rules.as_ref());
    set(&mut options.variants, update.variants.as_ref());
    set(&mut options.utm, update.utm.as_ref());
    set(&mut options.forward_query, update.forward_query.as_ref());
    if let (Some(from), Some(until)) = (options.valid_from, options.valid_until)
        && until <= from
    {
        return Err(LinkError::Field(FieldError::new(
            LinkField::ValidUntil,
            FieldRule::UntilNotAfterFrom,
        )));
    }
    Ok(options)
}
