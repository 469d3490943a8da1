//! Extracts the steps of a markdown plan — numbered items (`1. Do x`, `2) Do y`) and task-list
//! items (`- [ ] Do z`) — to seed a todo list and to give steps ids (see `step_ids`), with the
//! details a structured plan renders under a step (`- id:`, `- files:`, `- action:`; see
//! `render`), and the progress marks mirrored into the plan file (see `progress`).
//!
//! A step's mark is the box right after its list marker: `[x]` (or `[X]`) done, `[ ]` (or `[~]`,
//! as todo lists show work in progress) not done. Marks are not part of the step's text, so they
//! never change its id.

use super::todo::{MAX_TODO_CHARS, MAX_TODOS, TodoStatus};

/// The boxes a step may carry right after its list marker.
const BOXES: [&str; 4] = ["[ ]", "[x]", "[X]", "[~]"];

/// One step of a plan, where it is written and what is said under it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The step's text (trimmed, length-capped; marks not included).
    pub text: String,
    /// The id written under it (`- id: \`parse\``), when it is a valid step id.
    pub id: Option<String>,
    /// The files written under it (`- files: \`a.py\`, \`b.py\``).
    pub files: Vec<String>,
    /// The action written under it (`- action: edit`).
    pub action: Option<String>,
    /// Index of its line among the plan's lines.
    line: usize,
    /// True for a numbered item (its box is optional), false for a task-list item.
    numbered: bool,
    /// Byte range of its box in the line (an empty range where a numbered item's box would go).
    mark: std::ops::Range<usize>,
}

/// The lines of `text` with their line endings: `(content, ending)`, like `str::lines`.
fn split_lines(text: &str) -> impl Iterator<Item = (&str, &str)> {
    text.split_inclusive('\n').map(|l| {
        let content = l
            .strip_suffix('\n')
            .map_or(l, |c| c.strip_suffix('\r').unwrap_or(c));
        (content, &l[content.len()..])
    })
}

/// True when a line opens or closes a fenced code block (``` or ~~~).
fn is_fence(line: &str) -> bool {
    let trimmed = line.trim_start();
    trimmed.starts_with("```") || trimmed.starts_with("~~~")
}

/// The lines of a markdown plan outside fenced code blocks (``` or ~~~), fence lines left out.
pub(super) fn lines_outside_fences(plan: &str) -> impl Iterator<Item = &str> {
    let mut in_fence = false;
    plan.lines().filter(move |line| {
        if is_fence(line) {
            in_fence = !in_fence;
            return false;
        }
        !in_fence
    })
}

/// True when `plan` ends inside a fenced code block.
pub fn ends_in_fence(plan: &str) -> bool {
    plan.lines().filter(|l| is_fence(l)).count() % 2 == 1
}

/// Every step of a plan, in order (outside fenced code blocks, top level only: at most three
/// spaces of indentation). At most [`MAX_TODOS`]; a step repeating an earlier one's text is dropped.
pub fn parse_steps(plan: &str) -> Vec<Step> {
    let mut steps: Vec<Step> = Vec::new();
    let mut in_fence = false;
    // True while the lines just read are a step and its details.
    let mut details_of_last = false;
    for (index, (line, _)) in split_lines(plan).enumerate() {
        if is_fence(line) {
            in_fence = !in_fence;
            details_of_last = false;
            continue;
        }
        if in_fence {
            continue;
        }
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if indent >= 2
            && details_of_last
            && let Some(step) = steps.last_mut()
            && add_detail(step, trimmed)
        {
            continue;
        }
        details_of_last = false;
        if indent > 3 || steps.len() == MAX_TODOS {
            continue;
        }
        let Some((text, numbered, mark)) = step_text(trimmed).or_else(|| task_text(trimmed)) else {
            continue;
        };
        if steps.iter().any(|s| s.text == text) {
            continue;
        }
        steps.push(Step {
            text,
            id: None,
            files: Vec::new(),
            action: None,
            line: index,
            numbered,
            mark: mark.start + indent..mark.end + indent,
        });
        details_of_last = true;
    }
    steps
}

