//! A plan given structured through `plan_write` (steps with ids, files and actions; risks,
//! prerequisites, verification; a scope), checked and rendered into the plan file's markdown.
//!
//! The rendering is the one document humans read and edit, and the parsers read it back to
//! the same steps (`steps::parse_steps`: text, id, files, action) and scope
//! (`scope::parse_scope`: the scope's paths, then each step's files, and the commands).
//! `content`, when given with structured fields, is the preamble (goal, context) rendered first;
//! it may not hold what a structured field renders (see [`check_preamble`]).

use serde_json::{Map, Value};

use super::content::validate_plan_text;
use super::error::{PlanError, PlanResult};
use super::step_ids::{MAX_ID_CHARS, is_valid_id};
use super::steps::{ends_in_fence, lines_outside_fences, parse_steps};
use super::todo::{MAX_TODO_CHARS, MAX_TODOS};

/// Most items of a list field (risks, prerequisites, verification, a scope list, a step's files).
pub const MAX_ITEMS: usize = 200;
/// Longest path or command pattern, in characters.
pub const MAX_PATTERN_CHARS: usize = 1000;
/// Longest action, in characters.
pub const MAX_ACTION_CHARS: usize = 200;

/// The structured fields `plan_write` accepts besides `content`.
pub const STRUCTURED_FIELDS: [&str; 5] = ["steps", "risks", "prerequisites", "verification", "scope"];

/// One step given structured.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StepSpec {
    /// Its id, when given (kept across revisions).
    pub id: Option<String>,
    /// What the step does (one line).
    pub description: String,
    /// Files it touches (they count towards the scope).
    pub files: Vec<String>,
    /// What kind of change it is (free text, one line: `edit`, `create`...).
    pub action: Option<String>,
}

/// A plan given structured.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlanSpec {
    /// The preamble (markdown), if given.
    pub content: Option<String>,
    /// The steps, in order.
    pub steps: Vec<StepSpec>,
    /// What could go wrong.
    pub risks: Vec<String>,
    /// What must hold before the build starts.
    pub prerequisites: Vec<String>,
    /// How the result will be checked.
    pub verification: Vec<String>,
    /// Declared path globs (besides the steps' files).
    pub scope_paths: Vec<String>,
    /// Declared command patterns.
    pub scope_commands: Vec<String>,
}

fn invalid(msg: String) -> PlanError {
    PlanError::InvalidInput(msg)
}

/// The JSON type of a value, for errors.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// A one-line text field: trimmed, non-blank, no control characters, at most `max` characters.
fn line(v: &Value, field: &str, max: usize) -> PlanResult<String> {
    let s = v
        .as_str()
        .ok_or_else(|| invalid(format!("{field} must be a string, got {}", kind(v))))?
        .trim();
    if s.is_empty() {
        return Err(invalid(format!("{field} is blank")));
    }
    if s.chars().any(char::is_control) {
        return Err(invalid(format!(
            "{field} must be one line of text (no newlines or other control characters)"
        )));
    }
    let n = s.chars().count();
    if n > max {
        return Err(invalid(format!(
            "{field} is {n} characters, over the limit of {max}"
        )));
    }
    Ok(s.to_string())
}

/// A list of `what` (`null` or absent: empty), each item checked by `item`.
fn list_of(
    v: Option<&Value>,
    field: &str,
    what: &str,
    item: impl Fn(&Value, &str) -> PlanResult<String>,
) -> PlanResult<Vec<String>> {
    let items = match v {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(invalid(format!(
                "{field} must be a list of {what}, got {}",
                kind(other)
            )));
        }
    };
    if items.len() > MAX_ITEMS {
        return Err(invalid(format!(
            "{field} has {} items, over the limit of {MAX_ITEMS}",
            items.len()
        )));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, v)| item(v, &format!("{field}[{i}]")))
        .collect()
}

/// A list of one-line texts (`null` or absent: empty).
fn lines(v: Option<&Value>, field: &str, max: usize) -> PlanResult<Vec<String>> {
    list_of(v, field, "strings", |v, f| line(v, f, max))
}

