//! Here-documents, checked against the source text so that the parser's idea of where a body
//! starts and ends is the shell's.
//!
//! Only the delimiter forms every shell reads alike are accepted: a plain name (`EOF`), or the
//! name in single or double quotes or after one backslash (`'EOF'`, `"EOF"`, `\EOF`, bodies
//! taken literally). `$'EOF'`, `$"EOF"`, partly quoted names, line continuations and empty
//! delimiters end the body elsewhere in some shell than in another, so they are refused. The
//! body must end at the first line that is exactly the delimiter, must hold no backslash-newline
//! (bash and dash join those lines before looking for the delimiter, the parser does not), and
//! the text between the operator and the end of its line must hold no quotes or backslashes (the
//! body starts after the first *unquoted* newline). An unquoted body is expanded by the shell:
//! it may hold plain `$name` / `${name}` but no command or arithmetic substitution, which is
//! found by a scan of its text (not by a parser, which backtracks on unclosed `$((`).

use brush_parser::ast::IoHereDocument;

use super::Deny;
use super::source::Source;
use super::words::is_name;

/// Checks one here-document parsed from `source`.
pub(crate) fn check(doc: &IoHereDocument, source: &Source) -> Result<(), Deny> {
    let delimiter_text = source.text_of(&doc.here_end).ok_or_else(unlocated)?;
    let (name, quoted) = delimiter(delimiter_text).ok_or_else(|| {
        Deny::at(
            delimiter_text,
            format!(
                "here-document delimiter `{delimiter_text}` is not a plain name (optionally in '...', \"...\" or after \\), so shells may end the body in different places"
            ),
        )
    })?;
    if doc.requires_expansion == quoted {
        return Err(mismatch(delimiter_text));
    }
    let (body_start, body_end) = source.span(&doc.doc).ok_or_else(unlocated)?;
    let (_, delimiter_end) = source.span(&doc.here_end).ok_or_else(unlocated)?;
    let between = source.text.get(delimiter_end..body_start).ok_or_else(unlocated)?;
    let rest_of_line = between.split('\n').next().unwrap_or_default();
    if !between.contains('\n') || rest_of_line.contains(['\'', '"', '\\', '`', '$']) {
        return Err(Deny::at(
            rest_of_line,
            format!(
                "the line of here-document `<<{delimiter_text}` goes on with quotes or escapes (`{rest_of_line}`), so where its body starts is not analysed"
            ),
        ));
    }
    let text = source.text.get(body_start..body_end).ok_or_else(unlocated)?;
    let body = body_lines(text, name, doc.remove_tabs).ok_or_else(|| mismatch(delimiter_text))?;
    if body.contains("\\\n") {
        return Err(Deny::at(
            delimiter_text,
            format!(
                "here-document `<<{delimiter_text}` has a line ending in a backslash, which shells join with the next line"
            ),
        ));
    }
    if body != doc.doc.value {
        return Err(mismatch(delimiter_text));
    }
    if doc.requires_expansion {
        check_expansions(&body, delimiter_text)?;
    }
    Ok(())
}

/// The delimiter's name and whether it is quoted, for the accepted forms.
fn delimiter(text: &str) -> Option<(&str, bool)> {
    let plain = |name: &str| !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    let quoted = ['\'', '"']
        .iter()
        .find_map(|q| text.strip_prefix(*q).and_then(|t| t.strip_suffix(*q)))
        .or_else(|| text.strip_prefix('\\'));
    match quoted {
        Some(name) if plain(name) => Some((name, true)),
        None if plain(text) => Some((text, false)),
        _ => None,
    }
}

/// The body as the shell reads it from `text` (the body and its closing delimiter line), or
/// `None` when the last line is not the delimiter or an earlier one is.
fn body_lines(text: &str, name: &str, remove_tabs: bool) -> Option<String> {
    let strip = |line: &'_ str| -> String {
        let line = if remove_tabs {
            line.trim_start_matches('\t')
        } else {
            line
        };
        line.to_owned()
    };
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let (last, body) = lines.split_last()?;
    if strip(last.strip_suffix('\n').unwrap_or(last)) != name {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    for line in body {
        let line = strip(line);
        if line.strip_suffix('\n').unwrap_or(&line) == name {
            return None;
        }
        out.push_str(&line);
    }
    Some(out)
}

/// Refuses command and arithmetic substitution in an unquoted body: looked for with every
/// backslash and newline removed (so `$\` + newline + `(` and `\$(` both count).
fn check_expansions(body: &str, delimiter: &str) -> Result<(), Deny> {
    let squeezed: String = body.chars().filter(|c| !matches!(c, '\\' | '\n')).collect();
    let refuse = |what: &str| {
        Err(Deny::at(
            body,
            format!("here-document `<<{delimiter}` is expanded and holds {what}, which runs code"),
        ))
    };
    if squeezed.contains("$((") || squeezed.contains("$[") {
        return refuse("arithmetic expansion");
    }
    if squeezed.contains('`') || squeezed.contains("$(") {
        return refuse("command substitution");
    }
    for (at, _) in squeezed.match_indices("${") {
        let rest = &squeezed[at + 2..];
        let plain = rest.split_once('}').is_some_and(|(name, _)| is_name(name));
        if !plain {
            return refuse("a parameter expansion other than `${name}`");
        }
    }
    Ok(())
}

fn unlocated() -> Deny {
    Deny::whole("the parser did not record where a here-document is, so it is not analysed")
}

fn mismatch(delimiter: &str) -> Deny {
    Deny::at(
        delimiter,
        format!(
            "the parser reads here-document `<<{delimiter}` differently from the shell, so it is not analysed"
        ),
    )
}
