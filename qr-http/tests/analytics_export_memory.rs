//! The scan export's memory bound, alone in its binary so that no other test allocates
//! meanwhile: the server streams 200,000 scans (about 20 MB of CSV) to a client that reads and
//! drops each chunk, and the process's peak of live heap bytes grows by a small fraction of the
//! body, because no more than a few pages exist at once.

mod common;

use bytes::Bytes;
use common::{TestServer, at, seed_scans};
use http_body_util::{BodyExt, Empty};
use hyper::Request;
use hyper_util::rt::TokioIo;
use peak_alloc::PeakAlloc;
use qr_domain::Plan;
use qr_domain::chrono::Duration;
use serde_json::json;
use tokio::net::TcpStream;

#[global_allocator]
static HEAP: PeakAlloc = PeakAlloc;

/// Most the peak may grow while the export streams: pages of 1,000 scans are about 120 KB of
/// CSV and 300 KB as records, a few of them live at once, plus hyper's buffers.
const BOUND: usize = 4 * 1024 * 1024;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streaming_200000_scans_holds_a_few_pages_not_the_body() {
    let s = TestServer::start(|_| {}).await;
    let (_, _, key) = s.account(Plan::Enterprise);
    let r = s
        .send(
            "POST",
            "/api/links",
            &[("x-api-key", &key), ("content-type", "application/json")],
            json!({"name": "Big", "targetUrl": "https://example.com/"}).to_string(),
        )
        .await;
    let id = r.json()["id"].as_str().unwrap().to_owned();
    let total = 200_000;
    seed_scans(&s, id.parse().unwrap(), at("2024-05-15T12:00:01Z"), total);
    s.clock.advance(Duration::hours(1));

    let stream = TcpStream::connect(s.addr).await.unwrap();
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .unwrap();
    tokio::spawn(conn);
    let request = Request::get(format!("/api/analytics/export?linkId={id}"))
        .header("host", s.addr.to_string())
        .header("x-api-key", &key)
        .body(Empty::<Bytes>::new())
        .unwrap();
    let baseline = HEAP.current_usage();
    HEAP.reset_peak_usage();
    let response = sender.send_request(request).await.unwrap();
    assert_eq!(response.status(), 200);
    let mut body = response.into_body();
    let (mut bytes, mut lines) = (0usize, 0usize);
    while let Some(frame) = body.frame().await {
        if let Ok(data) = frame.unwrap().into_data() {
            bytes += data.len();
            lines += data.iter().filter(|&&b| b == b'\n').count();
        }
    }
    let grown = HEAP.peak_usage().saturating_sub(baseline);
    assert_eq!(lines, total + 1, "the header and every scan");
    assert!(bytes > 10_000_000, "{bytes} bytes");
    eprintln!("streamed {bytes} bytes; the heap's peak grew by {grown} bytes");
    assert!(
        grown < BOUND,
        "the peak grew by {grown} bytes for a body of {bytes}: the export is not streamed"
    );
    s.stop().await;
}
