//! The export as a download (API and dashboard): the archive built in memory up to a cap, so a
//! request never holds more than [`MAX_DOWNLOAD_BYTES`] and a larger account is told to ask the
//! operator for `qr export`, which writes to a file without a cap.

use std::io::{Cursor, Seek, SeekFrom, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use qr_domain::export::ExportError;
use qr_domain::{AccountId, Clock, Service, Store};

/// The largest archive answered over HTTP: 64 MiB. The response is held in memory while it is
/// sent and at most one export runs per core, so two cores hold at most 128 MiB; at about
/// 30 compressed bytes per scan row that is some two million scans.
pub const MAX_DOWNLOAD_BYTES: u64 = 64 * 1024 * 1024;

/// Why a download could not be built.
#[derive(Debug)]
pub enum DownloadError {
    /// The archive would exceed the cap (bytes).
    TooLarge(u64),
    /// The export failed.
    Export(ExportError),
}

impl DownloadError {
    /// The message shown to the account when the archive is too large.
    pub fn too_large_message(cap: u64) -> String {
        format!(
            "Your export is larger than {} MiB, the most a download holds; ask the operator for it (qr export)",
            cap / (1024 * 1024)
        )
    }
}

/// `account`'s export as ZIP bytes, refused once it grows past `cap` bytes.
pub fn zip_bytes<S: Store, C: Clock>(
    service: &Service<S, C>,
    account: AccountId,
    cap: u64,
) -> Result<Vec<u8>, DownloadError> {
    let over = Arc::new(AtomicBool::new(false));
    let out = Capped {
        inner: Cursor::new(Vec::new()),
        cap,
        over: Arc::clone(&over),
    };
    match crate::write_zip(service, account, out) {
        Ok(out) => Ok(out.inner.into_inner()),
        // The writer's error may come back wrapped by the zip crate; the flag says why.
        Err(_) if over.load(Ordering::Relaxed) => Err(DownloadError::TooLarge(cap)),
        Err(e) => Err(DownloadError::Export(e)),
    }
}

/// A memory buffer that refuses to grow past `cap` bytes.
struct Capped {
    inner: Cursor<Vec<u8>>,
    cap: u64,
    over: Arc<AtomicBool>,
}

impl Write for Capped {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.inner.position() + buf.len() as u64 > self.cap {
            self.over.store(true, Ordering::Relaxed);
            return Err(std::io::Error::other("the export exceeds its size cap"));
        }
        self.inner.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Seek for Capped {
    fn seek(&mut self, pos: SeekFrom) -> std::io::Result<u64> {
        self.inner.seek(pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_buffer_refuses_to_grow_past_its_cap_and_says_so() {
        let over = Arc::new(AtomicBool::new(false));
        let mut out = Capped {
            inner: Cursor::new(Vec::new()),
            cap: 10,
            over: Arc::clone(&over),
        };
        out.write_all(b"0123456789").unwrap();
        assert!(!over.load(Ordering::Relaxed));
        out.seek(SeekFrom::Start(2)).unwrap();
        out.write_all(b"ab").unwrap();
        out.seek(SeekFrom::End(0)).unwrap();
        assert!(out.write_all(b"x").is_err());
        assert!(over.load(Ordering::Relaxed));
        assert_eq!(out.inner.into_inner(), b"01ab456789");
    }
}
