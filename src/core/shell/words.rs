//! What a shell word becomes before a program sees it.
//!
//! A word is *static* when quote removal alone gives its value. Otherwise it is only known at run
//! time (a parameter expansion, an unquoted glob, a brace expansion, ANSI-C or locale quoting):
//! harmless for programs that have no dangerous options, fatal where options matter. Expansions
//! that run code — command substitution, arithmetic, parameter expansions with nested words,
//! subscripts or indirection — are refused wherever they appear.

use brush_parser::ParserOptions;
use brush_parser::ast::Word;
use brush_parser::word::{self, Parameter, ParameterExpr, WordPiece, WordPieceWithSource};

use super::{Deny, Dialect, budget};

/// One analysed word: its source text and either its exact value or why that is unknown.
#[derive(Clone, Debug)]
pub(crate) struct Arg {
    /// The word as written in the command line.
    pub raw: String,
    /// The value after quote removal, when nothing else happens to the word.
    pub value: Option<String>,
    /// Why the value is only known at run time, when it is.
    pub runtime: Option<&'static str>,
    /// The word is a pathname pattern with a literal start that is not `-` (`src/*.rs`): its
    /// expansions are only known at run time but all start the same way, so none is an option.
    pub path_glob: bool,
}

impl Arg {
    /// The exact value, or a denial saying that `who` cannot check this word.
    pub(crate) fn require_static(&self, who: &str) -> Result<&str, Deny> {
        match (&self.value, self.runtime) {
            (Some(value), _) => Ok(value),
            (None, why) => Err(Deny::at(
                &self.raw,
                format!(
                    "argument `{}` of `{who}` is only known at run time ({}), so it cannot be checked",
                    self.raw,
                    why.unwrap_or("expansion")
                ),
            )),
        }
    }
}

/// Analyses a word as the parser dialect of `options` reads it, for a shell of `dialect`,
/// refusing expansions that run code.
pub(crate) fn analyse(word: &Word, options: &ParserOptions, dialect: Dialect) -> Result<Arg, Deny> {
    let raw = word.value.as_str();
    if budget::too_many_substitutions(raw) {
        return Err(Deny::at(
            raw,
            format!("word `{raw}` holds more command or arithmetic substitutions than are analysed"),
        ));
    }
    if let Some(at) = raw.find("${")
        && raw[at + 2..].starts_with([' ', '\t', '\n', '|', '(', ';'])
    {
        return Err(Deny::at(
            raw,
            format!(
                "`{raw}` is bash 5.3 command substitution (`${{ cmd; }}` / `${{|cmd;}}`), which runs a command"
            ),
        ));
    }
    let pieces =
        word::parse(raw, options).map_err(|e| Deny::at(raw, format!("cannot parse word `{raw}`: {e}")))?;
    let mut state = Pieces::new(raw, dialect);
    state.walk(&pieces, false)?;
    if state.unquoted_brace && has_brace_expansion(raw, options) {
        state.expand("brace expansion");
    }
    // A bracket expression may close in a later piece (`[a"b"]`); any `]` in the word counts.
    if state.unquoted_bracket && raw.contains(']') {
        state.runtime.get_or_insert("unquoted glob");
    }
    let Pieces {
        value,
        runtime,
        expands,
        ..
    } = state;
    let path_glob =
        runtime.is_some() && !expands && value.starts_with(|c: char| !matches!(c, '-' | '*' | '?' | '['));
    Ok(Arg {
        raw: raw.to_owned(),
        value: runtime.is_none().then_some(value),
        runtime,
        path_glob,
    })
}

fn has_brace_expansion(raw: &str, options: &ParserOptions) -> bool {
    match word::parse_brace_expansions(raw, options) {
        Ok(Some(parts)) => parts
            .iter()
            .any(|p| matches!(p, word::BraceExpressionOrText::Expr(_))),
        Ok(None) => false,
        // Fail closed: a word the brace parser cannot read is treated as expanding.
        Err(_) => true,
    }
}

/// Accumulates a word's value while walking its pieces.
struct Pieces<'a> {
    raw: &'a str,
    dialect: Dialect,
    value: String,
    runtime: Option<&'static str>,
    unquoted_brace: bool,
    unquoted_bracket: bool,
    /// Something other than a glob makes the value known only at run time (it may split).
    expands: bool,
}

