//! Drawing the graph: Mermaid flowcharts and Graphviz DOT.
//!
//! An arrow goes from a blocker to the task it blocks. A solid arrow is an open dependency (the
//! blocked task still lists the blocker in `blocked_by`); a dashed arrow is one AgentScope keeps
//! only in the blocker's `blocks` after the blocker was completed.

use std::fmt::Write;

use super::model::TaskState;
use super::native::TaskGraph;

/// One arrow: (blocker position, blocked position, open?).
fn arrows(tg: &TaskGraph) -> Vec<(usize, usize, bool)> {
    let g = tg.graph();
    let mut out = Vec::new();
    for slot in g.slots() {
        let node = g.node(slot);
        let to = g.position(slot);
        for id in &node.blocked_by {
            if let Some(from) = g.first_slot(id) {
                out.push((g.position(from), to, true));
            }
        }
        for id in &node.blocks {
            if let Some(target) = g.first_slot(id)
                && !g.node(target).blocked_by.contains(&node.id)
            {
                out.push((to, g.position(target), false));
            }
        }
    }
    out.sort_unstable();
    out.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);
    out
}

fn label(id: &str, subject: &str) -> String {
    format!("#{id} {subject}").replace(['\n', '\r'], " ")
}

impl TaskGraph {
    /// A Mermaid `flowchart` of the tasks (node class = task state).
    pub fn to_mermaid(&self) -> String {
        let mut out = String::from("flowchart TD\n");
        for (pos, node) in self.tasks().enumerate() {
            let text = label(&node.id, &node.payload.subject)
                .replace('&', "#amp;")
                .replace('"', "#quot;")
                .replace('<', "#lt;")
                .replace('>', "#gt;");
            let _ = writeln!(out, "    t{pos}[\"{text}\"]:::{}", node.payload.state.as_str());
        }
        for (from, to, open) in arrows(self) {
            let _ = writeln!(out, "    t{from} {} t{to}", if open { "-->" } else { "-.->" });
        }
        out.push_str(
            "    classDef pending fill:#ffffff,stroke:#888888\n    classDef in_progress fill:#fff3c4,stroke:#cc9900\n    classDef completed fill:#d4f7d4,stroke:#33aa33\n",
        );
        out
    }

    /// A Graphviz `digraph` of the tasks (fill colour = task state).
    pub fn to_dot(&self) -> String {
        let quote = |s: &str| {
            format!(
                "\"{}\"",
                s.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
            )
        };
        let mut out = String::from(
            "digraph tasks {\n    rankdir=LR;\n    node [shape=box, style=\"rounded,filled\"];\n",
        );
        let ids: Vec<&str> = self.tasks().map(|n| n.id.as_str()).collect();
        for node in self.tasks() {
            let fill = match node.payload.state {
                TaskState::Pending => "#ffffff",
                TaskState::InProgress => "#fff3c4",
                TaskState::Completed => "#d4f7d4",
            };
            let text = quote(&label(&node.id, &node.payload.subject));
            let _ = writeln!(
                out,
                "    {} [label={text}, fillcolor=\"{fill}\"];",
                quote(&node.id)
            );
        }
        for (from, to, open) in arrows(self) {
            let style = if open { "" } else { " [style=dashed]" };
            let _ = writeln!(out, "    {} -> {}{style};", quote(ids[from]), quote(ids[to]));
        }
        out.push_str("}\n");
        out
    }
}
