//! An export's records imported for one account: each record placed on a domain ([`crate::placement`]), its code checked (kept exactly, free on that domain, not twice there in the file), then every link that can be kept created in one write transaction through the domain's bulk creation, or, on a dry run, only reported.
//!
//! Atomicity (docs/api.md): one file is one write transaction. The links that can be kept are
//! created and the others listed with their reasons; a store failure creates none. A run
//! again after fixing the refused records is safe: a code this account already holds on the
//! same domain with the same target is reported as already imported, never created twice, so
//! the store itself is the checkpoint.

use std::collections::HashMap;

use qr_domain::accounts::caller::Caller;
use qr_domain::domains::name::DomainName;
use qr_domain::links::bulk::{BulkError, BulkRequest};
use qr_domain::links::link::LinkError;
use qr_domain::service::{BulkCaller, Resolution};
use qr_domain::{Account, Clock, Limit, Link, LinkUpdate, Service, ShortCode, Store, StoreError};

use crate::foreign::{ForeignRecord, MAX_IMPORT_LINKS};
use crate::mapping::{MappedLink, link_update};
use crate::placement::{ChosenDomainError, DomainChoice, Placement, place_name};

/// What became of one record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ItemOutcome {
    /// Created (the import wrote it).
    Created(Box<Link>),
    /// Would be created (a dry run): the link's input as checked.
    WouldCreate(Box<LinkUpdate>),
    /// This account already holds the code on the same domain with the same target (an
    /// earlier run of the same file): nothing to do.
    AlreadyImported(Box<Link>),
    /// Not imported, with the reason in the domain's words.
    Refused(String),
}

/// One record's outcome, with what identifies it in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportItem {
    /// The record's position in the file, from 1.
    pub position: usize,
    /// The short URL as printed (`bit.ly/3xYz9Ab`), or the code, or empty.
    pub shown: String,
    /// The source domain as the export gives it, as text.
    pub source_domain: Option<String>,
    /// Where its code lands on this service: one of the account's domains, or `None` for the
    /// service's own address (for a refused record, where it would have landed).
    pub lands_on: Option<DomainName>,
    /// What became of it.
    pub outcome: ItemOutcome,
}

/// What an import did (or, on a dry run, would do), record by record in file order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportReport {
    /// Every record's outcome.
    pub items: Vec<ImportItem>,
    /// Whether nothing was written.
    pub dry_run: bool,
}

impl ImportReport {
    /// How many records were refused.
    pub fn refused(&self) -> usize {
        self.items
            .iter()
            .filter(|i| matches!(i.outcome, ItemOutcome::Refused(_)))
            .count()
    }

    /// How many links were created, or would be.
    pub fn created(&self) -> usize {
        self.items
            .iter()
            .filter(|i| {
                matches!(
                    i.outcome,
                    ItemOutcome::Created(_) | ItemOutcome::WouldCreate(_)
                )
            })
            .count()
    }

    /// How many records this account already held.
    pub fn already_imported(&self) -> usize {
        self.items
            .iter()
            .filter(|i| matches!(i.outcome, ItemOutcome::AlreadyImported(_)))
            .count()
    }
}

/// Why an import did nothing at all.
#[derive(Debug)]
pub enum ImportError {
    /// More records than one import takes.
    TooMany(usize),
    /// The store failed (nothing was created).
    Store(StoreError),
    /// The bulk creation refused the whole request (nothing was created).
    Bulk(BulkError),
    /// The domain every record was to go onto cannot take them (nothing was created).
    Domain(ChosenDomainError),
}

impl std::fmt::Display for ImportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ImportError::TooMany(n) => write!(
                f,
                "the file has {n} links; one import takes at most {MAX_IMPORT_LINKS}: split the file"
            ),
            ImportError::Store(e) => write!(f, "nothing was imported: {e}"),
            ImportError::Bulk(e) => write!(f, "nothing was imported: {e}"),
            ImportError::Domain(e) => write!(f, "nothing was imported: {e}"),
        }
    }
}

impl std::error::Error for ImportError {}

impl From<StoreError> for ImportError {
    fn from(e: StoreError) -> Self {
        ImportError::Store(e)
    }
}

impl From<ChosenDomainError> for ImportError {
    fn from(e: ChosenDomainError) -> Self {
        ImportError::Domain(e)
    }
}

/// A record checked against the store: ready to create, or already decided.
enum Checked {
    Ready(Box<LinkUpdate>),
    Decided(ItemOutcome),
}

/// A record with what identifies it, where it lands and its check.
struct CheckedRecord {
    position: usize,
    shown: String,
    source_domain: Option<String>,
    lands_on: Option<DomainName>,
    checked: Checked,
}

