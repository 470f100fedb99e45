//! Sending e-mail without holding up a request: an in-memory queue drained by one thread that sends over SMTP (lettre) or, without SMTP, writes the mail to the log, retrying failures with backoff.
//!
//! A job is a closure run on the mail thread: it issues the one-time token (so the request that
//! queued it does the same work whether or not an account exists) and composes the mail. The
//! queue lives in memory: a restart loses mails not yet sent, and the customer asks again
//! (a new link replaces the old one anyway).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::time::{Duration, Instant};

use lettre::message::header::ContentType;
use lettre::message::{Mailbox, Message};
use lettre::{SmtpTransport, Transport};
use thiserror::Error;

/// Mails waiting to be composed; beyond it new ones are dropped with a warning (each costs a
/// token and an SMTP exchange, and a flood should not grow memory without bound).
const QUEUE: usize = 10_000;
/// Attempts per mail: the waits between them double from 5 s, so the last is about 10 minutes
/// after the first.
const MAX_ATTEMPTS: u32 = 8;
const FIRST_RETRY: Duration = Duration::from_secs(5);
/// How long one SMTP exchange may take before it counts as failed.
const SMTP_TIMEOUT: Duration = Duration::from_secs(10);

/// How mail leaves the server.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MailConfig {
    /// `smtp://user:pass@host:port` (plain, or STARTTLS with `?tls=required`) or
    /// `smtps://host:port`; `None` writes mails to the log instead.
    pub smtp_url: Option<String>,
    /// The sender, `Name <address>` or an address.
    pub from: String,
}

/// A mail ready to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OutgoingMail {
    pub(crate) to: String,
    pub(crate) subject: String,
    pub(crate) body: String,
}

/// What the mail thread runs: issue a token and compose the mail, or `None` when there is
/// nothing to send (an address without an account).
pub(crate) type MailJob = Box<dyn FnOnce() -> Option<OutgoingMail> + Send>;

/// The mail configuration cannot be used.
#[derive(Debug, Error)]
pub enum MailError {
    /// The sender is not an e-mail address.
    #[error("invalid mail sender {0:?}: use an address or Name <address>")]
    From(String),
    /// The SMTP URL is not one lettre understands.
    #[error("invalid SMTP URL: {0}")]
    SmtpUrl(String),
    /// The mail thread could not start.
    #[error("cannot start the mail thread: {0}")]
    Thread(#[from] std::io::Error),
}

/// The queue of outgoing mail and the thread that sends it. Dropping it lets the thread finish
/// what it holds and stop.
#[derive(Debug)]
pub struct Outbox {
    jobs: SyncSender<MailJob>,
    logs_only: bool,
}

enum Sender {
    Smtp(Box<SmtpTransport>),
    Log,
}

struct Due {
    at: Instant,
    seq: u64,
    attempt: u32,
    message: Box<Message>,
    mail: OutgoingMail,
}

impl PartialEq for Due {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}
impl Eq for Due {}
impl PartialOrd for Due {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Due {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.at, self.seq).cmp(&(other.at, other.seq))
    }
}

impl Outbox {
    /// Starts the mail thread.
    pub fn start(config: &MailConfig) -> Result<Self, MailError> {
        let from: Mailbox = config
            .from
            .parse()
            .map_err(|_| MailError::From(config.from.clone()))?;
        let sender = match &config.smtp_url {
            Some(url) => Sender::Smtp(Box::new(
                SmtpTransport::from_url(url)
                    .map_err(|e| MailError::SmtpUrl(e.to_string()))?
                    .timeout(Some(SMTP_TIMEOUT))
                    .build(),
            )),
            None => Sender::Log,
        };
        let logs_only = matches!(sender, Sender::Log);
        let (jobs, queue) = mpsc::sync_channel(QUEUE);
        std::thread::Builder::new()
            .name("qr-mail".to_owned())
            .spawn(move || run(&queue, &sender, &from))?;
        Ok(Self { jobs, logs_only })
    }