/// The text of each step of a plan, in order (see [`parse_steps`]).
pub fn numbered_steps(plan: &str) -> Vec<String> {
    parse_steps(plan).into_iter().map(|s| s.text).collect()
}

/// Reads a detail line under a step (`- id: ...`, `- files: ...`, `- action: ...`) into it;
/// false when the line is not one (or repeats a detail already read).
fn add_detail(step: &mut Step, line: &str) -> bool {
    let Some(rest) = line.strip_prefix("- ") else {
        return false;
    };
    let (key, value) = match rest.split_once(':') {
        Some((k, v)) => (k.trim(), v.trim()),
        None => return false,
    };
    let spans = || {
        value
            .split('`')
            .skip(1)
            .step_by(2)
            .map(str::trim)
            .filter(|s| !s.is_empty())
    };
    match key {
        "id" if step.id.is_none() => {
            step.id = spans()
                .next()
                .filter(|id| super::step_ids::is_valid_id(id))
                .map(str::to_string);
        }
        "files" if step.files.is_empty() => step.files = spans().map(str::to_string).collect(),
        "action" if step.action.is_none() && !value.is_empty() => step.action = Some(value.to_string()),
        _ => return false,
    }
    true
}

/// `"12. [x] Do x"` or `"12) Do x"` -> `("Do x", true, range of the box or where it goes)`.
fn step_text(line: &str) -> Option<(String, bool, std::ops::Range<usize>)> {
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 4 {
        return None;
    }
    let rest = &line[digits..];
    let rest = rest.strip_prefix('.').or_else(|| rest.strip_prefix(')'))?;
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    let body = rest.trim_start();
    let at = line.len() - body.len();
    let (text, mark) = match boxed(body) {
        Some(after) => (after, at..at + 3),
        None => (body, at..at),
    };
    let text = text.trim();
    (!text.is_empty()).then(|| (text.chars().take(MAX_TODO_CHARS).collect(), true, mark))
}

/// `"- [ ] Do x"` / `"* [x] Do x"` -> `("Do x", false, range of the box)`.
fn task_text(line: &str) -> Option<(String, bool, std::ops::Range<usize>)> {
    let rest = line.strip_prefix(['-', '*', '+'])?;
    let rest = rest.strip_prefix([' ', '\t'])?.trim_start();
    let at = line.len() - rest.len();
    let text = boxed(rest)?.trim();
    (!text.is_empty()).then(|| (text.chars().take(MAX_TODO_CHARS).collect(), false, at..at + 3))
}

/// The text after a leading box followed by a blank, if `body` starts with one.
fn boxed(body: &str) -> Option<&str> {
    let rest = BOXES.iter().find_map(|b| body.strip_prefix(b))?;
    rest.starts_with([' ', '\t']).then_some(rest)
}

/// The box of a status: ticked when completed (the file shows what is done, not what is under way).
fn box_of(status: TodoStatus) -> &'static str {
    match status {
        TodoStatus::Completed => "[x]",
        TodoStatus::Pending | TodoStatus::InProgress => "[ ]",
    }
}

/// `plan` with each step's mark set from `marks` (one per step of [`parse_steps`], `None`: left
/// as written): a completed step's box becomes `[x]` (a numbered item without one gets `[x] `);
/// another step's box becomes `[ ]` (a numbered item without one stays without). Nothing else changes.
pub fn set_marks(plan: &str, marks: &[Option<TodoStatus>]) -> String {
    rewrite_marks(plan, |i| marks.get(i).copied().flatten().map(Some))
}

/// `plan` with every mark taken out (task items `[ ]`, numbered items no box): two texts that
/// differ only by marks strip to the same text.
pub fn strip_marks(plan: &str) -> String {
    rewrite_marks(plan, |_| Some(None))
}

