//! Extracts the steps of a markdown plan — numbered items (`1. Do x`, `2) Do y`) and task-list
//! items (`- [ ] Do z`) — to seed a todo list and to give steps ids (see `step_ids`).

use super::todo::{MAX_TODO_CHARS, MAX_TODOS};

/// The text of each top-level numbered or task-list item, in order (outside fenced code blocks),
/// with surrounding `**`/`` ` `` emphasis kept as written. At most [`MAX_TODOS`] items;
/// duplicates are dropped.
pub fn numbered_steps(plan: &str) -> Vec<String> {
    let mut steps: Vec<String> = Vec::new();
    for line in lines_outside_fences(plan) {
        let trimmed = line.trim_start();
        // Top level only: at most three spaces of indentation.
        if line.len() - trimmed.len() > 3 {
            continue;
        }
        if let Some(step) = step_text(trimmed).or_else(|| task_text(trimmed))
            && !steps.iter().any(|s| s == &step)
        {
            steps.push(step);
            if steps.len() == MAX_TODOS {
                break;
            }
        }
    }
    steps
}

/// The lines of a markdown plan outside fenced code blocks (``` or ~~~), fence lines left out.
pub(super) fn lines_outside_fences(plan: &str) -> impl Iterator<Item = &str> {
    let mut in_fence = false;
    plan.lines().filter(move |line| {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
            return false;
        }
        !in_fence
    })
}

/// `"12. Do x"` or `"12) Do x"` -> `Some("Do x")` (trimmed, length-capped).
fn step_text(line: &str) -> Option<String> {
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 4 {
        return None;
    }
    let rest = &line[digits..];
    let rest = rest.strip_prefix('.').or_else(|| rest.strip_prefix(')'))?;
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    let text = rest.trim();
    if text.is_empty() {
        return None;
    }
    Some(text.chars().take(MAX_TODO_CHARS).collect())
}

/// `"- [ ] Do x"` / `"* [x] Do x"` -> `Some("Do x")` (trimmed, length-capped).
fn task_text(line: &str) -> Option<String> {
    let rest = line.strip_prefix(['-', '*', '+'])?;
    let rest = rest.strip_prefix([' ', '\t'])?.trim_start();
    let rest = ["[ ]", "[x]", "[X]"].iter().find_map(|b| rest.strip_prefix(b))?;
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    let text = rest.trim();
    (!text.is_empty()).then(|| text.chars().take(MAX_TODO_CHARS).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_top_level_numbered_items() {
        let plan = "# Plan\n\n1. Open the controller\n2) Change validation\n    1. nested is skipped\n\n\
                    ```\n3. not a step\n```\n10. Run tests\n1.5 not a step\n4.no space\n";
        assert_eq!(
            numbered_steps(plan),
            vec!["Open the controller", "Change validation", "Run tests"]
        );
    }

    #[test]
    fn finds_task_list_items_in_order_with_numbered_ones() {
        let plan = "1. First\n- [ ] Second\n* [x] Third\n  - [ ] nested kept (2 spaces)\n- [] no\n- [ ]no\n- plain\n";
        assert_eq!(
            numbered_steps(plan),
            vec!["First", "Second", "Third", "nested kept (2 spaces)"]
        );
    }

    #[test]
    fn none_when_unnumbered() {
        assert!(numbered_steps("just prose\n- a bullet").is_empty());
    }
}
