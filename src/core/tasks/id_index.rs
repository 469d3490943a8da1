//! What the graph knows about each id: the task that has it and the edge lists that name it.
//!
//! An id written as a plain decimal number (`"7"`, `"1204"`: what AgentScope's `TaskCreate`
//! gives) is keyed by its value; while those values stay dense they index a vector directly (no
//! hashing, neighbours in memory), and beyond that a hash map holds them by value. Any other id
//! is hashed by its text.

use std::hash::{Hash, Hasher};

use hashbrown::Equivalent;

use super::edges::Side;
use super::hashing::State;
use super::ids::Id;
use super::order::Slot;

/// The slots that name one id in an edge list (usually one or two: stored inline with the
/// `smallvec` feature, on by default).
#[cfg(feature = "smallvec")]
pub type Slots = smallvec::SmallVec<[Slot; 2]>;
/// The slots that name one id in an edge list.
#[cfg(not(feature = "smallvec"))]
pub type Slots = Vec<Slot>;

/// Everything the index knows about one id.
#[derive(Clone, Debug, Default)]
pub struct IdUse {
    /// The first (lowest position) slot holding the id.
    pub first: Option<Slot>,
    /// The slots whose `blocked_by` names the id (once per occurrence).
    pub dependents: Slots,
    /// The slots whose `blocks` names the id (once per occurrence).
    pub blockers: Slots,
}

impl IdUse {
    /// The slots whose list on `side` names the id.
    pub fn named_by(&mut self, side: Side) -> &mut Slots {
        match side {
            Side::Blocks => &mut self.blockers,
            Side::BlockedBy => &mut self.dependents,
        }
    }

    /// Whether no task has the id and no edge list names it.
    pub fn is_unused(&self) -> bool {
        self.first.is_none() && self.dependents.is_empty() && self.blockers.is_empty()
    }
}

/// How far past the end of the dense part a value may be and still extend it (so a lone large
/// id such as `"1000000"` goes to the hash map instead of growing a huge vector).
const DENSE_REACH: u64 = 64;

/// id -> its [`IdUse`]; ids no task has and no list names are not kept.
#[derive(Clone, Debug, Default)]
pub struct IdIndex {
    /// Plain decimal ids `0..dense.len()`, by value (every such id lives here, never below).
    dense: Vec<IdUse>,
    /// Every other id.
    sparse: hashbrown::HashMap<Key, IdUse, State>,
    /// How many keys of `sparse` are plain decimal values.
    sparse_values: usize,
}

impl IdIndex {
    /// Makes room for about `more` further ids.
    pub fn reserve(&mut self, more: usize) {
        self.dense.reserve(more);
    }

    /// What is known about an id, if anything.
    pub fn get(&self, key: KeyRef<'_>) -> Option<&IdUse> {
        let used = match key {
            KeyRef::Num(value) if value < self.dense.len() as u64 => &self.dense[value as usize],
            _ => self.sparse.get(&key)?,
        };
        (!used.is_unused()).then_some(used)
    }

    /// The entry for an id, made if missing (a text key is copied only then). Callers that may
    /// leave it unused go through [`IdIndex::update`] instead.
    pub fn entry(&mut self, key: KeyRef<'_>) -> &mut IdUse {
        if let KeyRef::Num(value) = key {
            let len = self.dense.len() as u64;
            if value < len + len + DENSE_REACH {
                if value >= len {
                    self.grow_dense(value);
                }
                return &mut self.dense[value as usize];
            }
        }
        if !self.sparse.contains_key(&key) {
            self.sparse_values += usize::from(matches!(key, KeyRef::Num(_)));
            self.sparse.insert(Key::from(&key), IdUse::default());
        }
        self.sparse.get_mut(&key).expect("present")
    }

    /// Changes the entry of an id that is in use, and forgets the id if that left it unused.
    pub fn update(&mut self, key: KeyRef<'_>, change: impl FnOnce(&mut IdUse)) {
        match key {
            KeyRef::Num(value) if value < self.dense.len() as u64 => change(&mut self.dense[value as usize]),
            _ => {
                let Some(used) = self.sparse.get_mut(&key) else {
                    return;
                };
                change(used);
                if used.is_unused() {
                    self.sparse.remove(&key);
                    self.sparse_values -= usize::from(matches!(key, KeyRef::Num(_)));
                }
            }
        }
    }

    /// Extends the dense part to cover `value` (at least doubling it), moving in any values the
    /// hash map held in the new range.
    fn grow_dense(&mut self, value: u64) {
        let len = (value as usize + 1).max(self.dense.len() * 2);
        self.dense.resize_with(len, IdUse::default);
        if self.sparse_values > 0 {
            let moved: Vec<(Key, IdUse)> = self
                .sparse
                .extract_if(|key, _| matches!(key, Key::Num(v) if *v < len as u64))
                .collect();
            self.sparse_values -= moved.len();
            for (key, used) in moved {
                if let Key::Num(v) = key {
                    self.dense[v as usize] = used;
                }
            }
        }
    }

    /// Every id in use with its entry (tests only).
    #[cfg(test)]
    pub fn iter(&self) -> impl Iterator<Item = (String, &IdUse)> + '_ {
        let dense = self
            .dense
            .iter()
            .enumerate()
            .filter(|(_, used)| !used.is_unused())
            .map(|(value, used)| (value.to_string(), used));
        dense.chain(self.sparse.iter().map(|(key, used)| (key.id(), used)))
    }

    /// Whether the hash map holds entries no id uses (tests only).
    #[cfg(test)]
    pub fn keeps_unused(&self) -> bool {
        self.sparse.values().any(IdUse::is_unused)
    }
}

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
        assert_eq!(
            plain_decimal("9999999999999999999"),
            Some(9_999_999_999_999_999_999)
        );
        for text in [
            "",
            "007",
            "00",
            "+7",
            "-7",
            " 7",
            "7 ",
            "1_0",
            "10000000000000000000",
            "١",
        ] {
            assert_eq!(plain_decimal(text), None, "{text:?}");
        }
        let key = Key::from(&KeyRef::of("007"));
        assert!(!KeyRef::of("7").equivalent(&key));
        assert!(KeyRef::of("007").equivalent(&key));
        assert_eq!(key.id(), "007");
    }

    #[test]
    fn values_move_into_the_dense_part_as_it_grows() {
        let mut index = IdIndex::default();
        let far = KeyRef::of("1000");
        index.entry(far).first = Some(7);
        index.entry(KeyRef::of("x")).blockers.push(1);
        assert_eq!((index.dense.len(), index.sparse_values), (0, 1));
        for value in 0..600u32 {
            index.entry(KeyRef::of(&value.to_string())).first = Some(value);
        }
        // The dense part doubled past 1000 and took the far value in.
        assert!(index.dense.len() > 1000);
        assert_eq!((index.sparse.len(), index.sparse_values), (1, 0));
        assert_eq!(index.get(far).and_then(|u| u.first), Some(7));
        assert_eq!(index.get(KeyRef::of("599")).and_then(|u| u.first), Some(599));
        assert!(index.get(KeyRef::of("600")).is_none());
        index.update(far, |u| u.first = None);
        index.update(KeyRef::of("x"), |u| u.blockers.clear());
        assert!(index.get(far).is_none() && index.sparse.is_empty());
        assert_eq!(index.iter().count(), 600);
    }
}
