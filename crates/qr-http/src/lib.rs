//! The HTTP server of the QR service, on hyper 1.x: routing, authentication, headers, JSON, ZIP and redirects.