impl CheckedRecord {
    fn item(self, outcome: ItemOutcome) -> ImportItem {
        ImportItem {
            position: self.position,
            shown: self.shown,
            source_domain: self.source_domain,
            lands_on: self.lands_on,
            outcome,
        }
    }
}

/// Reports what importing `records` for `account` onto the domains `choice` says would do,
/// writing nothing: where each record lands, every refusal the write would meet, in the
/// domain's words (the fields' rules, domains that take no new links, taken codes, the plan's
/// custom codes and link limit), and every link that would be created.
pub fn dry_run<S: Store, C: Clock>(
    service: &Service<S, C>,
    account: &Account,
    records: &[ForeignRecord],
    choice: &DomainChoice,
) -> Result<ImportReport, ImportError> {
    let checked = check(service, account, records, choice)?;
    // The write's own checks (the plan's link features, then its link limit), told in
    // advance with the domain's messages, in the order the bulk creation applies them.
    let limits = account.limits();
    let mut room = match limits.links {
        Limit::Unlimited => u64::MAX,
        Limit::Max(max) => max.saturating_sub(service.count_links(account.id)?),
    };
    let items = checked
        .into_iter()
        .map(|record| {
            let CheckedRecord {
                position,
                shown,
                source_domain,
                lands_on,
                checked,
            } = record;
            let outcome = match checked {
                Checked::Decided(outcome) => outcome,
                Checked::Ready(update) => {
                    let missing = update
                        .features()
                        .into_iter()
                        .find(|(_, feature)| !limits.link_features.contains(feature));
                    if let Some((field, feature)) = missing {
                        ItemOutcome::Refused(
                            LinkError::PlanRequired {
                                field,
                                plan: feature.plan(),
                            }
                            .to_string(),
                        )
                    } else if room == 0 {
                        let limit = match limits.links {
                            Limit::Max(max) => max,
                            Limit::Unlimited => u64::MAX,
                        };
                        ItemOutcome::Refused(
                            LinkError::LimitReached {
                                plan: account.plan.to_string(),
                                limit,
                            }
                            .to_string(),
                        )
                    } else {
                        room -= 1;
                        ItemOutcome::WouldCreate(update)
                    }
                }
            };
            ImportItem {
                position,
                shown,
                source_domain,
                lands_on,
                outcome,
            }
        })
        .collect();
    Ok(ImportReport {
        items,
        dry_run: true,
    })
}

/// Imports `records` for `account` onto the domains `choice` says: every record whose link can
/// be kept is created in one write transaction (the plan's link features and link limit
/// apply, as through the API; `caller` says whose bulk bound applies, `by` who imports, as the
/// audit log records it); the others are listed with their reasons.
pub fn run<S: Store, C: Clock>(
    service: &Service<S, C>,
    account: &Account,
    by: &Caller,
    records: &[ForeignRecord],
    choice: &DomainChoice,
    caller: BulkCaller,
) -> Result<ImportReport, ImportError> {
    let checked = check(service, account, records, choice)?;
    // Each ready record's place among the bulk request's items.
    let mut request_items = Vec::new();
    let mut data = Vec::new();
    let mut slot_of = vec![None; checked.len()];
    for (i, record) in checked.iter().enumerate() {
        if let Checked::Ready(update) = &record.checked {
            slot_of[i] = Some(request_items.len());
            request_items.push(Ok((**update).clone()));
            data.push(record.shown.clone());
        }
    }
    let mut created: HashMap<usize, Link> = HashMap::new();
    let mut failed: HashMap<usize, String> = HashMap::new();
    if !request_items.is_empty() {
        let request = BulkRequest {
            items: request_items,
            data,
            // Without an idempotency key nothing is compared with it.
            fingerprint: [0; 32],
        };
        let outcome = service
            .create_links_bulk(by, request, None, caller)
            .map_err(ImportError::Bulk)?;
        created.extend(outcome.created);
        failed.extend(
            outcome
                .failures
                .into_iter()
                .map(|f| (f.index, f.error.to_string())),
        );
    }
    let items = checked
        .into_iter()
        .zip(slot_of)
        .map(|(record, slot)| {
            let outcome = match (&record.checked, slot) {
                (Checked::Decided(outcome), _) => outcome.clone(),
                (Checked::Ready(_), Some(slot)) => {
                    match (created.remove(&slot), failed.remove(&slot)) {
                        (Some(link), _) => ItemOutcome::Created(Box::new(link)),
                        (None, Some(reason)) => ItemOutcome::Refused(reason),
                        // The bulk creation answers every item; none missing is its contract.
                        (None, None) => ItemOutcome::Refused(
                            "the link was not created; run the import again".to_owned(),
                        ),
                    }
                }
                (Checked::Ready(_), None) => ItemOutcome::Refused(
                    "the link was not created; run the import again".to_owned(),
                ),
            };
            record.item(outcome)
        })
        .collect();
    Ok(ImportReport {
        items,
        dry_run: false,
    })
}

