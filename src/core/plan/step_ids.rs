//! Stable step ids across plan revisions, and the per-step diff between two revisions.
//!
//! A new revision's steps are matched to the previous revision's: first the same text
//! (ignoring case, emphasis and punctuation), then the most similar remaining step (shared
//! content words, at least [`SIMILAR`]). A matched step keeps its id wherever it moved; an unmatched
//! one gets the next unused id (`s1`, `s2`, ...), so ids of removed steps are never reused.
//! A step written with its own id (`- id: \`parse\`` under it, as a structured plan renders
//! it) keeps that id, and no other step of the revision gets it.

use serde::Serialize;

use super::error::{PlanError, PlanResult};
use super::state::{PlanState, Revision};
use super::steps::{numbered_steps, parse_steps};

/// Least likeness (see `overlap`) for a re-worded step to count as the same step.
pub const SIMILAR: f64 = 0.5;

/// Words too common to say two steps are the same.
const STOP_WORDS: [&str; 16] = [
    "a", "an", "and", "the", "of", "to", "in", "on", "for", "with", "by", "at", "it", "its", "is", "all",
];

/// Lowercase content words of a step (no markdown emphasis, punctuation, stop words or plural `s`),
/// sorted and deduplicated.
fn words(text: &str) -> Vec<String> {
    let mut w: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric() && c != '_' && c != '/' && c != '.')
        .map(|t| t.trim_matches('.').to_lowercase())
        .filter(|t| !t.is_empty() && !STOP_WORDS.contains(&t.as_str()))
        .map(|t| match t.strip_suffix('s') {
            Some(stem) if stem.chars().count() >= 3 && !stem.ends_with('s') => stem.to_string(),
            _ => t,
        })
        .collect();
    w.sort();
    w.dedup();
    w
}

/// How alike two word lists are: the mean of their Jaccard overlap and of the share of the
/// shorter list found in the longer one (so an expanded step still matches its original).
fn overlap(a: &[String], b: &[String]) -> f64 {
    if a.is_empty() || b.is_empty() {
        return f64::from(u8::from(a.is_empty() && b.is_empty()));
    }
    let common = a.iter().filter(|w| b.binary_search(w).is_ok()).count() as f64;
    let jaccard = common / ((a.len() + b.len()) as f64 - common);
    let contained = common / a.len().min(b.len()) as f64;
    (jaccard + contained) / 2.0
}

/// Longest step id, in characters.
pub const MAX_ID_CHARS: usize = 32;

/// True for a step id: 1 to [`MAX_ID_CHARS`] characters, a lowercase ASCII letter first, then
/// lowercase ASCII letters, digits, `-` or `_` (`s3`, `parse-dates`).
pub fn is_valid_id(id: &str) -> bool {
    let mut chars = id.chars();
    id.len() <= MAX_ID_CHARS
        && chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
}

/// The number of an id `s<N>`, if it has that form.
fn id_number(id: &str) -> Option<u64> {
    id.strip_prefix('s')?.parse().ok()
}

/// Ids for `steps`, matched against `previous` (the prior revision's steps with their ids);
/// `next` is the first unused id number and is advanced for each new id.
pub fn assign_ids(steps: &[String], previous: &[(String, String)], next: &mut u64) -> Vec<String> {
    assign_ids_with(steps, &vec![None; steps.len()], previous, next)
}

