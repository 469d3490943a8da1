//! Every line of `tests/data/shell_corpus.tsv` (also asserted by `tests/test_shell_corpus.py`)
//! gets its expected verdict, and every expected reason fragment appears in the reason.

use planmode::core::shell::classify;

/// Undoes the corpus escapes: `\\` a backslash, `\n` a newline, `\t` a tab.
fn unescape(field: &str) -> String {
    let mut out = String::with_capacity(field.len());
    let mut chars = field.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('\\') => out.push('\\'),
            other => panic!("bad escape \\{other:?} in corpus field {field:?}"),
        }
    }
    out
}

#[test]
fn corpus_verdicts_match() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/shell_corpus.tsv"
    ))
    .unwrap();
    let mut failures = Vec::new();
    let mut rows = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let fields: Vec<&str> = line.split('\t').collect();
        assert_eq!(fields.len(), 4, "corpus line must have 4 fields: {line:?}");
        let command = unescape(fields[0]);
        let expected = match fields[1] {
            "true" => true,
            "false" => false,
            other => panic!("bad read_only field {other:?} in {line:?}"),
        };
        let reason = unescape(fields[2]);
        let verdict = classify(&command);
        if verdict.read_only != expected || !verdict.reason.contains(&reason) {
            failures.push(format!(
                "{command:?}: expected read_only={expected} with {reason:?}, got {verdict:?}"
            ));
        }
        rows += 1;
    }
    assert!(
        rows >= 150,
        "the corpus must have at least 150 command lines, has {rows}"
    );
    assert!(
        failures.is_empty(),
        "{} corpus failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