/// Each record placed on its domain, mapped to its link input, and its code checked against
/// the file's earlier codes on the same domain and against the store there.
fn check<S: Store, C: Clock>(
    service: &Service<S, C>,
    account: &Account,
    records: &[ForeignRecord],
    choice: &DomainChoice,
) -> Result<Vec<CheckedRecord>, ImportError> {
    if records.len() > MAX_IMPORT_LINKS {
        return Err(ImportError::TooMany(records.len()));
    }
    let placement = Placement::read(service, account, choice)?;
    // The first record of each address: a code is unique per domain, so the key is both.
    let mut first_of: HashMap<(Option<DomainName>, ShortCode), (usize, Option<String>)> =
        HashMap::new();
    let mut out = Vec::with_capacity(records.len());
    for record in records {
        let source_domain = record.link.as_ref().ok().and_then(|l| l.domain.clone());
        let landing = placement.land(source_domain.as_deref());
        // A refused domain is still where the record would have landed, for the report.
        let lands_on = match &landing {
            Ok(lands_on) => lands_on.clone(),
            Err(refused) => Some(refused.domain.clone()),
        };
        let mapped = record
            .link
            .as_ref()
            .map_err(|unreadable| unreadable.reason.clone())
            .and_then(link_update)
            .and_then(|mapped| landing.map(|_| mapped).map_err(|refused| refused.reason));
        let checked = match mapped {
            Err(reason) => Checked::Decided(ItemOutcome::Refused(reason)),
            Ok(MappedLink { mut update, code }) => {
                let address = (lands_on.clone(), code);
                match first_of.get(&address) {
                    Some((position, first_source)) => {
                        Checked::Decided(ItemOutcome::Refused(repeated(
                            &address.1,
                            lands_on.as_ref(),
                            *position,
                            first_source.as_deref(),
                            source_domain.as_deref(),
                        )))
                    }
                    None => {
                        first_of.insert(address, (record.position, source_domain.clone()));
                        update.domain = lands_on.clone().map(Some);
                        against_store(service, account, update, lands_on.as_ref(), code)?
                    }
                }
            }
        };
        out.push(CheckedRecord {
            position: record.position,
            shown: record.shown(),
            source_domain,
            lands_on,
            checked,
        });
    }
    Ok(out)
}

/// The refusal of a code already met earlier in the file on the same domain (a code names one
/// link per domain, compared without regard to case: `abc` and `ABC`, two links on Bitly, are
/// one code here). Two records printed on different domains that land on the same one say so.
fn repeated(
    code: &ShortCode,
    lands_on: Option<&DomainName>,
    first: usize,
    first_source: Option<&str>,
    source: Option<&str>,
) -> String {
    let place = place_name(lands_on);
    match (first_source, source) {
        (Some(a), Some(b)) if a != b => format!(
            "its code {code} is also record {first}'s (printed on {a}); both land on {place}, where a code names one link"
        ),
        _ => format!("its code {code} is also record {first}'s; a code names one link on {place}"),
    }
}

/// A code checked against the store on the domain it lands on: free (ready), already this
/// account's there with the same target (already imported), or taken (refused with the
/// domain's message).
fn against_store<S: Store, C: Clock>(
    service: &Service<S, C>,
    account: &Account,
    update: LinkUpdate,
    lands_on: Option<&DomainName>,
    code: ShortCode,
) -> Result<Checked, ImportError> {
    let taken = || {
        Checked::Decided(ItemOutcome::Refused(
            LinkError::CodeTaken(code.to_string()).to_string(),
        ))
    };
    Ok(match service.resolve(lands_on, code.as_str())? {
        Resolution::Unknown => Checked::Ready(Box::new(update)),
        Resolution::Live(link)
            if link.account_id == account.id
                && Some(&link.target_url) == update.target_url.as_ref() =>
        {
            Checked::Decided(ItemOutcome::AlreadyImported(Box::new(link)))
        }
        Resolution::Live(link) if link.account_id == account.id => {
            Checked::Decided(ItemOutcome::Refused(format!(
                "its code {code} is already your link {:?}, which goes to {}",
                link.name.as_str(),
                link.target_url.as_str()
            )))
        }
        Resolution::Live(_) | Resolution::Gone => taken(),
    })
}
