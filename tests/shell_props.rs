//! Property tests of the shell classifier: it never panics, is deterministic, refuses
//! oversized, deeply nested and NUL-containing input cleanly, and gives every input a verdict on
//! a 1 MiB stack (the budget: no input can make the parser recurse, loop or backtrack without
//! bound; a hang would stall this test, an overflow would abort it).

use planmode::core::shell::{MAX_COMMAND_BYTES, MAX_NESTING, Verdict, classify};
use proptest::prelude::*;

/// Shell fragments that exercise every part of the grammar when glued together at random.
const FRAGMENTS: &[&str] = &[
    "ls",
    "cat",
    "sort",
    "git",
    "log",
    "sed",
    "find",
    "-o",
    "-i",
    "-exec",
    "x",
    " ",
    " ",
    " ",
    "|",
    "||",
    "&&",
    ";",
    "&",
    "\n",
    "(",
    ")",
    "{",
    "}",
    "$(",
    "`",
    "'",
    "\"",
    "\\",
    "$",
    "${",
    "$((",
    "))",
    "<",
    ">",
    ">>",
    ">|",
    "&>",
    "2>&1",
    "<<EOF\n",
    "EOF\n",
    "<<<",
    "<(",
    ">(",
    "*",
    "?",
    "[",
    "]",
    "~",
    "=",
    "X=1",
    "if",
    "then",
    "fi",
    "for",
    "in",
    "do",
    "done",
    "case",
    "esac",
    "!",
    "#",
    "\t",
    "$'\\x41'",
    "s/a/b/",
    "w",
    "e",
    "\0",
    "é",
    "--output=",
    "<<\"\" ",
    "<<''\n",
    "<<-",
    "'EOF'",
    "$'EOF'",
    "E\\\nOF",
    "\\\n",
    "$'",
    "$\"",
    "time",
    "-f",
    "-p",
    "env",
    "timeout",
    "{PATH}",
    "${ ",
    "${|",
    "[[ ",
    " ]]",
    "! ",
    "-exec",
    "{}",
    "\\;",
    "+",
    "awk",
    "'{print}'",
    "getline",
    "/dev/tcp/x/1",
    "$((((",
    "$($($(",
];

fn shellish() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(FRAGMENTS), 0..40).prop_map(|parts| parts.concat())
}

fn check_invariants(command: &str) -> Result<Verdict, TestCaseError> {
    let verdict = classify(command);
    prop_assert_eq!(
        &verdict,
        &classify(command),
        "not deterministic for {:?}",
        command
    );
    prop_assert!(!verdict.reason.is_empty());
    if verdict.read_only {
        prop_assert!(verdict.reason.starts_with("read-only: "), "{:?}", verdict);
        prop_assert!(verdict.offending.is_none());
        prop_assert!(!command.contains('\0'));
    }
    Ok(verdict)
}

/// Classifies `command` on a thread with a 1 MiB stack.
fn classify_on_small_stack(command: String) -> Verdict {
    std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || classify(&command))
        .unwrap()
        .join()
        .expect("the classifier panicked or overflowed a 1 MiB stack")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn long_shell_like_text_gets_a_verdict_on_a_small_stack(
        parts in prop::collection::vec(prop::sample::select(FRAGMENTS), 0..400)
    ) {
        let command = parts.concat();
        let verdict = classify_on_small_stack(command.clone());
        prop_assert_eq!(verdict, classify(&command));
    }

    #[test]
    fn arbitrary_text_never_panics(command in any::<String>()) {
        check_invariants(&command)?;
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        // Invalid UTF-8 reaches Rust only after lossy decoding (U+FFFD), as from a byte stream.
        check_invariants(&String::from_utf8_lossy(&bytes))?;
    }

    #[test]
    fn shell_like_text_never_panics(command in shellish()) {
        check_invariants(&command)?;
    }

    #[test]
    fn appending_a_write_is_never_read_only(command in shellish()) {
        // Whatever came before, a complete line that ends by writing a file is not read-only
        // (unless the write is swallowed by an open quote, heredoc or comment: then it is
        // unparseable or still text, and must not be read-only because of the write).
        let verdict = check_invariants(&format!("{command}\nls > out.txt\n"))?;
        if verdict.read_only {
            prop_assert!(!verdict.reason.contains("out.txt"));
        }
    }
}

#[test]
fn huge_input_is_refused_without_parsing() {
    let verdict = classify(&"ls ".repeat(MAX_COMMAND_BYTES));
    assert!(!verdict.read_only);
    assert!(verdict.reason.contains("too long"), "{verdict:?}");
    let verdict = classify(&"a".repeat(1 << 20));
    assert!(verdict.reason.contains("too long"), "{verdict:?}");
}

#[test]
fn input_at_the_length_limit_is_analysed() {
    let command = format!("echo {}", "a".repeat(MAX_COMMAND_BYTES - 5));
    assert_eq!(command.len(), MAX_COMMAND_BYTES);
    assert!(classify(&command).read_only);
}

#[test]
fn deep_nesting_is_refused_not_overflowed() {
    for (open, close) in [
        ("(", ")"),
        ("{ ", "; }"),
        ("echo \"$(", ")\""),
        ("if true; then ", "; fi"),
    ] {
        let deep = format!("{}ls{}", open.repeat(100_000), close.repeat(100_000));
        let verdict = classify(&deep);
        assert!(!verdict.read_only);
        assert!(
            verdict.reason.contains("too long") || verdict.reason.contains("too deeply nested"),
            "{verdict:?}"
        );
        let deep = format!(
            "{}ls{}",
            open.repeat(MAX_NESTING + 1),
            close.repeat(MAX_NESTING + 1)
        );
        assert!(classify(&deep).reason.contains("too deeply nested"));
    }
    let at_limit = format!("{}ls{}", "{ ".repeat(MAX_NESTING), "; }".repeat(MAX_NESTING));
    assert!(classify(&at_limit).read_only, "{:?}", classify(&at_limit));
}

#[test]
fn nul_and_control_characters_are_refused_cleanly() {
    let verdict = classify("ls\0 -la");
    assert!(!verdict.read_only);
    assert!(verdict.reason.contains("NUL"));
    assert!(!classify("ls \u{1b}[2J; rm x").read_only);
}
