//! The physical-limit baseline for the load script: the smallest hyper 1.x server, answering
//! every request with a fixed 13-byte body, on the same tokio runtime the real server uses.
//!
//! Run: `hello [ADDR]` (default `127.0.0.1:8090`); it prints `Listening on http://ADDR`.

use std::convert::Infallible;
use std::net::SocketAddr;

use bytes::Bytes;
use http_body_util::Full;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

fn main() -> std::io::Result<()> {
    let addr: SocketAddr = match std::env::args().nth(1) {
        Some(raw) => raw
            .parse()
            .map_err(|e| std::io::Error::other(format!("bad address {raw:?}: {e}")))?,
        None => SocketAddr::from(([127, 0, 0, 1], 8090)),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let listener = TcpListener::bind(addr).await?;
        println!("Listening on http://{}", listener.local_addr()?);
        loop {
            let (stream, _) = listener.accept().await?;
            // Small responses go out at once, as in the real server.
            stream.set_nodelay(true)?;
            tokio::spawn(async move {
                let service = service_fn(|_req: Request<hyper::body::Incoming>| async {
                    Ok::<_, Infallible>(Response::new(Full::new(Bytes::from_static(
                        b"Hello, world!",
                    ))))
                });
                // A client closing its connection mid-request is not an error of the baseline.
                let _ = http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    })
}