/// A path glob: one line, relative to the workspace (no leading `/`, no `..`), no backtick,
/// not starting with `$` (that is a command); a leading `./` is dropped.
fn path(v: &Value, field: &str) -> PlanResult<String> {
    let p = line(v, field, MAX_PATTERN_CHARS)?;
    let p = p.trim_start_matches("./").trim().to_string();
    let why = if p.is_empty() {
        Some("is blank")
    } else if p.contains('`') {
        Some("must not contain a backtick")
    } else if p.starts_with('$') {
        Some("must not start with $ (command patterns go in scope.commands)")
    } else if p.starts_with(['/', '\\']) || p.as_bytes().get(1) == Some(&b':') {
        Some("must be relative to the workspace, not absolute")
    } else if p.split(['/', '\\']).any(|s| s == "..") {
        Some("must not contain a .. segment")
    } else {
        None
    };
    match why {
        Some(why) => Err(invalid(format!("{field} {why} (got {p:?})"))),
        None => Ok(p),
    }
}

/// A list of path globs (`null` or absent: empty).
fn paths(v: Option<&Value>, field: &str) -> PlanResult<Vec<String>> {
    list_of(v, field, "path globs (strings)", path)
}

/// Refuses keys of `obj` outside `allowed`, naming the first.
fn known_keys(obj: &Map<String, Value>, allowed: &[&str], field: &str) -> PlanResult<()> {
    match obj.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(invalid(format!(
            "{field} has unknown field {k:?}; allowed: {}",
            allowed.join(", ")
        ))),
        None => Ok(()),
    }
}

fn step(v: &Value, i: usize) -> PlanResult<StepSpec> {
    let field = format!("steps[{i}]");
    let obj = v.as_object().ok_or_else(|| {
        invalid(format!(
            "{field} must be an object {{id?, description, files?, action?}}, got {}",
            kind(v)
        ))
    })?;
    known_keys(obj, &["id", "description", "files", "action"], &field)?;
    let description = match obj.get("description") {
        None | Some(Value::Null) => return Err(invalid(format!("{field}.description is missing"))),
        Some(d) => line(d, &format!("{field}.description"), MAX_TODO_CHARS)?,
    };
    let id = match obj.get("id") {
        None | Some(Value::Null) => None,
        Some(Value::String(id)) if is_valid_id(id) => Some(id.clone()),
        Some(other) => {
            return Err(invalid(format!(
                "{field}.id must be a step id: 1 to {MAX_ID_CHARS} characters, a lowercase letter first, \
                 then lowercase letters, digits, - or _ (such as \"s3\" or \"parse-dates\"), got {other}"
            )));
        }
    };
    let action = match obj.get("action") {
        None | Some(Value::Null) => None,
        Some(a) => Some(line(a, &format!("{field}.action"), MAX_ACTION_CHARS)?),
    };
    Ok(StepSpec {
        id,
        description,
        files: paths(obj.get("files"), &format!("{field}.files"))?,
        action,
    })
}

