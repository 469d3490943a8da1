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
    /// True when it equals the latest revision.
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
                view.matches_state = self.latest().map(|r| r.sha256 == sha);
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

    /// Writes the latest revision to the plan file when the file is missing or holds a stale
    /// copy of an older revision; never overwrites a human edit. Returns true when it wrote.
    pub fn restore_file(&self, ws: &Workspace, max_bytes: usize) -> PlanResult<bool> {
        let Some(rel) = self.plan_path.as_deref() else {
            return Ok(false);
        };
        let Some(latest) = self.latest() else {
            return Ok(false);
        };
        let content = latest
            .content
            .as_deref()
            .ok_or_else(|| PlanError::StateLoad("the latest revision has no content".into()))?;
        let stale = match ws.read(rel, max_bytes) {
            Ok(None) => true,
            Ok(Some(text)) => {
                let sha = sha256_hex(&text);
                sha != latest.sha256 && self.revisions.iter().any(|r| r.sha256 == sha)
            }
            Err(PlanError::Io(_) | PlanError::InvalidInput(_)) => false,
            Err(e) => return Err(e),
        };
        if stale {
            ws.write_atomic(rel, content)?;
        }
        Ok(stale)
    }
}
