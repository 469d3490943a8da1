//! Compiled rule lists and the identity fingerprint that tells when the Python list behind one
//! changed (AgentScope's `add_rule` appends in place; users may also replace lists, rules or a
//! rule's `rule_content`).

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use pyo3::{ffi, intern};

use super::plain::PlainTypes;
use crate::core::permission::CompiledRule;

/// The compiled rules of one list and their `rule_content` objects (handed to `match_rule`).
#[derive(Default)]
pub struct Snapshot {
    /// The compiled rules, in list order.
    pub rules: Vec<CompiledRule>,
    /// Each rule's `rule_content`, as read.
    pub contents: Vec<Py<PyAny>>,
}

/// A snapshot plus the objects it was compiled from (held, so their identities stay unique).
pub struct CachedList {
    list: Py<PyList>,
    items: Vec<Py<PyAny>>,
    snapshot: Arc<Snapshot>,
}

/// Compiles one rule's content.
fn compile(content: &Bound<'_, PyAny>) -> PyResult<CompiledRule> {
    if content.is_none() {
        return Ok(CompiledRule::new(None));
    }
    if let Ok(text) = content.cast_exact::<PyString>()
        && let Ok(text) = text.to_str()
    {
        return Ok(CompiledRule::new(Some(text)));
    }
    let shown = content.call_method1(intern!(content.py(), "__format__"), ("",))?;
    Ok(CompiledRule::opaque(shown.str()?.to_string_lossy().into_owned()))
}

fn content_of<'py>(rule: &Bound<'py, PyAny>, plain: &PlainTypes) -> PyResult<Bound<'py, PyAny>> {
    plain.getattr(rule, intern!(rule.py(), "rule_content"))
}

/// Compiles `items[from..]` after the first `from` rules of `base`.
fn extend(
    py: Python<'_>,
    plain: &PlainTypes,
    base: Option<&Snapshot>,
    from: usize,
    items: &[Bound<'_, PyAny>],
) -> PyResult<(Snapshot, usize)> {
    let mut snapshot = Snapshot::default();
    if let Some(base) = base {
        snapshot.rules.extend_from_slice(&base.rules[..from]);
        snapshot
            .contents
            .extend(base.contents[..from].iter().map(|c| c.clone_ref(py)));
    }
    for item in &items[from..] {
        let content = content_of(item, plain)?;
        snapshot.rules.push(compile(&content)?);
        snapshot.contents.push(content.unbind());
    }
    Ok((snapshot, items.len() - from))
}

/// The rules `rules_dict.get(name, [])`, from `cache` when nothing changed. Returns the snapshot
/// and how many rules had to be compiled.
pub fn load(
    rules_dict: &Bound<'_, PyAny>,
    name: &Bound<'_, PyString>,
    cache: &mut std::collections::HashMap<String, CachedList>,
    plain: &PlainTypes,
) -> PyResult<(Arc<Snapshot>, usize)> {
    let py = rules_dict.py();
    let found = match rules_dict.cast::<PyDict>() {
        Ok(dict) => dict.get_item(name)?,
        Err(_) => Some(rules_dict.call_method1(intern!(py, "get"), (name, PyList::empty(py)))?),
    };
    let Some(found) = found else {
        return Ok((Arc::default(), 0));
    };
    let Ok(list) = found.cast::<PyList>() else {
        // Not a list (a tuple, a generator...): read it as AgentScope would, without caching.
        let items: Vec<Bound<'_, PyAny>> = found.try_iter()?.collect::<PyResult<_>>()?;
        let (snapshot, compiled) = extend(py, plain, None, 0, &items)?;
        return Ok((Arc::new(snapshot), compiled));
    };
    let key = name.to_str()?;
    let entry = cache.get(key);
    if let Some(entry) = entry
        && entry.list.is(list)
        && list.len() == entry.items.len()
        && unchanged(entry, list, plain)?
    {
        return Ok((entry.snapshot.clone(), 0));
    }
    let items: Vec<Bound<'_, PyAny>> = list.iter().collect();
    let kept = match entry {
        Some(entry) if entry.list.is(list) => unchanged_prefix(entry, &items, plain)?,
        _ => 0,
    };
    if let Some(entry) = entry
        && kept == items.len()
        && kept == entry.items.len()
    {
        return Ok((entry.snapshot.clone(), 0));
    }
    let (snapshot, compiled) = extend(py, plain, entry.map(|e| &*e.snapshot), kept, &items)?;
    let snapshot = Arc::new(snapshot);
    if cache.len() >= MAX_CACHED_NAMES && !cache.contains_key(key) {
        cache.clear();
    }
    cache.insert(
        key.to_owned(),
        CachedList {
            list: list.clone().unbind(),
            items: items.into_iter().map(Bound::unbind).collect(),
            snapshot: snapshot.clone(),
        },
    );
    Ok((snapshot, compiled))
}

/// Tool names whose lists are cached per rule dictionary before the cache starts over.
const MAX_CACHED_NAMES: usize = 4096;

/// Whether every rule of `list` (as long as the cached one) is the cached object with the cached
/// `rule_content` object.
fn unchanged(entry: &CachedList, list: &Bound<'_, PyList>, plain: &PlainTypes) -> PyResult<bool> {
    let py = list.py();
    let name = intern!(py, "rule_content");
    for (index, (cached, content)) in entry.items.iter().zip(&entry.snapshot.contents).enumerate() {
        let Ok(index) = ffi::Py_ssize_t::try_from(index) else {
            return Ok(false);
        };
        // SAFETY: `list` is a live list; PyList_GetItem returns a borrowed reference (or NULL
        // with an IndexError, cleared here) that is only compared with the cached rule, which
        // this cache keeps alive, so equal pointers mean the very same object.
        let item = unsafe { ffi::PyList_GetItem(list.as_ptr(), index) };
        if !std::ptr::eq(item, cached.as_ptr()) {
            if item.is_null() {
                // SAFETY: clears the IndexError set just above; the GIL is held.
                unsafe { ffi::PyErr_Clear() };
            }
            return Ok(false);
        }
        if !plain.attr_is(cached.bind(py), name, content)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// How many leading rules are the same objects with the same `rule_content` objects as cached.
fn unchanged_prefix(entry: &CachedList, items: &[Bound<'_, PyAny>], plain: &PlainTypes) -> PyResult<usize> {
    for (index, (item, (cached, content))) in items
        .iter()
        .zip(entry.items.iter().zip(&entry.snapshot.contents))
        .enumerate()
    {
        if !item.is(cached) || !content_of(item, plain)?.is(content) {
            return Ok(index);
        }
    }
    Ok(items.len().min(entry.items.len()))
}
