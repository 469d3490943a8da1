//! Reading a child's output up to a cap, draining (and counting) the rest so it never blocks.

use tokio::io::{AsyncRead, AsyncReadExt};

/// What was read from one stream.
#[derive(Default)]
pub(super) struct Captured {
    /// The first `cap` bytes.
    pub kept: Vec<u8>,
    /// How many bytes came after them.
    pub dropped: u64,
}

/// Reads `stream` to its end, keeping at most `cap` bytes.
pub(super) async fn capped<R: AsyncRead + Unpin>(mut stream: R, cap: usize) -> Captured {
    let mut out = Captured::default();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match stream.read(&mut buf).await {
            Ok(0) | Err(_) => return out,
            Ok(n) => n,
        };
        let room = cap.saturating_sub(out.kept.len()).min(n);
        out.kept.extend_from_slice(&buf[..room]);
        out.dropped += (n - room) as u64;
    }
}