impl PlanSpec {
    /// Reads `plan_write`'s arguments (`{content?, steps?, risks?, prerequisites?,
    /// verification?, scope?}`); errors name the field.
    pub fn from_json(v: &Value) -> PlanResult<Self> {
        let obj = v
            .as_object()
            .ok_or_else(|| invalid(format!("the plan must be an object of fields, got {}", kind(v))))?;
        let mut allowed = vec!["content"];
        allowed.extend(STRUCTURED_FIELDS);
        known_keys(obj, &allowed, "plan_write")?;
        let content = match obj.get("content") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => return Err(invalid(format!("content must be a string, got {}", kind(other)))),
        };
        let steps = match obj.get("steps") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) if items.len() > MAX_TODOS => {
                return Err(invalid(format!(
                    "steps has {} items, over the limit of {MAX_TODOS}",
                    items.len()
                )));
            }
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, v)| step(v, i))
                .collect::<PlanResult<Vec<_>>>()?,
            Some(other) => {
                return Err(invalid(format!(
                    "steps must be a list of {{id?, description, files?, action?}} objects, got {}",
                    kind(other)
                )));
            }
        };
        for (i, s) in steps.iter().enumerate() {
            if let Some(j) = steps[..i].iter().position(|o| o.description == s.description) {
                return Err(invalid(format!(
                    "steps[{i}].description repeats steps[{j}]: each step needs its own description"
                )));
            }
            if let Some(id) = &s.id
                && let Some(j) = steps[..i].iter().position(|o| o.id.as_ref() == Some(id))
            {
                return Err(invalid(format!(
                    "steps[{i}].id {id:?} repeats steps[{j}].id: ids are unique"
                )));
            }
        }
        let (scope_paths, scope_commands) = match obj.get("scope") {
            None | Some(Value::Null) => (Vec::new(), Vec::new()),
            Some(Value::Object(s)) => {
                known_keys(s, &["paths", "commands"], "scope")?;
                let commands = lines(s.get("commands"), "scope.commands", MAX_PATTERN_CHARS)?;
                if let Some(i) = commands.iter().position(|c| c.contains('`')) {
                    return Err(invalid(format!(
                        "scope.commands[{i}] must not contain a backtick"
                    )));
                }
                (paths(s.get("paths"), "scope.paths")?, commands)
            }
            Some(other) => {
                return Err(invalid(format!(
                    "scope must be an object {{paths?, commands?}}, got {}",
                    kind(other)
                )));
            }
        };
        Ok(Self {
            content,
            steps,
            risks: lines(obj.get("risks"), "risks", MAX_TODO_CHARS)?,
            prerequisites: lines(obj.get("prerequisites"), "prerequisites", MAX_TODO_CHARS)?,
            verification: lines(obj.get("verification"), "verification", MAX_TODO_CHARS)?,
            scope_paths,
            scope_commands,
        })
    }

    /// True when any structured field has something to render.
    pub fn is_structured(&self) -> bool {
        !(self.steps.is_empty()
            && self.risks.is_empty()
            && self.prerequisites.is_empty()
            && self.verification.is_empty()
            && self.scope_paths.is_empty()
            && self.scope_commands.is_empty())
    }

    /// The scope the rendering declares: the scope's paths, then each step's files (once each),
    /// and the command patterns.
    pub fn declared_paths(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for p in self
            .scope_paths
            .iter()
            .chain(self.steps.iter().flat_map(|s| &s.files))
        {
            if !out.contains(p) {
                out.push(p.clone());
            }
        }
        out
    }

    /// The sections the structured fields render, by heading.
    fn sections(&self) -> Vec<(&'static str, bool)> {
        vec![
            ("Prerequisites", !self.prerequisites.is_empty()),
            ("Steps", !self.steps.is_empty()),
            ("Risks", !self.risks.is_empty()),
            ("Verification", !self.verification.is_empty()),
            (
                "Scope",
                !self.declared_paths().is_empty() || !self.scope_commands.is_empty(),
            ),
        ]
    }

    /// Refuses a preamble that would make the rendering ambiguous: one that ends inside a code
    /// fence, has a heading of a section a structured field renders (or any Scope / Files
    /// section), or has steps of its own while `steps` is given.
    pub fn check_preamble(&self) -> PlanResult<()> {
        let Some(text) = self.content.as_deref() else {
            return Ok(());
        };
        if ends_in_fence(text) {
            return Err(invalid(
                "content ends inside a code fence (``` or ~~~): close it, the structured sections follow it"
                    .into(),
            ));
        }
        for l in lines_outside_fences(text) {
            let t = l.trim_start();
            let level = t.bytes().take_while(|b| *b == b'#').count();
            if level == 0 || level > 6 {
                continue;
            }
            let title = t[level..]
                .trim()
                .trim_end_matches(':')
                .trim()
                .to_ascii_lowercase();
            if matches!(title.as_str(), "scope" | "files") {
                return Err(invalid(
                    "content has a Scope / Files section: with structured fields, declare the scope in scope \
                     {paths, commands} and the steps' files"
                        .into(),
                ));
            }
            if let Some((name, _)) = self
                .sections()
                .into_iter()
                .find(|(n, on)| *on && n.eq_ignore_ascii_case(&title))
            {
                return Err(invalid(format!(
                    "content has a {name:?} section and {} is given: put it in one place, not both",
                    name.to_ascii_lowercase()
                )));
            }
        }
        if !self.steps.is_empty()
            && let Some(first) = parse_steps(text).first()
        {
            return Err(invalid(format!(
                "content has steps of its own (\"{}\") and steps is given: list every step in steps (content is \
                 the preamble), or write the whole plan in content",
                first.text.chars().take(60).collect::<String>()
            )));
        }
        Ok(())
    }

    /// The markdown of the plan (see the module doc for what reads it back).
    pub fn render(&self) -> String {
        let mut out = match self.content.as_deref().map(str::trim_end) {
            Some(pre) if !pre.trim().is_empty() => format!("{pre}\n"),
            _ => "# Plan\n".to_string(),
        };
        let section = |out: &mut String, name: &str, items: &[String]| {
            if !items.is_empty() {
                out.push_str(&format!("\n## {name}\n\n"));
                for item in items {
                    // A leading `[` would read as a task box: escape it.
                    let item = if item.starts_with('[') {
                        format!("\\{item}")
                    } else {
                        item.clone()
                    };
                    out.push_str(&format!("- {item}\n"));
                }
            }
        };
        section(&mut out, "Prerequisites", &self.prerequisites);
        if !self.steps.is_empty() {
            out.push_str("\n## Steps\n\n");
            for (i, s) in self.steps.iter().enumerate() {
                let marker = format!("{}.", i + 1);
                let pad = " ".repeat(marker.len() + 1);
                out.push_str(&format!("{marker} [ ] {}\n", s.description));
                if let Some(id) = &s.id {
                    out.push_str(&format!("{pad}- id: `{id}`\n"));
                }
                if !s.files.is_empty() {
                    let files: Vec<String> = s.files.iter().map(|f| format!("`{f}`")).collect();
                    out.push_str(&format!("{pad}- files: {}\n", files.join(", ")));
                }
                if let Some(a) = &s.action {
                    out.push_str(&format!("{pad}- action: {a}\n"));
                }
            }
        }
        section(&mut out, "Risks", &self.risks);
        section(&mut out, "Verification", &self.verification);
        let paths = self.declared_paths();
        if !paths.is_empty() || !self.scope_commands.is_empty() {
            out.push_str("\n## Scope\n\n");
            for p in paths {
                out.push_str(&format!("- `{p}`\n"));
            }
            for c in &self.scope_commands {
                out.push_str(&format!("- `$ {c}`\n"));
            }
        }
        out
    }
}

