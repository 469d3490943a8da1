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
//! Which shell runs the line matters: AgentScope's `Bash` tool runs `/bin/sh -c` on its backend,
//! and `/bin/sh` is dash on Debian and Ubuntu, bash elsewhere, ash on Alpine. Under
//! [`Dialect::Sh`] (that unknown POSIX shell, the default) a line is read-only only when it uses
//! the grammar every one of them reads alike: constructs only some have (ANSI-C and locale
//! quoting, `&>`, `|&`, here-strings, process substitution, `[[`...) are refused, and where
//! the parser itself reads bash and POSIX sh differently the line is parsed both ways and the
//! two readings must agree. [`Dialect::Bash`] reads the line as bash alone.
//!
//! Before parsing, [`budget`] bounds what the parser can be made to do (length, nesting, here-
//! document delimiters), so every input gets a verdict in bounded time, memory and stack.

mod awk;
mod budget;
mod git;
mod heredoc;
mod options;
mod programs;
mod sed;
mod simple;
mod source;
mod walk;
mod words;

use brush_parser::ParserOptions;

pub use budget::{MAX_COMMAND_BYTES, MAX_NESTING};
pub use simple::{CommandParts, simple_commands};

/// The shell that will run the command line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// Some POSIX `sh` — dash, bash in POSIX mode, ash — as `/bin/sh -c` runs it (AgentScope's
    /// `Bash` tool): only the grammar they all read alike is accepted.
    #[default]
    Sh,
    /// GNU bash: bash-only constructs the classifier models (`$'...'`, `&>`) are accepted.
    Bash,
}

impl Dialect {
    /// The dialect named `sh` or `bash`, or `None`.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "sh" => Some(Self::Sh),
            "bash" => Some(Self::Bash),
            _ => None,
        }
    }
}

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

    /// Marks a denial found in a command that `context` runs (`find -exec`).
    pub(crate) fn within(self, context: &str) -> Self {
        Self {
            reason: format!("in `{context}`: {}", self.reason),
            ..self
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

/// Classifies one shell command line, as `/bin/sh` of unknown kind runs it ([`Dialect::Sh`]).
pub fn classify(command: &str) -> Verdict {
    classify_as(command, Dialect::Sh)
}

/// Classifies one shell command line as read-only or not for `dialect`, never panicking.
pub fn classify_as(command: &str, dialect: Dialect) -> Verdict {
    // Defence in depth: a panic inside the parser must become a refusal, not a crash.
    let outcome = std::panic::catch_unwind(|| check(command, dialect))
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

fn check(command: &str, dialect: Dialect) -> Result<Vec<String>, Deny> {
    budget::check(command)?;
    let bash = parse(command, &parser_options(false))?;
    let programs = walk::Walker::check(&bash, command, &parser_options(false), dialect)?;
    if dialect == Dialect::Sh && parsed_differently_as_sh(command) {
        let options = parser_options(true);
        let sh = parse(command, &options).map_err(Deny::in_sh)?;
        walk::Walker::check(&sh, command, &options, dialect).map_err(Deny::in_sh)?;
        if sh.to_string() != bash.to_string() {
            return Err(Deny::whole(
                "bash and POSIX sh read this line as different commands (a bash-only operator such as `&>` or `|&`?)",
            ));
        }
    }
    if programs.is_empty() {
        return Err(Deny::whole("empty command: nothing to run"));
    }
    Ok(programs)
}

/// Parser options for bash, or for POSIX `sh`. Neither enables `extglob`, which
/// non-interactive bash leaves off.
fn parser_options(sh: bool) -> ParserOptions {
    ParserOptions {
        enable_extended_globbing: false,
        posix_mode: sh,
        sh_mode: sh,
        ..ParserOptions::default()
    }
}

fn parse(command: &str, options: &ParserOptions) -> Result<brush_parser::ast::Program, Deny> {
    brush_parser::Parser::new(command.as_bytes(), options)
        .parse_program()
        .map_err(|e| Deny::whole(format!("cannot parse: {e}")))
}

/// Whether the POSIX reading could change the verdict of an accepted bash reading. The
/// parser's POSIX mode switches off a known set of constructs; those the bash reading refuses
/// anyway (`[[`, `((`, `<(`, arrays, `${!x}` and every other non-plain expansion) need no second
/// look, so only the ones it accepts are markers: `time` (a keyword to bash, a program to dash),
/// `|&`, `;&`/`;;&`, `${a[@]}`/`${a[*]}`, `select` — plus `&>`, `<<<`, `]]`, `function`, `coproc`
/// for good measure. A line without any parses and judges the same both ways, so the second
/// reading is skipped.
fn parsed_differently_as_sh(command: &str) -> bool {
    const MARKERS: [&str; 10] = [
        "|&", ";&", "[@]", "[*]", "select", "&>", "<<<", "]]", "function", "coproc",
    ];
    let word_time = command.match_indices("time").any(|(at, _)| {
        let before = command[..at].chars().next_back();
        let after = command[at + 4..].chars().next();
        let boundary =
            |c: Option<char>| c.is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'));
        boundary(before) && boundary(after)
    });
    word_time || MARKERS.iter().any(|m| command.contains(m))
}

#[cfg(test)]
mod tests;
