//! Limits checked on the raw text before the parser sees it, so that no input can make the
//! parser run out of time, memory or stack: every check is one linear scan, and every refusal
//! names the limit and how to stay under it.
//!
//! The parser (`brush-parser`) recurses once per nesting level, loops forever on a here-document
//! whose delimiter unquotes to nothing, and backtracks exponentially on nested unclosed
//! substitutions; these scans keep it away from each of those.

use super::Deny;

/// Longest command line analysed, in bytes; longer input is refused without being parsed.
pub const MAX_COMMAND_BYTES: usize = 64 * 1024;

/// Most nesting openers (`(`, `{`, backquotes, `!`, compound-command keywords, wrappers and
/// `find -exec`) analysed: the parser and the classifier recurse once per level, so deeper input is
/// refused before it could exhaust the stack.
pub const MAX_NESTING: usize = 48;

/// Most command or arithmetic substitution openers (`$(`, `` ` ``, `$[`) in one word: each one is
/// refused anyway, so more only cost parsing time (which grows with every unclosed level).
pub(crate) const MAX_WORD_SUBSTITUTIONS: usize = 2;

/// Checks every limit; `Ok` means the parser may run on `command`.
pub(crate) fn check(command: &str) -> Result<(), Deny> {
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
    let blank_after = |i: usize| matches!(command.as_bytes().get(i + 2), Some(b' ' | b'\t' | b'\n'));
    if memchr::memmem::find_iter(command.as_bytes(), b"[[").any(blank_after) {
        // `[[ ... ]]` is refused wherever it starts a command, and its expression tree recurses
        // once per operator (`[[ a && a && ... ]]`), so it is not parsed at all (`[[:space:]]`
        // in a pattern has no blank after the brackets and is not affected).
        return Err(Deny::at(
            "[[",
            "`[[ ... ]]` is not analysed (it evaluates arithmetic and array subscripts)",
        ));
    }
    empty_here_document_delimiter(command)
}

/// An upper bound on how deeply `command` can nest: every bracket, backquote, `!`, word that
/// could open a compound command and word that runs a nested command (a wrapper, `find -exec`)
/// counts, wherever it is (over-counting only makes the check stricter).
pub(crate) fn nesting_openers(command: &str) -> usize {
    const OPENING_WORDS: [&str; 14] = [
        "if", "while", "until", "for", "case", "select", "function", "env", "time", "nice", "timeout",
        "command", "exec", "execdir",
    ];
    let brackets = command
        .bytes()
        .filter(|b| matches!(b, b'(' | b'{' | b'`' | b'!'))
        .count();
    let keywords = command
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| OPENING_WORDS.contains(w))
        .count();
    brackets + keywords
}

/// Refuses `<<""`, `<<-''`, `<<$''` and the like: a delimiter made only of quotes, which the
/// parser would match against an empty line forever.
fn empty_here_document_delimiter(command: &str) -> Result<(), Deny> {
    let bytes = command.as_bytes();
    let mut from = 0;
    while let Some(at) = memchr::memmem::find(&bytes[from..], b"<<").map(|i| from + i) {
        let mut i = at + 2;
        from = i;
        if bytes.get(i) == Some(&b'<') {
            from = i + 1;
            continue;
        }
        if bytes.get(i) == Some(&b'-') {
            i += 1;
        }
        while matches!(bytes.get(i), Some(b' ' | b'\t')) {
            i += 1;
        }
        let word: Vec<u8> = bytes[i..]
            .iter()
            .copied()
            .take_while(|b| !b" \t\n;&|<>()".contains(b))
            .collect();
        let quotes_only = !word.is_empty() && word.iter().all(|b| b"'\"\\$".contains(b));
        let balanced = |q: u8| word.iter().filter(|b| **b == q).count() % 2 == 0;
        if quotes_only && balanced(b'\'') && balanced(b'"') {
            let shown = String::from_utf8_lossy(&bytes[at..i + word.len()]).into_owned();
            return Err(Deny::at(
                &shown,
                format!("here-document `{shown}` has an empty delimiter, which is not analysed"),
            ));
        }
    }
    Ok(())
}

/// Whether a word's raw text holds more substitution openers than [`MAX_WORD_SUBSTITUTIONS`].
pub(crate) fn too_many_substitutions(raw: &str) -> bool {
    raw.matches("$(").count() + raw.matches('`').count() + raw.matches("$[").count() > MAX_WORD_SUBSTITUTIONS
}
