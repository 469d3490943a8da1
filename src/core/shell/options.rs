//! Checking a program's options against what it must never be given.
//!
//! GNU `getopt_long` (and git's option parser) accept any unambiguous prefix of a long option,
//! so `--out=x` is `--output=x`: a long option is refused when it is a prefix of a refused name.
//! Every word that looks like an option is checked, even where it may be the value of the option
//! before it: a wrong guess then refuses a harmless command instead of allowing a harmful one.

use super::Deny;
use super::words::Arg;

/// Options that make a program write or run something, plus what operand counting must know.
pub(crate) struct OptSpec {
    /// Refused short options, each with what it does (`('o', "writes a file")`).
    pub deny_short: &'static [(char, &'static str)],
    /// Refused long options, without the dashes, each with what it does.
    pub deny_long: &'static [(&'static str, &'static str)],
    /// Short options that take a value (so the next word is not an operand).
    pub value_short: &'static str,
    /// Short options whose optional value can only be attached (`date -Iseconds`).
    pub attached_short: &'static str,
    /// Long options that take a value when written without `=`.
    pub value_long: &'static [&'static str],
}

impl OptSpec {
    /// A spec that refuses nothing and knows no option values.
    pub(crate) const NONE: Self = Self {
        deny_short: &[],
        deny_long: &[],
        value_short: "",
        attached_short: "",
        value_long: &[],
    };
}

/// Checks every option in `args` (the words after the program name) and returns the operands.
///
/// Words after `--` are operands and may be anything; before it, every word must be static
/// (an unknown value could turn out to be an option) or a pathname pattern that cannot expand
/// to one (`src/*.rs`, an operand that may expand to several).
pub(crate) fn operands<'a>(program: &str, args: &'a [Arg], spec: &OptSpec) -> Result<Vec<&'a Arg>, Deny> {
    let mut operands = Vec::new();
    let mut takes_value = false;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if arg.path_glob && arg.value.is_none() {
            if !std::mem::take(&mut takes_value) {
                operands.push(arg);
            }
            continue;
        }
        let value = arg.require_static(program)?;
        if value == "--" {
            operands.extend(iter);
            break;
        }
        let is_option = value.len() > 1 && value.starts_with('-');
        if is_option {
            takes_value = check_option(program, value, spec)?;
        } else if std::mem::take(&mut takes_value) {
            // The value of the previous option, not an operand.
        } else {
            operands.push(arg);
        }
    }
    Ok(operands)
}

/// Checks one option word (`-x...` or `--name[=value]`); returns whether the next word is its value.
pub(crate) fn check_option(program: &str, word: &str, spec: &OptSpec) -> Result<bool, Deny> {
    if let Some(long) = word.strip_prefix("--") {
        let (name, inline) = match long.split_once('=') {
            Some((name, _)) => (name, true),
            None => (long, false),
        };
        if let Some((full, why)) = spec
            .deny_long
            .iter()
            .find(|(full, _)| !name.is_empty() && full.starts_with(name))
        {
            return Err(refused_long(program, word, full, why));
        }
        return Ok(!inline && spec.value_long.contains(&name));
    }
    let cluster = &word[1..];
    for (i, c) in cluster.char_indices() {
        if let Some((_, why)) = spec.deny_short.iter().find(|(d, _)| *d == c) {
            return Err(refused_short(program, word, c, why));
        }
        if spec.value_short.contains(c) {
            return Ok(i + c.len_utf8() == cluster.len());
        }
        if spec.attached_short.contains(c) {
            return Ok(false);
        }
    }
    Ok(false)
}

/// The denial for a refused word: "`sort -o` writes a file".
pub(crate) fn refused(program: &str, word: &str, what: &str) -> Deny {
    Deny::at(word, format!("`{program} {word}` {what}"))
}

/// The denial for a refused short option `c` inside `word`: "`sort -uo` (`-o`) writes a file".
pub(crate) fn refused_short(program: &str, word: &str, c: char, why: &str) -> Deny {
    let named = if word.len() == 1 + c.len_utf8() {
        String::new()
    } else {
        format!("(`-{c}`) ")
    };
    refused(program, word, &format!("{named}{why}"))
}

/// The denial for a refused long option `full`, possibly abbreviated or with a value in `word`:
/// "`sort --out=x` (`--output`) writes a file".
pub(crate) fn refused_long(program: &str, word: &str, full: &str, why: &str) -> Deny {
    let named = if word == format!("--{full}") {
        String::new()
    } else {
        format!("(`--{full}`) ")
    };
    refused(program, word, &format!("{named}{why}"))
}

/// Resolves a long option name the way `getopt_long` does: an exact match, or the only name
/// it is a prefix of. `None` when it is unknown or ambiguous.
pub(crate) fn resolve_long<'a>(name: &str, known: &[&'a str]) -> Option<&'a str> {
    if let Some(exact) = known.iter().find(|k| **k == name) {
        return Some(exact);
    }
    let mut matches = known.iter().filter(|k| !name.is_empty() && k.starts_with(name));
    match (matches.next(), matches.next()) {
        (Some(only), None) => Some(only),
        _ => None,
    }
}
