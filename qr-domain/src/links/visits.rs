//! A visit to a short code as one use case: the link found, its gates and password passed, its target chosen and its scan queued to the writer; the visitor gets a redirect or a page ([`PageKind`]), from memory when it can.

use std::borrow::Cow;

use crate::clock::Clock;
use crate::domains::name::DomainName;
use crate::error::StoreError;
use crate::links::opening::{CapAnswer, Landing, Opening, PasswordPrompt};
use crate::links::service::Resolution;
use crate::scans::scan::NewScan;
use crate::scans::service::{PreparedScan, ScanError, Visit};
use crate::scans::writer::{Queued, ScanAck};
use crate::service::Service;
use crate::store::Store;

/// The page a visitor sees instead of a redirect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageKind {
    /// The code never named a link.
    Unknown,
    /// The link was deleted.
    Gone,
    /// The link is paused by its owner.
    Paused,
    /// The link's `validFrom` is still ahead.
    NotYetActive,
    /// The link is past `validUntil` or has reached `maxScans`, and has no `expiredUrl`.
    Expired,
    /// The link has a password: the form, and why it is shown.
    Password(PasswordPrompt),
}

/// What a visit to a short code gets; `A` is the caller's receiver of the scan's commit (see
/// [`Service::visit`]).
#[derive(Debug)]
pub enum VisitOutcome<A> {
    /// A redirect to `target`, and what became of the visit's scan.
    Redirect {
        /// The `Location`.
        target: String,
        /// The visit's scan: queued, or why not.
        scan: Recording<A>,
        /// For a link with `maxScans`: the answer instead of the redirect when the scan's
        /// acknowledgement says [`ScanFate::OverCap`](crate::scans::scan::ScanFate::OverCap) (see [`CapAnswer::outcome`]).
        capped: Option<CapAnswer>,
    },
    /// The link has ended and sends its visitors to its `expiredUrl`; nothing is recorded.
    ExpiredUrl(String),
    /// A page instead of a redirect; nothing is recorded.
    Page(PageKind),
}

impl CapAnswer {
    /// The outcome a capped link's visit gets when its scan was refused: its `expiredUrl`, or
    /// the expired page; nothing is recorded.
    pub fn outcome<A>(self) -> VisitOutcome<A> {
        match self.expired_url {
            Some(url) => VisitOutcome::ExpiredUrl(url),
            None => VisitOutcome::Page(PageKind::Expired),
        }
    }
}

/// What became of a redirected visit's scan.
#[derive(Debug)]
pub enum Recording<A> {
    /// Queued to the writer: `A` reports its commit.
    Queued(A),
    /// Nothing to record: a link checker's HEAD, a bot, a repeat, a read-only store.
    Nothing,
    /// The scan could not be prepared (the day's visitor salt could not be made); the visitor
    /// is redirected anyway.
    NotPrepared(ScanError),
    /// The writer refused the scan (it has stopped); the visitor is redirected anyway.
    NotQueued(StoreError),
    /// The writer's queue is full ([`crate::scans::writer::QUEUE_CAPACITY`] scans: the database
    /// is slower than the traffic): queue it with [`Service::retry_queue`] when the writer frees
    /// room, then wait for its commit as for [`Recording::Queued`].
    WaitingForRoom(PendingScan<A>),
}

/// A visit's scan the writer's queue had no room for, with its commit's callback and the
/// caller's receiver of it.
pub struct PendingScan<A> {
    /// Boxed: the queue is full only while the database is behind, and the outcomes carrying a
    /// pending scan stay the size of the others.
    scan: Box<NewScan>,
    callback: ScanAck,
    receiver: A,
}

impl<A> std::fmt::Debug for PendingScan<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingScan")
            .field("scan", &self.scan)
            .finish_non_exhaustive()
    }
}

