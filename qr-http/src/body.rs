//! The body of every response: whole bytes, or chunks a task produces while the client reads
//! them (the scan export), so a download of any size is never built in memory.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::{Body, Frame, SizeHint};
use tokio::sync::mpsc;
use tracing::Instrument as _;

/// A chunk of a streamed body, or the failure that ends it (hyper then closes the connection
/// without the final chunk, so the client sees an incomplete download, never a short one that
/// looks whole).
pub(crate) type Chunk = Result<Bytes, io::Error>;

/// The work that fills a streamed body.
type Producer = Pin<Box<dyn Future<Output = ()> + Send>>;

/// How many chunks wait between the producer and the connection: one ready while hyper writes
/// the previous, so the producer reads the next page from the store meanwhile and memory holds
/// at most about three chunks (one being built, one queued, one being written).
const QUEUED_CHUNKS: usize = 1;

/// The body of a response.
pub struct ResponseBody(Kind);

enum Kind {
    Full(Full<Bytes>),
    Stream {
        chunks: mpsc::Receiver<Chunk>,
        /// Started on the first poll, so a HEAD answer or a response dropped unsent costs no
        /// store read.
        producer: Option<Producer>,
    },
}

impl ResponseBody {
    /// A body of these bytes.
    pub(crate) fn full(bytes: impl Into<Bytes>) -> Self {
        ResponseBody(Kind::Full(Full::new(bytes.into())))
    }

    /// A body whose chunks `produce` sends through the sender it is given, in order; it stops
    /// when the sender reports the receiving side gone (the client left).
    pub(crate) fn stream<F, Fut>(produce: F) -> Self
    where
        F: FnOnce(mpsc::Sender<Chunk>) -> Fut,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let (tx, rx) = mpsc::channel(QUEUED_CHUNKS);
        // The producer's log lines carry the request's id like the handler's.
        let producer = produce(tx).instrument(tracing::Span::current());
        ResponseBody(Kind::Stream {
            chunks: rx,
            producer: Some(Box::pin(producer)),
        })
    }
}

impl Body for ResponseBody {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        match &mut self.get_mut().0 {
            Kind::Full(full) => Pin::new(full)
                .poll_frame(cx)
                .map_err(|never| match never {}),
            Kind::Stream { chunks, producer } => {
                if let Some(task) = producer.take() {
                    tokio::spawn(task);
                }
                chunks.poll_recv(cx).map(|c| c.map(|c| c.map(Frame::data)))
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        match &self.0 {
            Kind::Full(full) => full.is_end_stream(),
            Kind::Stream { .. } => false,
        }
    }

    fn size_hint(&self) -> SizeHint {
        match &self.0 {
            Kind::Full(full) => full.size_hint(),
            Kind::Stream { .. } => SizeHint::default(),
        }
    }
}

impl std::fmt::Debug for ResponseBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Kind::Full(full) => write!(f, "ResponseBody::Full({:?})", full.size_hint().exact()),
            Kind::Stream { .. } => f.write_str("ResponseBody::Stream"),
        }
    }
}
