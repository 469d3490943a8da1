//! Plan text checks (non-blank, no NUL, size limit) and its sha256 fingerprint.

use sha2::{Digest, Sha256};

use super::error::{PlanError, PlanResult};

/// Default largest plan, in bytes of UTF-8.
pub const DEFAULT_MAX_PLAN_BYTES: usize = 256 * 1024;

/// Lowercase hex sha256 of the UTF-8 bytes of `text`.
pub fn sha256_hex(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Checks plan content: not blank, no NUL character, at most `max_bytes` bytes.
/// `what` names the content in errors ("plan content", "edited plan", "plan file ...").
pub fn validate_plan_text(text: &str, max_bytes: usize, what: &str) -> PlanResult<()> {
    if text.trim().is_empty() {
        return Err(PlanError::InvalidInput(format!(
            "{what} is empty: pass the complete markdown plan (goal, steps, risks, verification)"
        )));
    }
    if text.len() > max_bytes {
        return Err(PlanError::InvalidInput(format!(
            "{what} is {} bytes, over the limit of {max_bytes} bytes: shorten the plan",
            text.len()
        )));
    }
    if let Some(pos) = text.find('\0') {
        return Err(PlanError::InvalidInput(format!(
            "{what} contains a NUL character at byte {pos}: plans are plain UTF-8 text"
        )));
    }
    Ok(())
}

/// Decodes file bytes as plan text, naming the first invalid byte when they are not UTF-8.
pub fn decode_plan_bytes(bytes: Vec<u8>, what: &str) -> PlanResult<String> {
    String::from_utf8(bytes).map_err(|e| {
        PlanError::InvalidInput(format!(
            "{what} is not valid UTF-8 (first invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_like_sha256sum() {
        assert_eq!(
            sha256_hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn refuses_blank_nul_and_oversized() {
        assert!(validate_plan_text("# Plan\n1. x", 100, "plan content").is_ok());
        let blank = validate_plan_text(" \n\t", 100, "plan content").unwrap_err();
        assert!(blank.to_string().contains("plan content is empty"));
        let nul = validate_plan_text("ab\0c", 100, "plan content").unwrap_err();
        assert!(nul.to_string().contains("NUL character at byte 2"));
        let big = validate_plan_text(&"x".repeat(101), 100, "plan content").unwrap_err();
        assert!(big.to_string().contains("101 bytes, over the limit of 100"));
    }

    #[test]
    fn names_first_invalid_utf8_byte() {
        let err = decode_plan_bytes(vec![b'o', b'k', 0xff], "plan file").unwrap_err();
        assert!(err.to_string().contains("offset 2"), "{err}");
        assert_eq!(decode_plan_bytes(b"fine".to_vec(), "plan file").unwrap(), "fine");
    }
}