/// The plan text `plan_write`'s arguments give: `content` as written when no structured field
/// is given, else the rendering (checked: fields, preamble, size). Errors name the field.
pub fn plan_text(args: &Value, max_bytes: usize) -> PlanResult<String> {
    let spec = PlanSpec::from_json(args)?;
    if !spec.is_structured() {
        let text = spec.content.ok_or_else(|| {
            invalid(
                "give the plan: content (the markdown plan) and/or steps (a list of {description, ...})"
                    .into(),
            )
        })?;
        validate_plan_text(&text, max_bytes, "plan content")?;
        return Ok(text);
    }
    spec.check_preamble()?;
    if let Some(pre) = &spec.content
        && pre.contains('\0')
    {
        return Err(invalid("content contains a NUL character".into()));
    }
    let text = spec.render();
    validate_plan_text(&text, max_bytes, "the rendered plan")?;
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::super::scope::parse_scope;
    use super::*;
    use serde_json::json;

    fn err(v: Value) -> String {
        plan_text(&v, 256 * 1024).unwrap_err().to_string()
    }

    #[test]
    fn renders_and_reads_back() {
        let args = json!({
            "content": "# Fix dates\n\nThe parser drops time zones.",
            "steps": [
                {"id": "read", "description": "Read `parse.py`", "files": ["./src/parse.py"]},
                {"description": "[x] Change the check", "files": ["src/parse.py", "tests/*.py"], "action": "edit"}
            ],
            "risks": ["[ ] looks like a box", "## Scope"],
            "verification": ["1. pytest -q"],
            "scope": {"paths": ["docs/**"], "commands": ["pytest -q*"]}
        });
        let text = plan_text(&args, 1 << 20).unwrap();
        let steps = parse_steps(&text);
        assert_eq!(steps.len(), 2, "{text}");
        assert_eq!(
            (steps[0].text.as_str(), steps[0].id.as_deref()),
            ("Read `parse.py`", Some("read"))
        );
        assert_eq!(steps[1].text, "[x] Change the check");
        assert_eq!(steps[1].files, ["src/parse.py", "tests/*.py"]);
        assert_eq!(steps[1].action.as_deref(), Some("edit"));
        let scope = parse_scope(&text).unwrap();
        assert_eq!(scope.paths, ["docs/**", "src/parse.py", "tests/*.py"]);
        assert_eq!(scope.commands, ["pytest -q*"]);
        assert!(text.starts_with("# Fix dates\n"));
        assert_eq!(plan_text(&json!({"content": "1. a"}), 100).unwrap(), "1. a");
    }

    #[test]
    fn bad_input_names_the_field() {
        for (args, says) in [
            (json!({"steps": "x"}), "steps must be a list"),
            (json!({"steps": [3]}), "steps[0] must be an object"),
            (
                json!({"steps": [{"description": 3}]}),
                "steps[0].description must be a string",
            ),
            (json!({"steps": [{}]}), "steps[0].description is missing"),
            (
                json!({"steps": [{"description": "a\nb"}]}),
                "steps[0].description must be one line",
            ),
            (
                json!({"steps": [{"description": "a", "id": "A B"}]}),
                "steps[0].id must be a step id",
            ),
            (
                json!({"steps": [{"description": "a", "x": 1}]}),
                "steps[0] has unknown field \"x\"",
            ),
            (
                json!({"steps": [{"description": "a", "id": "k"}, {"description": "b", "id": "k"}]}),
                "steps[1].id",
            ),
            (
                json!({"steps": [{"description": "a"}, {"description": " a "}]}),
                "steps[1].description repeats",
            ),
            (
                json!({"steps": [{"description": "a", "files": ["../x"]}]}),
                "steps[0].files[0] must not contain a ..",
            ),
            (
                json!({"steps": [{"description": "a", "files": "x"}]}),
                "steps[0].files must be a list",
            ),
            (
                json!({"scope": {"paths": ["/etc"]}}),
                "scope.paths[0] must be relative",
            ),
            (
                json!({"scope": {"paths": ["$ rm"]}}),
                "scope.paths[0] must not start with $",
            ),
            (
                json!({"scope": {"commands": ["a`b"]}}),
                "scope.commands[0] must not contain a backtick",
            ),
            (json!({"scope": {"cmds": []}}), "scope has unknown field \"cmds\""),
            (json!({"scope": []}), "scope must be an object"),
            (json!({"risks": [1]}), "risks[0] must be a string"),
            (json!({"risks": "r"}), "risks must be a list of strings"),
            (json!({"content": 5, "steps": []}), "content must be a string"),
            (json!({"bogus": 1}), "plan_write has unknown field \"bogus\""),
            (json!({}), "give the plan"),
            (
                json!({"content": "1. own step", "steps": [{"description": "a"}]}),
                "content has steps of its own",
            ),
            (
                json!({"content": "## Risks\nx", "risks": ["r"]}),
                "content has a \"Risks\" section",
            ),
            (
                json!({"content": "# Scope\n- `a`", "risks": ["r"]}),
                "content has a Scope / Files section",
            ),
            (
                json!({"content": "```\n", "risks": ["r"]}),
                "content ends inside a code fence",
            ),
        ] {
            let e = err(args.clone());
            assert!(e.contains(says), "{args}: {e}");
        }
        let many: Vec<Value> = (0..201)
            .map(|i| json!({"description": format!("s {i}")}))
            .collect();
        assert!(err(json!({"steps": many})).contains("over the limit of 200"));
        let big = "x".repeat(2000);
        let e = plan_text(&json!({"steps": [{"description": big}]}), 1000)
            .unwrap_err()
            .to_string();
        assert!(e.contains("the rendered plan is"), "{e}");
    }
}