/// Like [`assign_ids`], with the ids the steps were written with (`given[i]`, used once each):
/// a previous step with a given id is matched to it, and new ids skip every given one.
pub fn assign_ids_with(
    steps: &[String],
    given: &[Option<String>],
    previous: &[(String, String)],
    next: &mut u64,
) -> Vec<String> {
    let mut ids: Vec<Option<String>> = vec![None; steps.len()];
    for (i, id) in given.iter().enumerate().take(steps.len()) {
        if let Some(id) = id
            && !ids.contains(&Some(id.clone()))
        {
            ids[i] = Some(id.clone());
        }
    }
    let used: Vec<String> = ids.iter().flatten().cloned().collect();
    let mut taken: Vec<bool> = previous.iter().map(|(id, _)| used.contains(id)).collect();
    let new_words: Vec<Vec<String>> = steps.iter().map(|s| words(s)).collect();
    let old_words: Vec<Vec<String>> = previous.iter().map(|(_, t)| words(t)).collect();
    // Same text first, in order (duplicates pair up one by one).
    for (i, w) in new_words.iter().enumerate() {
        if let Some(j) = (0..previous.len()).find(|&j| !taken[j] && old_words[j] == *w) {
            taken[j] = true;
            ids[i] = Some(previous[j].0.clone());
        }
    }
    // Then the most similar remaining pairs, best first (closer positions break ties).
    let mut pairs: Vec<(f64, usize, usize)> = Vec::new();
    for (i, w) in new_words.iter().enumerate().filter(|(i, _)| ids[*i].is_none()) {
        for j in (0..previous.len()).filter(|&j| !taken[j]) {
            let score = overlap(w, &old_words[j]);
            if score >= SIMILAR {
                pairs.push((score, i, j));
            }
        }
    }
    pairs.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then(a.1.abs_diff(a.2).cmp(&b.1.abs_diff(b.2)))
    });
    for (_, i, j) in pairs {
        if ids[i].is_none() && !taken[j] {
            taken[j] = true;
            ids[i] = Some(previous[j].0.clone());
        }
    }
    ids.into_iter()
        .map(|id| {
            id.unwrap_or_else(|| {
                loop {
                    *next += 1;
                    let id = format!("s{}", *next - 1);
                    if !used.contains(&id) {
                        break id;
                    }
                }
            })
        })
        .collect()
}

/// The first id number after every id in `ids` (1 when there are none).
pub fn next_id_number<'a>(ids: impl IntoIterator<Item = &'a String>) -> u64 {
    ids.into_iter()
        .filter_map(|id| id_number(id))
        .max()
        .map_or(1, |n| n + 1)
}

/// The steps of a revision with their ids, or None when its text was pruned. A revision stored
/// before step ids existed numbers its steps `s1`, `s2`, ... in order.
pub fn revision_steps(revision: &Revision) -> Option<Vec<(String, String)>> {
    let texts = numbered_steps(revision.content.as_deref()?);
    let ids = if revision.step_ids.len() == texts.len() {
        revision.step_ids.clone()
    } else {
        (1..=texts.len()).map(|n| format!("s{n}")).collect()
    };
    Some(ids.into_iter().zip(texts).collect())
}

/// Ids for the steps of `text`, a new revision following `revisions`.
pub fn ids_for_new_revision(revisions: &[Revision], text: &str) -> Vec<String> {
    let previous = revisions.last().and_then(revision_steps).unwrap_or_default();
    let mut next = next_id_number(
        revisions
            .iter()
            .flat_map(|r| &r.step_ids)
            .chain(previous.iter().map(|(id, _)| id)),
    );
    let steps = parse_steps(text);
    let given: Vec<Option<String>> = steps.iter().map(|s| s.id.clone()).collect();
    let texts: Vec<String> = steps.into_iter().map(|s| s.text).collect();
    assign_ids_with(&texts, &given, &previous, &mut next)
}

/// The steps with ids of revision `number` (the latest when None); an error names an unknown
/// revision or one whose text was pruned. No plan written yet gives no steps.
pub fn steps_of(state: &PlanState, number: Option<u32>) -> PlanResult<Vec<(String, String)>> {
    let revision = match number {
        None => match state.latest() {
            Some(r) => r,
            None => return Ok(Vec::new()),
        },
        Some(n) => state
            .revision(n)
            .ok_or_else(|| PlanError::InvalidInput(format!("there is no plan revision {n}")))?,
    };
    revision_steps(revision).ok_or_else(|| {
        PlanError::InvalidInput(format!(
            "the text of plan revision {} was pruned (only the newest revisions keep their text), \
             so its steps are unknown",
            revision.number
        ))
    })
}

