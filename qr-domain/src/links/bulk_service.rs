//! Bulk link creation: every valid item created in one write transaction with per-index failures, and the idempotency key's stored answer written in that same transaction.

use crate::accounts::caller::Caller;
use crate::accounts::permissions::Operation;
use crate::accounts::plan::Feature;
use crate::clock::Clock;
use crate::links::bulk::{
    BulkError, BulkOutcome, BulkRequest, IdempotencyKey, IdempotencyRecord, ItemError, ItemFailure,
    MAX_BULK_LINKS, StoredAnswer, expiry,
};
use crate::links::link::LinkError;
use crate::links::service::{LinkRoom, NewLink};
use crate::service::Service;
use crate::store::{Store, WriteTx};

/// Whose bound applies to a bulk request's size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BulkCaller {
    /// An API key: the plan's bulk size, and no bulk at all below Pro.
    Api,
    /// The operator (`qr links import`), like `qr batch`: no plan size, only
    /// [`MAX_BULK_LINKS`] per call. The account's link limit and link features still apply.
    Operator,
}

impl<S: Store, C: Clock> Service<S, C> {
    /// Creates every valid item of `request` for `account` and lists the others by index, as
    /// `POST /api/links` would for each: the plan's link features, the link limit (counted
    /// as the items are created, so the items past the limit fail), custom codes that must be
    /// free (also among the request's own items), and a `link.created` event per link. All
    /// in one write transaction. With a `key`, a retry within 24 hours gets the stored answer
    /// and creates nothing ([`BulkOutcome::replayed`]); the same key with another body is
    /// [`BulkError::KeyReused`]. Each failure is typed ([`ItemError`]); the adapter words it.
    /// The caller needs [`Operation::WriteLinks`]; each link created writes its `link.created`
    /// audit entry in the same transaction.
    pub fn create_links_bulk(
        &self,
        caller: &Caller,
        request: BulkRequest,
        key: Option<IdempotencyKey>,
        bound: BulkCaller,
    ) -> Result<BulkOutcome, BulkError> {
        caller.require(Operation::WriteLinks)?;
        let account = match self.workspace(caller.account) {
            Ok(account) => account,
            Err(LinkError::Store(e)) => return Err(e.into()),
            Err(_) => return Err(BulkError::AccountNotFound),
        };
        let limits = account.limits();
        let max = match bound {
            BulkCaller::Api => limits
                .bulk_links
                .ok_or(BulkError::PlanRequired(Feature::BulkLinks.plan()))?
                as usize,
            BulkCaller::Operator => MAX_BULK_LINKS,
        }
        .min(MAX_BULK_LINKS);
        if request.items.is_empty() {
            return Err(BulkError::LinksRequired);
        }
        if request.items.len() > max {
            return Err(BulkError::TooMany(max));
        }
        let BulkRequest {
            items,
            data,
            fingerprint,
        } = request;
        let failure = |index: usize, error: ItemError| ItemFailure {
            index,
            data: data.get(index).cloned().unwrap_or_default(),
            error,
        };
        // Checks and password hashes before the transaction, which then only writes.
        let mut failures = Vec::new();
        let mut ready = Vec::with_capacity(items.len());
        for (index, item) in items.into_iter().enumerate() {
            match item.and_then(|fields| NewLink::prepare(&limits, fields).map_err(ItemError::from))
            {
                Ok(new) => ready.push((index, new)),
                Err(e) => failures.push(failure(index, e)),
            }
        }
        let now = self.clock.now();
        self.store.write(|tx| {
            if let Some(key) = &key
                && let Some(record) = tx.idempotency_record(account.id, key)?
                && record.is_live(now)
            {
                return replay(tx, &account, &record, fingerprint);
            }
            let mut room = match LinkRoom::read(tx, account.id, &limits) {
                Ok(room) => room,
                Err(LinkError::Store(e)) => return Err(e.into()),
                Err(_) => return Err(BulkError::AccountNotFound),
            };
            let mut created = Vec::with_capacity(ready.len());
            for (index, new) in &ready {
                match new.insert(tx, caller, now, &mut room) {
                    Ok(link) => created.push((*index, link)),
                    // A store failure fails the whole request: nothing is half-created.
                    Err(LinkError::Store(e)) => return Err(e.into()),
                    Err(e) => failures.push(failure(*index, e.into())),
                }
            }
            failures.sort_by_key(|f| f.index);
            if let Some(key) = key {
                let answer = StoredAnswer {
                    created: created.iter().map(|(i, l)| (*i, l.id)).collect(),
                    failures: failures.clone(),
                };
                tx.put_idempotency_record(&IdempotencyRecord {
                    account_id: account.id,
                    key,
                    fingerprint,
                    answer: serde_json::to_string(&answer)
                        .map_err(|e| BulkError::Corrupt(e.to_string()))?,
                    created_at: now,
                    expires_at: expiry(now),
                })?;
            }
            Ok(BulkOutcome {
                created,
                failures,
                replayed: false,
            })
        })
    }
}

/// The stored answer of a live record: its links as they are now (deleted ones left out) and
/// its failures; another body under the same key is refused.
fn replay(
    tx: &mut dyn WriteTx,
    account: &crate::accounts::account::Account,
    record: &IdempotencyRecord,
    fingerprint: [u8; 32],
) -> Result<BulkOutcome, BulkError> {
    if record.fingerprint != fingerprint {
        return Err(BulkError::KeyReused);
    }
    let answer: StoredAnswer =
        serde_json::from_str(&record.answer).map_err(|e| BulkError::Corrupt(e.to_string()))?;
    let mut created = Vec::with_capacity(answer.created.len());
    for (index, id) in answer.created {
        if let Some(link) = tx.link(account.id, id)? {
            created.push((index, link));
        }
    }
    Ok(BulkOutcome {
        created,
        failures: answer.failures,
        replayed: true,
    })
}
