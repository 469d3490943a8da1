//! The hash maps of the task core. foldhash (the `foldhash` feature, on by default) hashes the
//! small keys used here (slots, short ids) faster than std's SipHash; without the feature the
//! same maps use std's hasher. `benchmarks/bench_crates.py` measures the difference.

/// The hasher every map of the task core uses.
#[cfg(feature = "foldhash")]
pub type State = foldhash::fast::RandomState;
/// The hasher every map of the task core uses.
#[cfg(not(feature = "foldhash"))]
pub type State = std::hash::RandomState;

/// A hash map with [`State`].
pub type HashMap<K, V> = std::collections::HashMap<K, V, State>;
/// A hash set with [`State`].
pub type HashSet<T> = std::collections::HashSet<T, State>;