/// The files and action written under each step of revision `number` (the latest when None),
/// in step order; empty when the revision or its text is unknown.
pub fn details_of(state: &PlanState, number: Option<u32>) -> Vec<(Vec<String>, Option<String>)> {
    let revision = match number {
        None => state.latest(),
        Some(n) => state.revision(n),
    };
    revision
        .and_then(|r| r.content.as_deref())
        .map(|t| parse_steps(t).into_iter().map(|s| (s.files, s.action)).collect())
        .unwrap_or_default()
}

/// The per-step diff from revision `old` to revision `new`: `new` defaults to the latest,
/// `old` to the revision just before `new` (no older revision: every step is added).
pub fn diff_revisions(state: &PlanState, old: Option<u32>, new: Option<u32>) -> PlanResult<Vec<StepChange>> {
    let new_steps = steps_of(state, new)?;
    let new_number = new.or_else(|| state.latest().map(|r| r.number)).unwrap_or(0);
    let old_number = old.or_else(|| {
        state
            .revisions
            .iter()
            .rev()
            .map(|r| r.number)
            .find(|n| *n < new_number)
    });
    let old_steps = match old_number {
        Some(n) => steps_of(state, Some(n))?,
        None => Vec::new(),
    };
    Ok(diff(&old_steps, &new_steps))
}

/// How one step differs between two revisions.
#[derive(Serialize, Clone, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// Only in the newer revision.
    Added,
    /// Only in the older revision.
    Removed,
    /// In both, re-worded (it may also have moved: see `moved`).
    Changed,
    /// In both with the same text, at another place relative to the other steps.
    Moved,
}

/// One line of a per-step diff.
#[derive(Serialize, Clone, Debug, PartialEq, Eq)]
pub struct StepChange {
    /// The step's id.
    pub id: String,
    /// What happened to it.
    pub change: Change,
    /// Its text in the newer revision (None when removed).
    pub text: Option<String>,
    /// Its text in the older revision (None when added).
    pub old_text: Option<String>,
    /// True when it also changed place relative to the steps both revisions share.
    pub moved: bool,
}

/// Positions (in `seq`) of one longest increasing subsequence.
fn longest_increasing(seq: &[usize]) -> Vec<bool> {
    let n = seq.len();
    let (mut len, mut prev) = (vec![1usize; n], vec![usize::MAX; n]);
    for i in 0..n {
        for j in 0..i {
            if seq[j] < seq[i] && len[j] + 1 > len[i] {
                len[i] = len[j] + 1;
                prev[i] = j;
            }
        }
    }
    let mut keep = vec![false; n];
    let mut at = (0..n).max_by_key(|&i| (len[i], usize::MAX - i));
    while let Some(i) = at {
        keep[i] = true;
        at = (prev[i] != usize::MAX).then(|| prev[i]);
    }
    keep
}

