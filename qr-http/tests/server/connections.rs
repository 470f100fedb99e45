//! Connection slots under attack: silent sockets cannot lock other clients out, the header deadline runs from accept, and one address holds at most its share.

use crate::common;

use std::time::{Duration, Instant};

use bytes::Bytes;
use common::{TestServer, send};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Opens `n` connections that send nothing, and keeps them.
async fn silent_sockets(server: &TestServer, n: usize) -> Vec<TcpStream> {
    let mut sockets = Vec::with_capacity(n);
    for _ in 0..n {
        sockets.push(TcpStream::connect(server.addr).await.unwrap());
    }
    // Let the server accept them all.
    tokio::time::sleep(Duration::from_millis(300)).await;
    sockets
}

/// Whether the server closed `socket` within `within` (a read returns end of file or an error).
async fn closed_within(socket: &mut TcpStream, within: Duration) -> bool {
    let mut buf = [0u8; 64];
    matches!(
        tokio::time::timeout(within, socket.read(&mut buf)).await,
        Ok(Ok(0) | Err(_))
    )
}

#[tokio::test]
async fn silent_sockets_filling_every_slot_do_not_lock_out_a_new_client() {
    let server = TestServer::start(|c| c.limits.max_connections = 32).await;
    let _silent = silent_sockets(&server, 40).await;
    let started = Instant::now();
    let answered = tokio::time::timeout(
        Duration::from_secs(1),
        send(
            server.addr,
            "GET",
            "/api/health",
            &[("x-api-key", server.owner_key.as_str())],
            Bytes::new(),
        ),
    )
    .await
    .expect("a new client is answered within a second while silent sockets hold the slots");
    assert_eq!(answered.status, 200);
    assert!(started.elapsed() < Duration::from_secs(1));
    server.stop().await;
}

#[tokio::test]
async fn the_header_deadline_runs_from_accept() {
    let server = TestServer::start(|c| c.limits.header_read_timeout = Duration::from_secs(1)).await;
    let mut silent = TcpStream::connect(server.addr).await.unwrap();
    assert!(
        closed_within(&mut silent, Duration::from_secs(3)).await,
        "a socket that sends nothing is closed once the header deadline passes"
    );
    // A connection that sends its request in time is answered as usual.
    let response = send(
        server.addr,
        "GET",
        "/api/health",
        &[("x-api-key", server.owner_key.as_str())],
        Bytes::new(),
    )
    .await;
    assert_eq!(response.status, 200);
    server.stop().await;
}

#[tokio::test]
async fn one_address_holds_at_most_its_share_of_slots() {
    let server = TestServer::start(|c| {
        c.limits.max_connections_per_ip = 4;
        c.limits.body_read_timeout = Duration::from_secs(5);
    })
    .await;
    // Four idle sockets: a fifth connection makes the idlest give way and is served.
    let mut idle = silent_sockets(&server, 4).await;
    let response = send(
        server.addr,
        "GET",
        "/api/health",
        &[("x-api-key", server.owner_key.as_str())],
        Bytes::new(),
    )
    .await;
    assert_eq!(response.status, 200);
    let mut evicted = 0;
    for socket in &mut idle {
        if closed_within(socket, Duration::from_millis(200)).await {
            evicted += 1;
        }
    }
    assert!(evicted >= 1, "an idle socket of the same address gave way");
    drop(idle);
    tokio::time::sleep(Duration::from_millis(200)).await;

    // Four connections each in the middle of a request: none can give way, so a fifth is refused.
    let mut busy = Vec::new();
    for _ in 0..4 {
        let mut socket = TcpStream::connect(server.addr).await.unwrap();
        let head = format!(
            "POST /api/links HTTP/1.1\r\nhost: x\r\nx-api-key: {}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{{\"na",
            server.owner_key
        );
        socket.write_all(head.as_bytes()).await.unwrap();
        busy.push(socket);
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut fifth = TcpStream::connect(server.addr).await.unwrap();
    assert!(
        closed_within(&mut fifth, Duration::from_secs(1)).await,
        "a fifth connection from an address whose four are all busy is closed"
    );
    drop(busy);
    server.stop().await;
}
