//! The plan file on this node's disk compared with state: is it there, is it a human edit
//! (text no revision has), and putting the plan back when the file is missing or stale.

use super::content::sha256_hex;
use super::error::{PlanError, PlanResult};
use super::path::Workspace;
use super::state::PlanState;

/// What this node's plan file holds, next to the state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileView {
    /// Absolute path on this node.
    pub path: String,
    /// True when the file exists (and could be read).
    pub exists: bool,
    /// sha256 of its text.
    pub sha256: Option<String>,
    /// Its text.
    pub text: Option<String>,
    /// True when it equals the latest revision (or its progress mirror while building).
    pub matches_state: Option<bool>,
    /// True when it holds text no revision has: a human edit nobody reviewed yet.
    pub edited_on_disk: bool,
    /// Why it could not be read (path escape, symlink, not UTF-8, too big...).
    pub error: Option<String>,
}

impl PlanState {
    /// Reads the plan file in `ws` (read only; nothing is written) and compares it with state.
    /// `None` when no plan path is bound.
    pub fn inspect_file(&self, ws: &Workspace, max_bytes: usize) -> Option<FileView> {
        let rel = self.plan_path.as_deref()?;
        let path = ws.join(rel).display().to_string();
        let mut view = FileView {
            path,
            exists: false,
            sha256: None,
            text: None,
            matches_state: None,
            edited_on_disk: false,
            error: None,
        };
        match ws.read(rel, max_bytes) {
            Ok(Some(text)) => {
                let sha = sha256_hex(&text);
                view.exists = true;
                view.matches_state = self.expected_file_text().map(|t| t == text);
                view.edited_on_disk = self.is_human_edit(&text);
                view.sha256 = Some(sha);
                view.text = Some(text);
            }
            Ok(None) => {}
            Err(e) => view.error = Some(e.to_string()),
        }
        Some(view)
    }

    /// The plan file's text when it is a human edit; `None` when missing or not an edit.
    /// Errors when it cannot be read safely.
    pub fn read_for_sync(&self, ws: &Workspace, max_bytes: usize) -> PlanResult<Option<String>> {
        let Some(rel) = self.plan_path.as_deref() else {
            return Ok(None);
        };
        Ok(ws.read(rel, max_bytes)?.filter(|t| self.is_human_edit(t)))
    }

    /// Writes what the plan file should hold (the latest revision, or its progress mirror while
    /// building after an approval) when the file is missing, a stale copy of an older revision,
    /// or a mirror of other progress; never overwrites a human edit. Returns true when it wrote.
    pub fn restore_file(&mut self, ws: &Workspace, max_bytes: usize) -> PlanResult<bool> {
        let Some(rel) = self.plan_path.clone() else {
            return Ok(false);
        };
        let Some(latest) = self.latest() else {
            return Ok(false);
        };
        if latest.content.is_none() {
            return Err(PlanError::StateLoad("the latest revision has no content".into()));
        }
        let number = latest.number;
        let expected = self.expected_file_text().unwrap_or_default();
        let stale = match ws.read(&rel, max_bytes) {
            Ok(None) => true,
            Ok(Some(text)) => {
                let sha = sha256_hex(&text);
                text != expected && (self.revisions.iter().any(|r| r.sha256 == sha) || self.is_mirror(&text))
            }
            Err(PlanError::Io(_) | PlanError::InvalidInput(_)) => false,
            Err(e) => return Err(e),
        };
        if stale {
            ws.write_atomic(&rel, &expected)?;
            if self.built_after_approval() {
                self.mirrored = Some(number);
            }
        }
        Ok(stale)
    }

    /// Mirrors the todos' progress into the plan file while it is mirrored (see `progress`):
    /// rewrites the file when it does not show the progress yet. Returns `(wrote, human_edit)`:
    /// a file holding a human edit is left as it is (`human_edit` true; `sync_file` records it).
    /// Does nothing in other phases. Errors (an unsafe or unreadable file) change nothing.
    pub fn mirror_progress(&mut self, ws: &Workspace, max_bytes: usize) -> PlanResult<(bool, bool)> {
        if self.mirror_text().is_none() {
            return Ok((false, false));
        }
        if self.read_for_sync(ws, max_bytes)?.is_some() {
            return Ok((false, true));
        }
        Ok((self.restore_file(ws, max_bytes)?, false))
    }
}