/// What [`Service::visit_in_memory`] could answer.
#[derive(Debug)]
pub enum InMemoryVisit<A> {
    /// The visit's outcome, its scan queued without waiting.
    Ready(VisitOutcome<A>),
    /// The store is needed: call [`Service::visit`] where blocking is allowed.
    NeedsStore,
}

/// A visit as its adapter describes it, read only as far as the link needs: a plain link's
/// redirect reads the visitor alone, so an HTTP adapter copies the `Accept-Language` header and
/// the query only for links with campaign settings (the plain redirect is the hot path, tens of
/// thousands a second, and each copy is an allocation).
pub trait VisitFacts {
    /// Whether the visit is a scan to record: a person's GET or the password form sent, not a
    /// link checker's HEAD.
    fn records(&self) -> bool;
    /// Whether the visit sends a password (the form's POST).
    fn sends_password(&self) -> bool;
    /// The visitor, for a plain link's scan.
    fn visit(&self) -> Cow<'_, Visit>;
    /// The whole visit, for a link with campaign settings or a password sent.
    fn opening(&self) -> Cow<'_, Opening>;
}

impl VisitFacts for Opening {
    fn records(&self) -> bool {
        self.record
    }

    fn sends_password(&self) -> bool {
        self.password.is_some()
    }

    fn visit(&self) -> Cow<'_, Visit> {
        Cow::Borrowed(&self.visit)
    }

    fn opening(&self) -> Cow<'_, Opening> {
        Cow::Borrowed(self)
    }
}

impl<S: Store, C: Clock> Service<S, C> {
    /// A visit to `code` on `domain` (`None`: the service's own address) answered from memory, for an async thread: the link cached by an
    /// earlier visit, and its scan prepared and queued without touching the store or waiting.
    /// [`InMemoryVisit::NeedsStore`] when the link is not cached, the day's visitor salt is not
    /// in memory yet, or a password must be verified (Argon2id, about 30 ms); a full writer's
    /// queue is [`Recording::WaitingForRoom`]. `ack` makes the writer's callback and the
    /// caller's receiver of the commit; it is called only for a scan to queue.
    pub fn visit_in_memory<A>(
        &self,
        domain: Option<&DomainName>,
        code: &str,
        facts: &impl VisitFacts,
        ack: impl FnOnce() -> (ScanAck, A),
    ) -> InMemoryVisit<A> {
        use InMemoryVisit::{NeedsStore, Ready};
        if facts.sends_password() {
            return NeedsStore;
        }
        let Some(link) = self.cached_link(domain, code) else {
            return NeedsStore;
        };
        if link.options.get().is_some() {
            let Some(landing) = self.open_in_memory(&link, &facts.opening()) else {
                return NeedsStore;
            };
            let (target, scan, capped) = match redirected(landing) {
                Ok(redirect) => redirect,
                Err(outcome) => return Ready(outcome),
            };
            let scan = match scan {
                Some(scan) => self.queue(scan, ack),
                None => Recording::Nothing,
            };
            return Ready(VisitOutcome::Redirect {
                target,
                scan,
                capped,
            });
        }
        let scan = if facts.records() {
            let Some(prepared) = self.prepare_scan_in_memory(&link, &facts.visit()) else {
                return NeedsStore;
            };
            self.queue(prepared, ack)
        } else {
            Recording::Nothing
        };
        Ready(VisitOutcome::Redirect {
            target: link.target_url.to_string(),
            scan,
            capped: None,
        })
    }