    /// Whether mails are written to the log because no SMTP server is configured.
    pub fn logs_only(&self) -> bool {
        self.logs_only
    }

    /// Queues a job; never waits. A full queue drops it with a warning.
    pub(crate) fn enqueue(&self, job: MailJob) {
        match self.jobs.try_send(job) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => {
                tracing::warn!(target: "qr_web::mail", "mail queue full: a mail was dropped");
            }
            Err(TrySendError::Disconnected(_)) => {
                tracing::error!(target: "qr_web::mail", "the mail thread has stopped: a mail was dropped");
            }
        }
    }
}

fn run(queue: &Receiver<MailJob>, sender: &Sender, from: &Mailbox) {
    let mut retries: BinaryHeap<Reverse<Due>> = BinaryHeap::new();
    let mut seq = 0u64;
    loop {
        let wait = retries
            .peek()
            .map_or(Duration::from_secs(3600), |Reverse(d)| {
                d.at.saturating_duration_since(Instant::now())
            });
        match queue.recv_timeout(wait) {
            Ok(job) => {
                if let Some(mail) = job()
                    && let Some(message) = compose(&mail, from)
                {
                    seq += 1;
                    let first = Due {
                        at: Instant::now(),
                        seq,
                        attempt: 1,
                        message: Box::new(message),
                        mail,
                    };
                    if let Some(again) = attempt(sender, first) {
                        retries.push(Reverse(again));
                    }
                }
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => {
                if !retries.is_empty() {
                    tracing::warn!(target: "qr_web::mail", pending = retries.len(), "stopping with mails still to retry");
                }
                return;
            }
        }
        while retries
            .peek()
            .is_some_and(|Reverse(d)| d.at <= Instant::now())
        {
            if let Some(Reverse(due)) = retries.pop()
                && let Some(again) = attempt(sender, due)
            {
                retries.push(Reverse(again));
            }
        }
    }
}

/// The lettre message of a mail; an address lettre cannot use is logged and dropped.
fn compose(mail: &OutgoingMail, from: &Mailbox) -> Option<Message> {
    let to: Mailbox = match mail.to.parse() {
        Ok(to) => to,
        Err(e) => {
            tracing::warn!(target: "qr_web::mail", error = %e, "mail not sent: the recipient is not a usable address");
            return None;
        }
    };
    Message::builder()
        .from(from.clone())
        .to(to)
        .subject(mail.subject.clone())
        .header(ContentType::TEXT_PLAIN)
        .body(mail.body.clone())
        .inspect_err(|e| tracing::warn!(target: "qr_web::mail", error = %e, "mail not composed"))
        .ok()
}

/// Sends once; a failure comes back to be retried later, unless it was the last attempt.
fn attempt(sender: &Sender, due: Due) -> Option<Due> {
    let result = match sender {
        Sender::Smtp(smtp) => smtp.send(&due.message).map(drop).map_err(|e| e.to_string()),
        Sender::Log => {
            tracing::info!(
                target: "qr_web::mail",
                to = %due.mail.to,
                subject = %due.mail.subject,
                "SMTP is not configured; this mail was not sent:\n{}",
                due.mail.body
            );
            return None;
        }
    };
    match result {
        Ok(()) => {
            tracing::info!(target: "qr_web::mail", subject = %due.mail.subject, attempt = due.attempt, "mail sent");
            None
        }
        Err(error) if due.attempt < MAX_ATTEMPTS => {
            let wait = FIRST_RETRY * 2u32.pow(due.attempt - 1);
            tracing::warn!(target: "qr_web::mail", %error, attempt = due.attempt, retry_in_secs = wait.as_secs(), "mail not sent; retrying");
            Some(Due {
                at: Instant::now() + wait,
                attempt: due.attempt + 1,
                ..due
            })
        }
        Err(error) => {
            tracing::error!(target: "qr_web::mail", %error, attempts = due.attempt, subject = %due.mail.subject, "mail not sent; giving up");
            None
        }
    }
}