#[cfg(test)]
mod round_trip {
    use super::super::scope::parse_scope;
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    /// One-line text that looks like markdown structure: headings, boxes, scope lines, fences.
    fn hostile() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            Just("## Scope".to_string()),
            Just("# Files".to_string()),
            Just("[ ]".to_string()),
            Just("[x]".to_string()),
            Just("[~]".to_string()),
            Just("- [ ] task".to_string()),
            Just("1. step".to_string()),
            Just("`$ rm -rf /`".to_string()),
            Just("```".to_string()),
            Just("- id: `evil`".to_string()),
            Just("- files: `x`".to_string()),
            "[a-z]{1,8}",
            "[ -~]{1,12}",
        ];
        prop::collection::vec(piece, 1..5)
            .prop_map(|p| p.join(" "))
            .prop_filter("non-blank", |s| !s.trim().is_empty())
    }

    fn glob() -> impl Strategy<Value = String> {
        "[a-z]{1,6}(/[a-z*]{1,6}){0,2}(\\.[a-z]{1,3})?"
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn the_parsers_read_the_rendering_back(
            descriptions in prop::collection::vec(hostile(), 1..12),
            ids in prop::collection::vec(prop::option::of("[a-z][a-z0-9_-]{0,10}"), 12),
            files in prop::collection::vec(prop::collection::vec(glob(), 0..3), 12),
            risks in prop::collection::vec(hostile(), 0..4),
            paths in prop::collection::vec(glob(), 0..3),
            commands in prop::collection::vec("[a-z]{1,5}( [a-z*-]{1,4}){0,2}", 0..3),
            preamble in prop::option::of("[A-Za-z ]{1,20}"),
        ) {
            let mut seen = Vec::new();
            let mut used = Vec::new();
            let steps: Vec<Value> = descriptions.iter().enumerate().filter_map(|(i, d)| {
                let d = d.trim().to_string();
                if seen.contains(&d) { return None; }
                seen.push(d.clone());
                let id = ids[i].clone().filter(|id| !used.contains(id));
                if let Some(id) = &id { used.push(id.clone()); }
                Some(json!({"id": id, "description": d, "files": files[i], "action": "edit"}))
            }).collect();
            let args = json!({"content": preamble.map(|p| format!("# {p}")), "steps": steps, "risks": risks,
                              "verification": risks, "scope": {"paths": paths, "commands": commands}});
            let spec = PlanSpec::from_json(&args).unwrap();
            let text = plan_text(&args, 1 << 22).unwrap();
            let parsed = parse_steps(&text);
            prop_assert_eq!(parsed.len(), spec.steps.len(), "{}", text);
            for (p, s) in parsed.iter().zip(&spec.steps) {
                prop_assert_eq!(&p.text, &s.description);
                prop_assert_eq!(&p.id, &s.id);
                prop_assert_eq!(&p.files, &s.files);
                prop_assert_eq!(&p.action, &s.action);
            }
            let scope = parse_scope(&text).unwrap_or_default();
            prop_assert_eq!(scope.paths, spec.declared_paths());
            prop_assert_eq!(scope.commands, spec.scope_commands.clone());
            // The ids a revision gets: the given ones, and fresh ones that collide with none.
            let ids = super::super::step_ids::ids_for_new_revision(&[], &text);
            for (id, s) in ids.iter().zip(&spec.steps) {
                if let Some(given) = &s.id { prop_assert_eq!(id, given); }
            }
            let mut unique = ids.clone();
            unique.sort();
            unique.dedup();
            prop_assert_eq!(unique.len(), ids.len());
        }
    }
}