impl<'a> Pieces<'a> {
    fn new(raw: &'a str, dialect: Dialect) -> Self {
        Self {
            raw,
            dialect,
            value: String::new(),
            runtime: None,
            unquoted_brace: false,
            unquoted_bracket: false,
            expands: false,
        }
    }

    /// Records an expansion other than a glob.
    fn expand(&mut self, why: &'static str) {
        self.runtime.get_or_insert(why);
        self.expands = true;
    }

    fn walk(&mut self, pieces: &[WordPieceWithSource], quoted: bool) -> Result<(), Deny> {
        for piece in pieces {
            self.piece(&piece.piece, quoted)?;
        }
        Ok(())
    }

    fn piece(&mut self, piece: &WordPiece, quoted: bool) -> Result<(), Deny> {
        match piece {
            WordPiece::Text(text) => {
                if !quoted {
                    if has_glob(text) {
                        self.runtime.get_or_insert("unquoted glob");
                    }
                    self.unquoted_brace |= text.contains('{');
                    self.unquoted_bracket |= text.contains('[');
                }
                self.value.push_str(text);
            }
            WordPiece::SingleQuotedText(text) => self.value.push_str(text),
            WordPiece::EscapeSequence(seq) => self.value.push_str(unescape(seq)),
            WordPiece::DoubleQuotedSequence(inner) => self.walk(inner, true)?,
            WordPiece::AnsiCQuotedText(_) | WordPiece::GettextDoubleQuotedSequence(_)
                if self.dialect == Dialect::Sh =>
            {
                return Err(Deny::at(
                    self.raw,
                    format!(
                        "`{}` uses bash-only quoting (`$'...'` or `$\"...\"`), which POSIX sh (dash) reads differently",
                        self.raw
                    ),
                ));
            }
            WordPiece::AnsiCQuotedText(_) => {
                self.expand("ANSI-C quoting");
            }
            WordPiece::GettextDoubleQuotedSequence(inner) => {
                self.walk(inner, true)?;
                self.expand("locale-translated string");
            }
            WordPiece::TildeExpansion(_) => {
                // Expands to a directory path; it can never become an option.
                self.value.push('~');
            }
            WordPiece::ParameterExpansion(expr) => {
                check_parameter(expr, self.raw)?;
                self.expand("parameter expansion");
            }
            WordPiece::CommandSubstitution(inner) => {
                return Err(Deny::at(
                    format!("$({inner})"),
                    format!("command substitution `$({inner})` runs a command"),
                ));
            }
            WordPiece::BackquotedCommandSubstitution(inner) => {
                return Err(Deny::at(
                    format!("`{inner}`"),
                    format!("command substitution `` `{inner}` `` runs a command"),
                ));
            }
            WordPiece::ArithmeticExpression(expr) => {
                return Err(Deny::at(
                    format!("$(({}))", expr.value),
                    format!(
                        "arithmetic expansion `$(({}))` is not analysed (it can assign and run code)",
                        expr.value
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// Only plain `$name`, `${name}`, `$1`, `$@`-style expansions are accepted: every other form
/// carries nested words, patterns, subscripts or indirection that bash evaluates.
fn check_parameter(expr: &ParameterExpr, raw: &str) -> Result<(), Deny> {
    let plain = match expr {
        ParameterExpr::Parameter {
            parameter,
            indirect: false,
        } => match parameter {
            Parameter::Positional(_) | Parameter::Special(_) => true,
            Parameter::Named(name) | Parameter::NamedWithAllIndices { name, .. } => is_name(name),
            Parameter::NamedWithIndex { .. } => false,
        },
        _ => false,
    };
    if plain {
        Ok(())
    } else {
        Err(Deny::at(
            raw,
            format!("parameter expansion in `{raw}` is not analysed (only plain `$name` is)"),
        ))
    }
}

/// Unquoted glob characters: `*`, `?` and the `extglob` forms `?( *( +( @( !(` (brackets are
/// checked on the whole word: a lone `[`, as in `[ -f x ]`, is literal).
fn has_glob(text: &str) -> bool {
    text.contains(['*', '?']) || text.contains("+(") || text.contains("@(") || text.contains("!(")
}

/// The value of an escape sequence: the escaped character, or nothing for a line continuation.
fn unescape(seq: &str) -> &str {
    let rest = seq.strip_prefix('\\').unwrap_or(seq);
    if rest == "\n" { "" } else { rest }
}

/// A shell variable name: a letter or `_`, then letters, digits and `_`.
pub(crate) fn is_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}