/// Rewrites the box of each step `pick` gives a mark for (`Some(None)`: no mark).
fn rewrite_marks(plan: &str, pick: impl Fn(usize) -> Option<Option<TodoStatus>>) -> String {
    let steps = parse_steps(plan);
    let mut next = steps.iter().enumerate().peekable();
    let mut out = String::with_capacity(plan.len() + 4 * steps.len());
    for (index, (line, ending)) in split_lines(plan).enumerate() {
        match next.next_if(|(_, s)| s.line == index) {
            Some((i, step)) => match pick(i) {
                Some(status) => remark(&mut out, line, step, status),
                None => out.push_str(line),
            },
            None => out.push_str(line),
        }
        out.push_str(ending);
    }
    out
}

/// Pushes `line` (the line of `step`) with its mark set to `status` (`None`: no mark).
fn remark(out: &mut String, line: &str, step: &Step, status: Option<TodoStatus>) {
    let (before, after) = (&line[..step.mark.start], &line[step.mark.end..]);
    let has_box = !step.mark.is_empty();
    out.push_str(before);
    match (step.numbered, status) {
        (false, s) => out.push_str(box_of(s.unwrap_or(TodoStatus::Pending))),
        (true, None) if has_box => {
            out.push_str(after.strip_prefix([' ', '\t']).unwrap_or(after));
            return;
        }
        (true, Some(s)) if has_box || s == TodoStatus::Completed => {
            out.push_str(box_of(s));
            if !has_box {
                out.push(' ');
            }
        }
        (true, _) => {}
    }
    out.push_str(after);
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
        let plan = "1. First\n- [ ] Second\n* [x] Third\n  - [ ] nested kept (2 spaces)\n- [] no\n- [ ]no\n- plain\n\
                    - [~] Fourth\n";
        assert_eq!(
            numbered_steps(plan),
            vec!["First", "Second", "Third", "nested kept (2 spaces)", "Fourth"]
        );
    }

    #[test]
    fn none_when_unnumbered() {
        assert!(numbered_steps("just prose\n- a bullet").is_empty());
    }

    #[test]
    fn reads_the_details_under_a_step() {
        let plan = "1. [ ] Add the parser\n   - id: `parse`\n   - files: `src/p.py`, `tests/t.py`\n   \
                    - action: edit\n2. Next\n   - id: `Bad Id`\n- id: `top`\n";
        let steps = parse_steps(plan);
        assert_eq!(steps[0].text, "Add the parser");
        assert_eq!(steps[0].id.as_deref(), Some("parse"));
        assert_eq!(steps[0].files, ["src/p.py", "tests/t.py"]);
        assert_eq!(steps[0].action.as_deref(), Some("edit"));
        assert_eq!((steps[1].id.as_deref(), steps.len()), (None, 2));
    }

    #[test]
    fn marks_change_boxes_only_and_strip_back() {
        let plan =
            "# P\r\n1. One\r\n2. [x] Two\n- [ ] Three\n   - files: `a`\n* [X] Four\n```\n1. fenced\n```\n";
        use TodoStatus::*;
        let marked = set_marks(plan, &[Some(Completed), Some(Pending), Some(InProgress), None]);
        assert_eq!(
            marked,
            "# P\r\n1. [x] One\r\n2. [ ] Two\n- [ ] Three\n   - files: `a`\n* [X] Four\n```\n1. fenced\n```\n"
        );
        assert_eq!(
            set_marks("1. a\n- [x] b\n", &[Some(InProgress), Some(InProgress)]),
            "1. a\n- [ ] b\n"
        );
        assert_eq!(numbered_steps(&marked), numbered_steps(plan));
        assert_eq!(strip_marks(&marked), strip_marks(plan));
        assert_eq!(
            strip_marks(plan),
            "# P\r\n1. One\r\n2. Two\n- [ ] Three\n   - files: `a`\n* [ ] Four\n```\n1. fenced\n```\n"
        );
        assert_eq!(set_marks("1. a\n", &[Some(Pending)]), "1. a\n");
        assert!(ends_in_fence("```\nx\n") && !ends_in_fence("```\nx\n```\n"));
    }
}
