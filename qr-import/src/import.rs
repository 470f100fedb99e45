//! An export's records imported for one account: each code checked (kept exactly, free, not twice in the file), then every link that can be kept created in one write transaction through the domain's bulk creation, or, on a dry run, only reported.
//!
//! Atomicity (docs/api.md): one file is one write transaction. The links that can be kept are
//! created and the others listed with their reasons; a store failure creates none. A run
//! again after fixing the refused records is safe: a code this account already holds with
//! the same target is reported as already imported, never created twice, so the store itself
//! is the checkpoint.

use std::collections::HashMap;

use qr_domain::links::bulk::{BulkError, BulkRequest};
use qr_domain::links::link::LinkError;
use qr_domain::service::{BulkCaller, Resolution};
use qr_domain::{Account, Clock, Limit, Link, LinkUpdate, Service, ShortCode, Store, StoreError};

use crate::foreign::{ForeignRecord, MAX_IMPORT_LINKS};
use crate::mapping::{MappedLink, link_update};

/// What became of one record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ItemOutcome {
    /// Created (the import wrote it).
    Created(Box<Link>),
    /// Would be created (a dry run): the link's input as checked.
    WouldCreate(Box<LinkUpdate>),
    /// This account already holds the code with the same target (an earlier run of the same
    /// file): nothing to do.
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
    /// The source domain as the export gives it (text only: which domain this service serves
    /// the code on is not decided here).
    pub domain: Option<String>,
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
        }
    }
}

impl std::error::Error for ImportError {}

impl From<StoreError> for ImportError {
    fn from(e: StoreError) -> Self {
        ImportError::Store(e)
    }
}

/// A record checked against the store: ready to create, or already decided.
enum Checked {
    Ready(Box<LinkUpdate>),
    Decided(ItemOutcome),
}

/// A record with what identifies it and its check.
struct CheckedRecord {
    position: usize,
    shown: String,
    domain: Option<String>,
    checked: Checked,
}

impl CheckedRecord {
    fn item(self, outcome: ItemOutcome) -> ImportItem {
        ImportItem {
            position: self.position,
            shown: self.shown,
            domain: self.domain,
            outcome,
        }
    }
}

/// Reports what importing `records` for `account` would do, writing nothing: every refusal
/// the write would meet, in the domain's words (the fields' rules, taken codes, the plan's
/// custom codes and link limit), and every link that would be created.
pub fn dry_run<S: Store, C: Clock>(
    service: &Service<S, C>,
    account: &Account,
    records: &[ForeignRecord],
) -> Result<ImportReport, ImportError> {
    let checked = check(service, account, records)?;
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
            let outcome = match record.checked {
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
                position: record.position,
                shown: record.shown,
                domain: record.domain,
                outcome,
            }
        })
        .collect();
    Ok(ImportReport {
        items,
        dry_run: true,
    })
}

/// Imports `records` for `account`: every record whose link can be kept is created in one
/// write transaction (the plan's link features and link limit apply, as through the API;
/// `caller` says whose bulk bound applies); the others are listed with their reasons.
pub fn run<S: Store, C: Clock>(
    service: &Service<S, C>,
    account: &Account,
    records: &[ForeignRecord],
    caller: BulkCaller,
) -> Result<ImportReport, ImportError> {
    let checked = check(service, account, records)?;
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
            .create_links_bulk(account, request, None, caller)
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

/// Each record mapped to its link input, its code checked against the file's earlier codes
/// and against the store.
fn check<S: Store, C: Clock>(
    service: &Service<S, C>,
    account: &Account,
    records: &[ForeignRecord],
) -> Result<Vec<CheckedRecord>, ImportError> {
    if records.len() > MAX_IMPORT_LINKS {
        return Err(ImportError::TooMany(records.len()));
    }
    let mut first_of: HashMap<ShortCode, (usize, Option<String>)> = HashMap::new();
    let mut out = Vec::with_capacity(records.len());
    for record in records {
        let domain = record.link.as_ref().ok().and_then(|l| l.domain.clone());
        let checked = match &record.link {
            Err(unreadable) => Checked::Decided(ItemOutcome::Refused(unreadable.reason.clone())),
            Ok(link) => match link_update(link) {
                Err(reason) => Checked::Decided(ItemOutcome::Refused(reason)),
                Ok(MappedLink { update, code }) => match first_of.get(&code) {
                    Some((position, first_domain)) => Checked::Decided(ItemOutcome::Refused(
                        repeated(&code, *position, first_domain.as_deref(), domain.as_deref()),
                    )),
                    None => {
                        first_of.insert(code, (record.position, domain.clone()));
                        against_store(service, account, update, code)?
                    }
                },
            },
        };
        out.push(CheckedRecord {
            position: record.position,
            shown: record.shown(),
            domain,
            checked,
        });
    }
    Ok(out)
}

/// The refusal of a code already met earlier in the file (codes are unique across this
/// service, whatever their domain, and compared without regard to case: `abc` and `ABC`,
/// two links on Bitly, are one code here).
fn repeated(
    code: &ShortCode,
    first: usize,
    first_domain: Option<&str>,
    domain: Option<&str>,
) -> String {
    match (first_domain, domain) {
        (Some(a), Some(b)) if a != b => format!(
            "its code {code} is also record {first}'s (on {a}); a code names one link on this service"
        ),
        _ => format!(
            "its code {code} is also record {first}'s; a code names one link on this service"
        ),
    }
}

/// A code checked against the store: free (ready), already this account's with the same
/// target (already imported), or taken (refused with the domain's message).
fn against_store<S: Store, C: Clock>(
    service: &Service<S, C>,
    account: &Account,
    update: LinkUpdate,
    code: ShortCode,
) -> Result<Checked, ImportError> {
    let taken = || {
        Checked::Decided(ItemOutcome::Refused(
            LinkError::CodeTaken(code.to_string()).to_string(),
        ))
    };
    Ok(match service.resolve(None, code.as_str())? {
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