    /// A visit to `code`, reading the store as needed: for a blocking thread (a full writer's
    /// queue is [`Recording::WaitingForRoom`], never waited for here). A scan that cannot be prepared or queued does not keep the
    /// visitor from the link's target ([`Recording::NotPrepared`], [`Recording::NotQueued`]).
    /// `ack` is as for [`Service::visit_in_memory`].
    pub fn visit<A>(
        &self,
        domain: Option<&DomainName>,
        code: &str,
        facts: &impl VisitFacts,
        ack: impl FnOnce() -> (ScanAck, A),
    ) -> Result<VisitOutcome<A>, StoreError> {
        let link = match self.resolve(domain, code)? {
            Resolution::Live(link) => link,
            Resolution::Gone => return Ok(VisitOutcome::Page(PageKind::Gone)),
            Resolution::Unknown => return Ok(VisitOutcome::Page(PageKind::Unknown)),
        };
        let prepared = if link.options.get().is_some() || facts.sends_password() {
            match self.open(&link, &facts.opening()).map(redirected) {
                Ok(Err(outcome)) => return Ok(outcome),
                Ok(Ok(redirect)) => Ok(redirect),
                Err(e) => Err(e),
            }
        } else if facts.records() {
            self.prepare_scan(&link, &facts.visit())
                .map(|scan| (link.target_url.to_string(), Some(scan), None))
        } else {
            Ok((link.target_url.to_string(), None, None))
        };
        Ok(match prepared {
            Ok((target, scan, capped)) => VisitOutcome::Redirect {
                target,
                scan: scan.map_or(Recording::Nothing, |scan| self.queue(scan, ack)),
                capped,
            },
            Err(e) => VisitOutcome::Redirect {
                target: link.target_url.to_string(),
                scan: Recording::NotPrepared(e),
                capped: None,
            },
        })
    }

    /// Queues a prepared scan without waiting: a full queue hands it back for the caller to
    /// queue when there is room ([`Recording::WaitingForRoom`]).
    fn queue<A>(&self, scan: PreparedScan, ack: impl FnOnce() -> (ScanAck, A)) -> Recording<A> {
        let PreparedScan::Record(scan) = scan else {
            return Recording::Nothing;
        };
        let (callback, receiver) = ack();
        let pending = PendingScan {
            scan: Box::new(scan),
            callback,
            receiver,
        };
        match self.retry_queue(pending) {
            Ok(Ok(receiver)) => Recording::Queued(receiver),
            Ok(Err(e)) => Recording::NotQueued(e),
            Err(pending) => Recording::WaitingForRoom(pending),
        }
    }

    /// Queues a scan the writer's queue had no room for: the receiver of its commit once queued
    /// (or why the writer refused it: it has stopped), or the scan back while the queue is still
    /// full. Call it again each time the writer frees room (a hook set with
    /// [`Service::on_scan_queue_room`]): a visit waits for room without holding a thread.
    pub fn retry_queue<A>(
        &self,
        pending: PendingScan<A>,
    ) -> Result<Result<A, StoreError>, PendingScan<A>> {
        let PendingScan {
            scan,
            callback,
            receiver,
        } = pending;
        match self.try_submit_scan(*scan, callback) {
            Ok(Queued::Yes) => Ok(Ok(receiver)),
            Ok(Queued::Full(scan, callback)) => Err(PendingScan {
                scan: Box::new(scan),
                callback,
                receiver,
            }),
            Err(e) => Ok(Err(e)),
        }
    }

    /// Sets what the scan writer calls, on its thread, each time it takes scans out of its queue
    /// (with how many): callers waiting with [`Service::retry_queue`] are woken from it. The hook
    /// must return at once.
    pub fn on_scan_queue_room(&self, hook: impl Fn(usize) + Send + Sync + 'static) {
        self.writer.on_room(hook);
    }
}

/// A redirect's target, its scan, and its answer should the store find the link's cap reached.
type Redirect = (String, Option<PreparedScan>, Option<CapAnswer>);

