//! Task ids: AgentScope gives a new task the id `str(largest numeric id + 1)`, where "numeric"
//! means Python's `int(id)` succeeds. This module parses ids the way `int()` does for the ASCII
//! cases and orders ids "lowest first" (numeric ids by value, then the others by text).

use std::cmp::Ordering;

/// A task id as stored: inline up to 24 bytes (the `compact_str` feature, on by default), so
/// AgentScope's numeric ids never allocate and copying one into an index costs no allocation.
#[cfg(feature = "compact_str")]
pub type Id = compact_str::CompactString;
/// A task id as stored.
#[cfg(not(feature = "compact_str"))]
pub type Id = String;

/// A non-negative integer id value of any size, ordered numerically (no allocation up to 38 digits).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum NumericId {
    /// A value that fits in 128 bits.
    Small(u128),
    /// A larger value, as normalized decimal digits (no leading zeros).
    Big(Box<str>),
}

impl NumericId {
    /// Builds a value from decimal digits (leading zeros are dropped); `None` if `digits` is not
    /// a non-empty run of ASCII digits.
    pub fn from_digits(digits: &str) -> Option<Self> {
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let trimmed = digits.trim_start_matches('0');
        Some(match trimmed.parse::<u128>() {
            Ok(v) => NumericId::Small(v),
            Err(_) if trimmed.is_empty() => NumericId::Small(0),
            Err(_) => NumericId::Big(trimmed.into()),
        })
    }

    /// The decimal text of this value plus one.
    pub fn successor(&self) -> String {
        let digits = match self {
            NumericId::Small(v) => match v.checked_add(1) {
                Some(next) => return next.to_string(),
                None => v.to_string(),
            },
            NumericId::Big(d) => d.to_string(),
        };
        let mut bytes = digits.into_bytes();
        for b in bytes.iter_mut().rev() {
            if *b == b'9' {
                *b = b'0';
            } else {
                *b += 1;
                return String::from_utf8(bytes).unwrap_or_default();
            }
        }
        let mut out = String::with_capacity(bytes.len() + 1);
        out.push('1');
        out.push_str(std::str::from_utf8(&bytes).unwrap_or_default());
        out
    }
}

impl Ord for NumericId {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (NumericId::Small(a), NumericId::Small(b)) => a.cmp(b),
            (NumericId::Small(_), NumericId::Big(_)) => Ordering::Less,
            (NumericId::Big(_), NumericId::Small(_)) => Ordering::Greater,
            (NumericId::Big(a), NumericId::Big(b)) => a.len().cmp(&b.len()).then_with(|| a.cmp(b)),
        }
    }
}

impl PartialOrd for NumericId {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// What `int(id)` would make of an id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParsedId {
    /// A non-negative integer.
    Value(NumericId),
    /// Not an integer, or a negative one (which never raises the maximum above 0).
    NotNumeric,
    /// Contains non-ASCII characters: only the host language can tell (Python accepts every
    /// Unicode decimal digit and whitespace character).
    NeedsHost,
}

/// Python's `str.isspace()` for ASCII characters.
fn is_py_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | 0x1c..=0x1f)
}

/// Parses an id the way Python's `int(id)` does (base 10): surrounding whitespace, an optional
/// sign, digits with single underscores between them.
pub fn parse_numeric(id: &str) -> ParsedId {
    // The usual id: plain digits.
    if let Some(value) = NumericId::from_digits(id) {
        return ParsedId::Value(value);
    }
    if !id.is_ascii() {
        return ParsedId::NeedsHost;
    }
    let bytes = id.as_bytes();
    let start = bytes.iter().position(|b| !is_py_space(*b)).unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|b| !is_py_space(*b))
        .map_or(start, |e| e + 1);
    let mut body = &bytes[start..end];
    let negative = match body.first() {
        Some(b'-') => {
            body = &body[1..];
            true
        }
        Some(b'+') => {
            body = &body[1..];
            false
        }
        _ => false,
    };
    let valid_digits = !body.is_empty()
        && body.first().is_some_and(u8::is_ascii_digit)
        && body.last().is_some_and(u8::is_ascii_digit)
        && body.iter().all(|b| b.is_ascii_digit() || *b == b'_')
        && !body.windows(2).any(|w| w == b"__");
    if !valid_digits {
        return ParsedId::NotNumeric;
    }
    let body = std::str::from_utf8(body).unwrap_or_default();
    let value = if body.contains('_') {
        NumericId::from_digits(&body.replace('_', ""))
    } else {
        NumericId::from_digits(body)
    };
    match value {
        Some(value) if !negative || value == NumericId::Small(0) => ParsedId::Value(value),
        _ => ParsedId::NotNumeric,
    }
}

/// Orders ids "lowest first": numeric ids by value (ties by text), then the others by text.
pub fn compare_ids(a: &str, a_num: Option<&NumericId>, b: &str, b_num: Option<&NumericId>) -> Ordering {
    match (a_num, b_num) {
        (Some(x), Some(y)) => x.cmp(y).then_with(|| a.cmp(b)),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => a.cmp(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(id: &str) -> Option<String> {
        match parse_numeric(id) {
            ParsedId::Value(NumericId::Small(v)) => Some(v.to_string()),
            ParsedId::Value(NumericId::Big(d)) => Some(d.to_string()),
            _ => None,
        }
    }

    #[test]
    fn parses_like_python_int() {
        assert_eq!(value("12").as_deref(), Some("12"));
        assert_eq!(value(" 007\n").as_deref(), Some("7"));
        assert_eq!(value("+5").as_deref(), Some("5"));
        assert_eq!(value("1_000").as_deref(), Some("1000"));
        assert_eq!(value("-0").as_deref(), Some("0"));
        assert_eq!(value("\x0b3\x1f").as_deref(), Some("3"));
        for bad in [
            "", " ", "-3", "1__0", "_1", "1_", "abc", "1.5", "0x10", "+", "1 2",
        ] {
            assert_eq!(value(bad), None, "{bad:?}");
        }
        assert_eq!(parse_numeric("١٢"), ParsedId::NeedsHost);
    }

    #[test]
    fn successor_carries() {
        let v = |s| NumericId::from_digits(s).unwrap().successor();
        assert_eq!(v("0"), "1");
        assert_eq!(v("9"), "10");
        assert_eq!(v("1299"), "1300");
        assert_eq!(v("99999999999999999999999"), "100000000000000000000000");
        let max = u128::MAX.to_string();
        assert_eq!(v(&max), "340282366920938463463374607431768211456");
        assert_eq!(
            v("999999999999999999999999999999999999999999"),
            "1000000000000000000000000000000000000000000"
        );
        assert!(
            NumericId::from_digits(&max).unwrap()
                < NumericId::from_digits("340282366920938463463374607431768211456").unwrap()
        );
    }

    #[test]
    fn numeric_order_is_by_value() {
        let n = |s| NumericId::from_digits(s).unwrap();
        assert!(n("9") < n("10"));
        assert!(n("0010") == n("10"));
        let ten = n("10");
        assert_eq!(compare_ids("10", Some(&ten), "abc", None), Ordering::Less);
        assert_eq!(compare_ids("b", None, "a", None), Ordering::Greater);
    }
}
