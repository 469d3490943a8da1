//! The live rule lists of a permission context, compiled once and re-validated lazily.
//!
//! AgentScope reads a rule list in order and stops at the first rule that matches, so a decision
//! depends only on the rules up to the deciding one. A check reads exactly those, from the live
//! Python list, and re-validates each one it reads against the cache (the same rule object, the
//! same `rule_content` object): an unchanged rule costs two identity comparisons, a changed one is
//! compiled again. Whatever changed — `add_rule`'s appends, replaced or edited lists, a rule's
//! `rule_content` assigned in place, a replaced or restored context — is therefore seen by the
//! next decision it could affect, and no decision ever looks at the rules it does not need.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, TryLockError};

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use crate::core::permission::{CompiledRule, RuleList, RuleSource};

/// One cached rule: the objects it was compiled from (held, so their identities stay unique).
struct Entry {
    item: Py<PyAny>,
    content: Py<PyAny>,
    rule: CompiledRule,
}

/// The cached deny, ask and allow lists, by tool name.
type Lists = [HashMap<String, Vec<Entry>>; 3];

/// Tool names whose lists are cached per rule list before the cache starts over.
const MAX_CACHED_NAMES: usize = 4096;

/// The compiled rules of one engine, shared by its checks (and threads).
#[derive(Default)]
pub struct RuleStore {
    lists: Mutex<Lists>,
    compiled: AtomicUsize,
}

impl RuleStore {
    /// How many rules have been compiled so far.
    pub fn compiled(&self) -> usize {
        self.compiled.load(Ordering::Relaxed)
    }

    /// The rules of `context` for the tool `name`, read on demand. While the reader lives it holds
    /// the cache; a reader made while another one holds it (another thread, or a Python callback
    /// re-entering the engine) compiles what it reads without the cache instead of waiting.
    pub fn reader<'a, 'py>(
        &'a self,
        context: &'a Bound<'py, PyAny>,
        name: &'a Bound<'py, PyString>,
    ) -> PyResult<LiveRules<'a, 'py>> {
        let guard = match self.lists.try_lock() {
            Ok(guard) => Some(guard),
            Err(TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
            Err(TryLockError::WouldBlock) => None,
        };
        Ok(LiveRules {
            store: self,
            guard,
            context,
            name,
            key: name.to_str()?,
            lists: Default::default(),
        })
    }
}

/// Where one list's rules come from during a read.
enum Source<'py> {
    /// `rules.get(name)` is a list: read live and cached.
    List(Bound<'py, PyList>, Vec<Entry>),
    /// No rules for the tool.
    Missing,
    /// Some other iterable (only by assigning by hand): read once, not cached.
    Items(Vec<Bound<'py, PyAny>>, Vec<Entry>),
}

/// The rules of one context for one tool, read from the live lists as a check needs them.
pub struct LiveRules<'a, 'py> {
    store: &'a RuleStore,
    guard: Option<MutexGuard<'a, Lists>>,
    context: &'a Bound<'py, PyAny>,
    name: &'a Bound<'py, PyString>,
    key: &'a str,
    lists: [Option<Source<'py>>; 3],
}

impl<'py> LiveRules<'_, 'py> {
    /// `context.<list>_rules.get(name)`, read the way AgentScope reads it.
    fn fetch(&mut self, list: RuleList) -> PyResult<Source<'py>> {
        let py = self.context.py();
        let field = match list {
            RuleList::Deny => intern!(py, "deny_rules"),
            RuleList::Ask => intern!(py, "ask_rules"),
            RuleList::Allow => intern!(py, "allow_rules"),
        };
        let rules = self.context.getattr(field)?;
        let found = match rules.cast::<PyDict>() {
            Ok(dict) => dict.get_item(self.name)?,
            Err(_) => Some(rules.call_method1(intern!(py, "get"), (self.name, PyList::empty(py)))?),
        };
        let Some(found) = found else {
            return Ok(Source::Missing);
        };
        match found.cast_into::<PyList>() {
            Ok(items) => {
                let cached = match &mut self.guard {
                    Some(lists) => lists[list.index()].remove(self.key).unwrap_or_default(),
                    None => Vec::new(),
                };
                Ok(Source::List(items, cached))
            }
            Err(other) => {
                let items = other.into_inner().try_iter()?.collect::<PyResult<Vec<_>>>()?;
                Ok(Source::Items(items, Vec::new()))
            }
        }
    }

    /// The `rule_content` object of rule `index` of `list` (a rule already read).
    pub fn content(&self, list: RuleList, index: usize) -> Option<&Py<PyAny>> {
        match &self.lists[list.index()] {
            Some(Source::List(_, entries) | Source::Items(_, entries)) => {
                entries.get(index).map(|e| &e.content)
            }
            _ => None,
        }
    }

    /// Rule `index` of `list` if it was already read.
    pub fn read(&self, list: RuleList, index: usize) -> Option<&CompiledRule> {
        match &self.lists[list.index()] {
            Some(Source::List(_, entries) | Source::Items(_, entries)) => entries.get(index).map(|e| &e.rule),
            _ => None,
        }
    }
}

impl RuleSource for LiveRules<'_, '_> {
    type Error = PyErr;

    fn rule(&mut self, list: RuleList, index: usize) -> PyResult<Option<&CompiledRule>> {
        if self.lists[list.index()].is_none() {
            let source = self.fetch(list)?;
            self.lists[list.index()] = Some(source);
        }
        let (item, entries) = match self.lists[list.index()].as_mut() {
            Some(Source::List(items, entries)) => {
                if index >= items.len() {
                    // Read to the end: rules cached past it are gone from the list.
                    entries.truncate(items.len());
                    return Ok(None);
                }
                (items.get_item(index)?, entries)
            }
            Some(Source::Items(items, entries)) => match items.get(index) {
                Some(item) => (item.clone(), entries),
                None => return Ok(None),
            },
            Some(Source::Missing) | None => return Ok(None),
        };
        let content = item.getattr(intern!(item.py(), "rule_content"))?;
        let fresh = match entries.get(index) {
            Some(entry) => !(entry.item.is(&item) && entry.content.is(&content)),
            None => true,
        };
        if fresh {
            let entry = Entry {
                rule: compile(&content)?,
                item: item.unbind(),
                content: content.unbind(),
            };
            self.store.compiled.fetch_add(1, Ordering::Relaxed);
            // Lists are read in order from 0, so `index <= entries.len()`.
            match entries.get_mut(index) {
                Some(slot) => *slot = entry,
                None => entries.push(entry),
            }
        }
        Ok(entries.get(index).map(|e| &e.rule))
    }
}

impl Drop for LiveRules<'_, '_> {
    /// Puts the lists read back into the cache.
    fn drop(&mut self) {
        let Some(lists) = self.guard.as_deref_mut() else {
            return;
        };
        for (index, source) in self.lists.iter_mut().enumerate() {
            if let Some(Source::List(_, entries)) = source.take() {
                let cache = &mut lists[index];
                if cache.len() >= MAX_CACHED_NAMES && !cache.contains_key(self.key) {
                    cache.clear();
                }
                cache.insert(self.key.to_owned(), entries);
            }
        }
    }
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