/// The per-step diff from `old` to `new` (each a list of `(id, text)`), in the newer
/// revision's order with removed steps last; unchanged steps are left out.
pub fn diff(old: &[(String, String)], new: &[(String, String)]) -> Vec<StepChange> {
    let old_pos = |id: &str| old.iter().position(|(i, _)| i == id);
    let common: Vec<usize> = new.iter().filter_map(|(id, _)| old_pos(id)).collect();
    let in_place = longest_increasing(&common);
    let mut shared = 0;
    let mut out = Vec::new();
    for (id, text) in new {
        let Some(j) = old_pos(id) else {
            out.push(StepChange {
                id: id.clone(),
                change: Change::Added,
                text: Some(text.clone()),
                old_text: None,
                moved: false,
            });
            continue;
        };
        let moved = !in_place[shared];
        shared += 1;
        let old_text = &old[j].1;
        let change = if old_text != text {
            Change::Changed
        } else if moved {
            Change::Moved
        } else {
            continue;
        };
        out.push(StepChange {
            id: id.clone(),
            change,
            text: Some(text.clone()),
            old_text: Some(old_text.clone()),
            moved,
        });
    }
    for (id, text) in old.iter().filter(|(id, _)| !new.iter().any(|(n, _)| n == id)) {
        out.push(StepChange {
            id: id.clone(),
            change: Change::Removed,
            text: None,
            old_text: Some(text.clone()),
            moved: false,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    fn with_ids(ids: &[String], texts: &[String]) -> Vec<(String, String)> {
        ids.iter().cloned().zip(texts.iter().cloned()).collect()
    }

    #[test]
    fn ids_survive_reordering_rewording_and_removal() {
        let mut next = 1;
        let v1 = steps(&[
            "Open the controller",
            "Change validation in `form.py`",
            "Run the tests",
        ]);
        let ids1 = assign_ids(&v1, &[], &mut next);
        assert_eq!(ids1, ["s1", "s2", "s3"]);
        let v2 = steps(&[
            "Run the **full** tests",
            "Open the controller",
            "Write a migration",
            "Change the validation in form.py",
        ]);
        let ids2 = assign_ids(&v2, &with_ids(&ids1, &v1), &mut next);
        assert_eq!(ids2, ["s3", "s1", "s4", "s2"]);
        let v3 = steps(&["Open the controller", "Something unrelated entirely"]);
        let ids3 = assign_ids(&v3, &with_ids(&ids2, &v2), &mut next);
        assert_eq!(ids3, ["s1", "s5"], "removed ids are never reused");
        assert_eq!(next_id_number(ids1.iter().chain(&ids2).chain(&ids3)), 6);
    }

    #[test]
    fn duplicates_and_blank_previous_pair_up_in_order() {
        let mut next = 1;
        let v1 = steps(&["Run tests", "Run tests"]);
        let ids1 = assign_ids(&v1, &[], &mut next);
        let ids2 = assign_ids(
            &steps(&["Run tests", "Run tests", "Run tests"]),
            &with_ids(&ids1, &v1),
            &mut next,
        );
        assert_eq!(ids2, ["s1", "s2", "s3"]);
    }

    #[test]
    fn given_ids_are_kept_and_never_duplicated() {
        let mut next = 1;
        let v1 = steps(&["Read code", "Write code"]);
        let ids1 = assign_ids(&v1, &[], &mut next);
        let given = [
            Some("s1".to_string()),
            None,
            Some("s3".to_string()),
            Some("s3".to_string()),
        ];
        let v2 = steps(&["Something new", "Read code", "Write code", "Other"]);
        let ids2 = assign_ids_with(&v2, &given, &with_ids(&ids1, &v1), &mut next);
        // s1 is given to another step, so "Read code" cannot keep it; s3 is given once only.
        assert_eq!(ids2, ["s1", "s4", "s2", "s5"]);
        assert!(is_valid_id("parse-dates_2") && is_valid_id("s1"));
        for bad in ["", "S1", "1s", "a b", "a;", "é", &"a".repeat(33)] {
            assert!(!is_valid_id(bad), "{bad}");
        }
    }

    #[test]
    fn diff_reports_added_removed_changed_and_moved() {
        let old = with_ids(&steps(&["s1", "s2", "s3", "s4"]), &steps(&["a", "b", "c", "d"]));
        let new = with_ids(&steps(&["s3", "s1", "s2", "s5"]), &steps(&["c", "a", "B!", "e"]));
        let d = diff(&old, &new);
        let summary: Vec<(&str, Change, bool)> = d
            .iter()
            .map(|c| (c.id.as_str(), c.change.clone(), c.moved))
            .collect();
        assert_eq!(
            summary,
            vec![
                ("s3", Change::Moved, true),
                ("s2", Change::Changed, false),
                ("s5", Change::Added, false),
                ("s4", Change::Removed, false),
            ]
        );
        assert!(diff(&old, &old).is_empty());
    }
}
