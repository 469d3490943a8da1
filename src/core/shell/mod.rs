//! The fail-closed read-only shell classifier.
//!
//! [`classify`] parses a bash command line with `brush-parser` and calls it read-only only when
//! every part of it is provably read-only: each simple command runs a program from the allow-list
//! ([`programs`]) with options that cannot write or run code, no word expands to something that
//! could not be checked before it runs (command substitution, risky parameter expansion, globs
//! or braces where options matter), and no redirection writes anywhere but `/dev/null`.
//! Anything else, including input it cannot parse, is not read-only, with a reason naming the
//! offending part.
//!
//! The line is read twice, as bash and as POSIX `sh` (dash): it is read-only only if both
//! readings are, so a construct the two shells read differently (`&>`, `$'...'`) cannot hide a
//! write from one of them.

mod git;
mod options;
mod programs;
mod sed;
mod walk;
mod words;

use brush_parser::ParserOptions;

/// Longest command line analysed, in bytes; longer input is refused without being parsed.
pub const MAX_COMMAND_BYTES: usize = 64 * 1024;

/// Most nesting openers (`(`, `{`, backquotes and compound-command keywords) analysed: the parser
/// recurses once per level, so deeper input is refused before it could exhaust the stack.
pub const MAX_NESTING: usize = 48;

/// The classifier's answer for one command line.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Verdict {
    /// True only when every part of the command line is provably read-only.
    pub read_only: bool,
    /// Why: the programs that were checked, or what makes the command not read-only.
    pub reason: String,
    /// The source text of the offending part (a word, a redirection, a program), when there is one.
    pub offending: Option<String>,
}

/// Why a command line is not read-only: a reason and, when there is one, the offending source text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Deny {
    reason: String,
    offending: Option<String>,
}

impl Deny {
    /// A denial that names the offending source text.
    pub(crate) fn at(offending: impl Into<String>, reason: impl Into<String>) -> Self {
        Self {
            reason: reason.into(),
            offending: Some(offending.into()),
        }
    }

    /// A denial about the command line as a whole.
    pub(crate) fn whole(reason: impl Into<String>) -> Self {
        Self {
            reason: reason.into(),
            offending: None,
        }
    }

    /// Marks a denial found only when the line is read as POSIX `sh`.
    fn in_sh(self) -> Self {
        Self {
            reason: format!("as POSIX sh: {}", self.reason),
            ..self
        }
    }
}

/// Classifies one shell command line as read-only or not, never panicking.
pub fn classify(command: &str) -> Verdict {
    // Defence in depth: a panic inside the parser must become a refusal, not a crash.
    let outcome = std::panic::catch_unwind(|| check(command))
        .unwrap_or_else(|_| Err(Deny::whole("cannot parse: the parser failed on this input")));
    match outcome {
        Ok(programs) => Verdict {
            read_only: true,
            reason: format!("read-only: {}", programs.join(", ")),
            offending: None,
        },
        Err(deny) => Verdict {
            read_only: false,
            reason: deny.reason,
            offending: deny.offending,
        },
    }
}

fn check(command: &str) -> Result<Vec<String>, Deny> {
    if command.len() > MAX_COMMAND_BYTES {
        return Err(Deny::whole(format!(
            "command is too long to analyse ({} bytes, limit {MAX_COMMAND_BYTES})",
            command.len()
        )));
    }
    if command.contains('\0') {
        return Err(Deny::whole("command contains a NUL byte"));
    }
    let nesting = nesting_openers(command);
    if nesting > MAX_NESTING {
        return Err(Deny::whole(format!(
            "command is too deeply nested to analyse ({nesting} nesting openers, limit {MAX_NESTING})"
        )));
    }
    let programs = check_dialect(command, &dialect(false))?;
    check_dialect(command, &dialect(true)).map_err(Deny::in_sh)?;
    if programs.is_empty() {
        return Err(Deny::whole("empty command: nothing to run"));
    }
    Ok(programs)
}

/// Parser options for bash, or for POSIX `sh` (dash, which AgentScope's `Bash` tool runs as
/// `/bin/sh -c`). Neither enables `extglob`, which non-interactive bash leaves off.
fn dialect(sh: bool) -> ParserOptions {
    ParserOptions {
        enable_extended_globbing: false,
        posix_mode: sh,
        sh_mode: sh,
        ..ParserOptions::default()
    }
}

fn check_dialect(command: &str, options: &ParserOptions) -> Result<Vec<String>, Deny> {
    let mut parser = brush_parser::Parser::new(command.as_bytes(), options);
    let program = parser
        .parse_program()
        .map_err(|e| Deny::whole(format!("cannot parse: {e}")))?;
    walk::Walker::check(&program, options)
}

/// An upper bound on how deeply `command` can nest: every bracket, backquote and word that could
/// open a compound command counts, wherever it is (over-counting only makes the check stricter).
fn nesting_openers(command: &str) -> usize {
    const OPENING_WORDS: [&str; 7] = ["if", "while", "until", "for", "case", "select", "function"];
    let brackets = command
        .bytes()
        .filter(|b| matches!(b, b'(' | b'{' | b'`'))
        .count();
    let keywords = command
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| OPENING_WORDS.contains(w))
        .count();
    brackets + keywords
}

#[cfg(test)]
mod tests;