/// A landing's redirect, or, when it does not redirect to a target, the visitor's outcome.
fn redirected<A>(landing: Landing) -> Result<Redirect, VisitOutcome<A>> {
    Err(match landing {
        Landing::Redirect {
            target,
            scan,
            capped,
        } => return Ok((target, scan, capped)),
        Landing::Paused => VisitOutcome::Page(PageKind::Paused),
        Landing::NotYetActive => VisitOutcome::Page(PageKind::NotYetActive),
        Landing::Expired {
            expired_url: Some(url),
        } => VisitOutcome::ExpiredUrl(url),
        Landing::Expired { expired_url: None } => VisitOutcome::Page(PageKind::Expired),
        Landing::Password(prompt) => VisitOutcome::Page(PageKind::Password(prompt)),
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::mpsc;

    use chrono::{DateTime, Utc};

    use super::*;
    use crate::accounts::account::Account;
    use crate::accounts::caller::Caller;
    use crate::accounts::plan::Plan;
    use crate::clock::TestClock;
    use crate::links::link::{Link, LinkUpdate};
    use crate::memory::MemoryStore;
    use crate::scans::geo::NoGeoLocator;
    use crate::scans::scan::ScanFate;

    type Commit = mpsc::Receiver<Result<ScanFate, StoreError>>;

    const PHONE: &str = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36";

    fn service() -> Service<MemoryStore, TestClock> {
        let clock = TestClock::new("2024-05-01T10:00:00Z".parse().unwrap());
        Service::new(Arc::new(MemoryStore::new()), clock, Arc::new(NoGeoLocator)).unwrap()
    }

    fn ack() -> (ScanAck, Commit) {
        let (tx, rx) = mpsc::channel();
        let ack: ScanAck = Box::new(move |result| {
            let _ = tx.send(result);
        });
        (ack, rx)
    }

    fn no_ack() -> (ScanAck, Commit) {
        panic!("nothing is recorded, so no acknowledgement is made")
    }

    /// A person's GET (`record`), or a link checker's HEAD.
    fn opening(record: bool) -> Opening {
        Opening {
            visit: Visit {
                ip: "192.0.2.1".parse().ok(),
                user_agent: Some(PHONE.to_owned()),
                ..Visit::default()
            },
            record,
            ..Opening::default()
        }
    }

    /// A link to `https://example.com/` with the campaign settings `set` applies.
    fn link_with(
        svc: &Service<MemoryStore, TestClock>,
        a: &Account,
        set: impl FnOnce(&mut LinkUpdate),
    ) -> Link {
        let mut update = LinkUpdate::parse(Some("L"), Some("https://example.com/")).unwrap();
        set(&mut update);
        svc.create_link_with(&Caller::operator(a.id), update)
            .unwrap()
    }

    fn at(text: &str) -> Option<DateTime<Utc>> {
        Some(text.parse().unwrap())
    }

    fn committed(outcome: VisitOutcome<Commit>) -> String {
        match outcome {
            VisitOutcome::Redirect {
                target,
                scan: Recording::Queued(commit),
                ..
            } => {
                assert!(
                    matches!(commit.recv(), Ok(Ok(ScanFate::Stored(_)))),
                    "the scan is committed"
                );
                target
            }
            other => panic!("expected a redirect with its scan queued, got {other:?}"),
        }
    }

    /// A plain link is read from the store once, then redirects from memory with its scan
    /// queued; a HEAD records nothing, a password sent needs the store, and unknown and deleted
    /// codes get their pages.
    #[test]
    fn plain_links_redirect_from_memory_once_read() {
        let svc = service();
        let a = svc.create_account("a@example.com", Plan::Free).unwrap();
        let link = svc
            .create_link(&Caller::operator(a.id), "L", "https://example.com/")
            .unwrap();
        let code = link.short_code.to_string();
        let person = opening(true);
        assert!(matches!(
            svc.visit_in_memory(None, &code, &person, ack),
            InMemoryVisit::NeedsStore
        ));
        assert_eq!(
            committed(svc.visit(None, &code, &person, ack).unwrap()),
            "https://example.com/"
        );
        let InMemoryVisit::Ready(outcome) = svc.visit_in_memory(None, &code, &person, ack) else {
            panic!("the link and the day's salt are in memory");
        };
        assert_eq!(committed(outcome), "https://example.com/");
        assert!(matches!(
            svc.visit_in_memory(None, &code, &opening(false), no_ack),
            InMemoryVisit::Ready(VisitOutcome::Redirect {
                scan: Recording::Nothing,
                ..
            })
        ));
        let form = Opening {
            password: Some("secret".to_owned()),
            ..opening(true)
        };
        assert!(matches!(
            svc.visit_in_memory(None, &code, &form, ack),
            InMemoryVisit::NeedsStore
        ));
        assert!(matches!(
            svc.visit(None, "not a code", &person, no_ack).unwrap(),
            VisitOutcome::Page(PageKind::Unknown)
        ));
        svc.delete_link(&Caller::operator(a.id), link.id).unwrap();
        assert!(matches!(
            svc.visit(None, &code, &person, no_ack).unwrap(),
            VisitOutcome::Page(PageKind::Gone)
        ));
    }

    /// Two servers over one store, a link capped at 2: the second server still counts 1 in its
    /// copy of the link after the first recorded the second scan, so it lets the third visit
    /// through its gate, and
    /// the store refuses the scan; the visitor gets the link's expired answer, not the redirect.
    #[test]
    fn a_scan_past_the_cap_recorded_elsewhere_is_refused_and_answered_as_expired() {
        let clock = TestClock::new("2024-05-01T10:00:00Z".parse().unwrap());
        let store = Arc::new(MemoryStore::new());
        let first =
            Service::new(Arc::clone(&store), clock.clone(), Arc::new(NoGeoLocator)).unwrap();
        let second = Service::new(store, clock, Arc::new(NoGeoLocator)).unwrap();
        let a = first.create_account("a@example.com", Plan::Pro).unwrap();
        let link = link_with(&first, &a, |u| {
            u.set_max_scans(Some(2)).unwrap();
            u.set_expired_url(Some("https://over.example")).unwrap();
        });
        let code = link.short_code.to_string();
        let visitor = |n: u8| Opening {
            visit: Visit {
                ip: Some(std::net::IpAddr::from([192, 0, 2, n])),
                user_agent: Some(PHONE.to_owned()),
                ..Visit::default()
            },
            record: true,
            ..Opening::default()
        };
        // The second server records the first scan (and keeps the link, counting 1); the
        // first server records the second.
        assert_eq!(
            committed(second.visit(None, &code, &visitor(1), ack).unwrap()),
            "https://example.com/"
        );
        assert_eq!(
            committed(first.visit(None, &code, &visitor(2), ack).unwrap()),
            "https://example.com/"
        );
        let InMemoryVisit::Ready(outcome) = second.visit_in_memory(None, &code, &visitor(3), ack)
        else {
            panic!("the second server has the link and the day's salt in memory");
        };
        let VisitOutcome::Redirect {
            scan: Recording::Queued(commit),
            capped: Some(capped),
            ..
        } = outcome
        else {
            panic!("expected the visit through the second server's gate, got {outcome:?}");
        };
        assert_eq!(commit.recv().unwrap().unwrap(), ScanFate::OverCap);
        assert!(matches!(
            capped.outcome::<()>(),
            VisitOutcome::ExpiredUrl(url) if url == "https://over.example/"
        ));
        assert_eq!(first.link(a.id, link.id).unwrap().scan_count, 2);
    }

    /// Campaign links answer their pages or their `expiredUrl` without a scan, from memory as
    /// from the store; a password is asked for, and a wrong one is verified off memory only.
    #[test]
    fn campaign_links_answer_pages_and_expired_urls() {
        let svc = service();
        let a = svc.create_account("a@example.com", Plan::Pro).unwrap();
        let person = opening(true);
        let paused = link_with(&svc, &a, |u| u.set_disabled(true));
        let later = link_with(&svc, &a, |u| u.set_valid_from(at("2024-05-02T00:00:00Z")));
        let over = link_with(&svc, &a, |u| u.set_valid_until(at("2024-05-01T10:00:00Z")));
        let moved = link_with(&svc, &a, |u| {
            u.set_valid_until(at("2024-05-01T10:00:00Z"));
            u.set_expired_url(Some("https://over.example")).unwrap();
        });
        let locked = link_with(&svc, &a, |u| u.set_password(Some("open sesame")).unwrap());
        let page = |link: &Link| match svc.visit(None, link.short_code.as_str(), &person, no_ack) {
            Ok(VisitOutcome::Page(kind)) => kind,
            other => panic!("expected a page, got {other:?}"),
        };
        assert_eq!(page(&paused), PageKind::Paused);
        assert_eq!(page(&later), PageKind::NotYetActive);
        assert_eq!(page(&over), PageKind::Expired);
        assert_eq!(page(&locked), PageKind::Password(PasswordPrompt::Ask));
        assert!(matches!(
            svc.visit_in_memory(None, paused.short_code.as_str(), &person, no_ack),
            InMemoryVisit::Ready(VisitOutcome::Page(PageKind::Paused))
        ));
        assert!(matches!(
            svc.visit(None, moved.short_code.as_str(), &person, no_ack).unwrap(),
            VisitOutcome::ExpiredUrl(url) if url == "https://over.example/"
        ));
        let wrong = Opening {
            password: Some("guess".to_owned()),
            ..opening(true)
        };
        assert!(matches!(
            svc.visit_in_memory(None, locked.short_code.as_str(), &wrong, no_ack),
            InMemoryVisit::NeedsStore
        ));
        assert_eq!(
            match svc
                .visit(None, locked.short_code.as_str(), &wrong, no_ack)
                .unwrap()
            {
                VisitOutcome::Page(kind) => kind,
                other => panic!("expected the form again, got {other:?}"),
            },
            PageKind::Password(PasswordPrompt::Wrong)
        );
        let right = Opening {
            password: Some("open sesame".to_owned()),
            ..opening(true)
        };
        assert_eq!(
            committed(
                svc.visit(None, locked.short_code.as_str(), &right, ack)
                    .unwrap()
            ),
            "https://example.com/"
        );
    }

    /// A store whose scan batches wait until the test opens its gate: a database slower than
    /// the traffic.
    struct Gated {
        inner: MemoryStore,
        open: std::sync::Mutex<bool>,
        opened: std::sync::Condvar,
    }

    impl Gated {
        fn open(&self) {
            *self
                .open
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = true;
            self.opened.notify_all();
        }

        fn wait_open(&self) {
            let mut open = self.open.lock().unwrap();
            while !*open {
                open = self.opened.wait(open).unwrap();
            }
        }
    }

    impl Store for Gated {
        fn read<T, E: From<StoreError>>(
            &self,
            f: impl FnOnce(&dyn crate::store::ReadTx) -> Result<T, E>,
        ) -> Result<T, E> {
            self.inner.read(f)
        }

        fn write<T, E: From<StoreError>>(
            &self,
            f: impl FnOnce(&mut dyn crate::store::WriteTx) -> Result<T, E>,
        ) -> Result<T, E> {
            self.inner.write(f)
        }

        fn record_scans(&self, scans: &[NewScan]) -> Result<Vec<ScanFate>, StoreError> {
            self.wait_open();
            self.inner.record_scans(scans)
        }

        fn record_scans_with_events(
            &self,
            scans: &[NewScan],
            subscribed: &std::collections::HashSet<crate::ids::AccountId>,
        ) -> Result<Vec<ScanFate>, StoreError> {
            self.wait_open();
            self.inner.record_scans_with_events(scans, subscribed)
        }

        fn config_version(&self) -> Result<u64, StoreError> {
            self.inner.config_version()
        }

        fn config_changes(
            &self,
            since: u64,
        ) -> Result<crate::accounts::config_change::ConfigChanges, StoreError> {
            self.inner.config_changes(since)
        }
    }

    /// The writer's queue full (the database stalled): the next visit is redirected with its
    /// scan handed back ([`Recording::WaitingForRoom`]) instead of blocking; retrying while full
    /// hands it back again; once the database moves, the writer's room hook fires, the retry
    /// queues the scan and it commits. No scan is lost.
    #[test]
    fn a_full_queue_hands_the_scan_back_until_the_writer_frees_room() {
        use crate::scans::writer::QUEUE_CAPACITY;
        let clock = TestClock::new("2024-05-01T10:00:00Z".parse().unwrap());
        let store = Arc::new(Gated {
            inner: MemoryStore::new(),
            open: std::sync::Mutex::new(false),
            opened: std::sync::Condvar::new(),
        });
        /// Opens the gate however the test ends, so the service's writer can stop.
        struct OpenOnDrop(Arc<Gated>);
        impl Drop for OpenOnDrop {
            fn drop(&mut self) {
                self.0.open();
            }
        }
        let svc = Service::new(Arc::clone(&store), clock, Arc::new(NoGeoLocator)).unwrap();
        let _open_at_end = OpenOnDrop(Arc::clone(&store));
        let freed = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = Arc::clone(&freed);
        svc.on_scan_queue_room(move |n| {
            counted.fetch_add(n, std::sync::atomic::Ordering::SeqCst);
        });
        let a = svc.create_account("a@example.com", Plan::Free).unwrap();
        let link = svc
            .create_link(&Caller::operator(a.id), "L", "https://example.com/")
            .unwrap();
        let code = link.short_code.to_string();
        let from = |n: u32| Opening {
            visit: Visit {
                ip: Some(std::net::IpAddr::from(n.to_be_bytes())),
                user_agent: Some(PHONE.to_owned()),
                ..Visit::default()
            },
            record: true,
            ..Opening::default()
        };
        // The first scan is taken by the writer, which then waits at the gate.
        let VisitOutcome::Redirect {
            scan: Recording::Queued(first),
            ..
        } = svc.visit(None, &code, &from(1), ack).unwrap()
        else {
            panic!("the first scan is queued");
        };
        while freed.load(std::sync::atomic::Ordering::SeqCst) == 0 {
            std::thread::yield_now();
        }
        // From memory while the link's copy is fresh (1 s), else through the store: neither waits.
        let visit = |opening: &Opening| match svc.visit_in_memory(None, &code, opening, ack) {
            InMemoryVisit::Ready(outcome) => outcome,
            InMemoryVisit::NeedsStore => svc.visit(None, &code, opening, ack).unwrap(),
        };
        let mut commits = Vec::new();
        for n in 0..QUEUE_CAPACITY as u32 {
            match visit(&from(0x0A00_0000 + n)) {
                VisitOutcome::Redirect {
                    scan: Recording::Queued(commit),
                    ..
                } => commits.push(commit),
                other => panic!("visit {n} is queued while there is room, got {other:?}"),
            }
        }
        let VisitOutcome::Redirect {
            target,
            scan: Recording::WaitingForRoom(pending),
            ..
        } = visit(&from(2))
        else {
            panic!("a full queue hands the scan back");
        };
        assert_eq!(target, "https://example.com/");
        let pending = svc.retry_queue(pending).expect_err("still full");
        store.open();
        while freed.load(std::sync::atomic::Ordering::SeqCst) < 2 {
            std::thread::yield_now();
        }
        let Ok(Ok(last)) = svc.retry_queue(pending) else {
            panic!("queued once the writer took a batch");
        };
        for commit in std::iter::once(first).chain(commits).chain([last]) {
            assert!(matches!(commit.recv().unwrap(), Ok(ScanFate::Stored(_))));
        }
        assert_eq!(
            svc.link(a.id, link.id).unwrap().scan_count,
            QUEUE_CAPACITY as u64 + 2
        );
    }
}
