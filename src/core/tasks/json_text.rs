//! JSON string text, eight bytes at a time: finding where the plain part of a string ends, and
//! writing a string exactly as serde_json (and so pydantic) escapes it.

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// Whether a byte cannot appear as itself inside a JSON string: `"`, `\` or a control character.
fn is_special(b: u8) -> bool {
    b == b'"' || b == b'\\' || b < 0x20
}

/// The length of the leading run of `bytes` with no `"`, `\` or control character.
pub fn plain_len(bytes: &[u8]) -> usize {
    let mut at = 0;
    while let Some(chunk) = bytes.get(at..at + 8) {
        let x = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
        let quote = x ^ (ONES * u64::from(b'"'));
        let backslash = x ^ (ONES * u64::from(b'\\'));
        // A byte's high bit is set when it is zero (or below 0x20 for `x` itself); borrows can
        // only mark bytes above a marked one, so the lowest mark is exact.
        let marks = ((quote.wrapping_sub(ONES) & !quote)
            | (backslash.wrapping_sub(ONES) & !backslash)
            | (x.wrapping_sub(ONES * 0x20) & !x))
            & HIGH;
        if marks != 0 {
            return at + (marks.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    at + bytes[at..]
        .iter()
        .position(|b| is_special(*b))
        .unwrap_or(bytes.len() - at)
}

/// Appends `text` as a quoted JSON string, escaped as serde_json does it.
pub fn write_str(out: &mut Vec<u8>, text: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push(b'"');
    let mut rest = text.as_bytes();
    loop {
        let plain = plain_len(rest);
        out.extend_from_slice(&rest[..plain]);
        let Some(&b) = rest.get(plain) else { break };
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\x08' => out.extend_from_slice(b"\\b"),
            b'\x0c' => out.extend_from_slice(b"\\f"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            _ => out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(b >> 4)],
                HEX[usize::from(b & 0xf)],
            ]),
        }
        rest = &rest[plain + 1..];
    }
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn plain_runs_stop_at_the_first_special_byte() {
        assert_eq!(plain_len(b"abcdefghij\"k"), 10);
        assert_eq!(plain_len(b"abcdefg\\"), 7);
        assert_eq!(plain_len("é\u{1f}".as_bytes()), 2);
        assert_eq!(plain_len(b"ab\x7f\xffcdefghij"), 12);
        assert_eq!(plain_len(b"\"\"\"\"\"\"\"\"\""), 0);
    }

    proptest! {
        #[test]
        fn strings_are_written_as_serde_json_writes_them(text in any::<String>(), ascii in "[ -~\t\n\\x00-\\x1f]{0,40}") {
            for t in [&text, &ascii] {
                let mut out = Vec::new();
                write_str(&mut out, t);
                prop_assert_eq!(String::from_utf8(out).unwrap(), serde_json::to_string(t).unwrap());
                let first = t.bytes().position(is_special).unwrap_or(t.len());
                prop_assert_eq!(plain_len(t.as_bytes()), first);
            }
        }
    }
}
