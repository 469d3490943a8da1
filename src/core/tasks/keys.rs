//! How the index hashes task ids: an id written as a plain decimal number (`"7"`, `"1204"`: what
//! AgentScope's `TaskCreate` gives) by its value, so the usual ids hash and compare as one
//! integer; any other id by its text.

use std::hash::{Hash, Hasher};

use hashbrown::Equivalent;

use super::ids::Id;

/// An id as the index stores it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Key {
    /// A plain decimal id, by value.
    Num(u64),
    /// Any other id.
    Text(Id),
}

/// An id as the index looks it up (borrowed: nothing is copied).
#[derive(Clone, Copy, Debug)]
pub enum KeyRef<'a> {
    /// A plain decimal id, by value.
    Num(u64),
    /// Any other id.
    Text(&'a str),
}

impl<'a> KeyRef<'a> {
    /// The key of `id`.
    pub fn of(id: &'a str) -> Self {
        plain_decimal(id).map_or(KeyRef::Text(id), KeyRef::Num)
    }
}

/// The value of `id` if it is a plain decimal number: ASCII digits only, no leading zero, at
/// most 19 digits (so it fits a `u64`). Each such text has exactly one value and back.
fn plain_decimal(id: &str) -> Option<u64> {
    let digits = id.as_bytes();
    if digits.is_empty() || digits.len() > 19 || (digits[0] == b'0' && digits.len() > 1) {
        return None;
    }
    digits.iter().try_fold(0u64, |value, &b| {
        let digit = b.wrapping_sub(b'0');
        (digit <= 9).then(|| value * 10 + u64::from(digit))
    })
}

impl Key {
    /// The borrowed form, for hashing.
    fn as_ref(&self) -> KeyRef<'_> {
        match self {
            Key::Num(value) => KeyRef::Num(*value),
            Key::Text(text) => KeyRef::Text(text),
        }
    }

    /// The id this key stands for (tests only: the index never needs it back).
    #[cfg(test)]
    pub fn id(&self) -> String {
        match self {
            Key::Num(value) => value.to_string(),
            Key::Text(text) => text.to_string(),
        }
    }
}

impl Hash for KeyRef<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        match self {
            KeyRef::Num(value) => state.write_u64(*value),
            KeyRef::Text(text) => text.hash(state),
        }
    }
}

impl Hash for Key {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_ref().hash(state);
    }
}

impl Equivalent<Key> for KeyRef<'_> {
    fn equivalent(&self, key: &Key) -> bool {
        match (self, key) {
            (KeyRef::Num(a), Key::Num(b)) => a == b,
            (KeyRef::Text(a), Key::Text(b)) => *a == b.as_str(),
            _ => false,
        }
    }
}

impl From<&KeyRef<'_>> for Key {
    fn from(key: &KeyRef<'_>) -> Self {
        match *key {
            KeyRef::Num(value) => Key::Num(value),
            KeyRef::Text(text) => Key::Text(Id::from(text)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_decimals_are_keyed_by_value() {
        assert_eq!(plain_decimal("0"), Some(0));
        assert_eq!(plain_decimal("1204"), Some(1204));
        assert_eq!(plain_decimal("9999999999999999999"), Some(9_999_999_999_999_999_999));
        for text in ["", "007", "00", "+7", "-7", " 7", "7 ", "1_0", "10000000000000000000", "١"] {
            assert_eq!(plain_decimal(text), None, "{text:?}");
        }
        let key = Key::from(&KeyRef::of("007"));
        assert!(!KeyRef::of("7").equivalent(&key));
        assert!(KeyRef::of("007").equivalent(&key));
        assert_eq!(key.id(), "007");
    }
}
