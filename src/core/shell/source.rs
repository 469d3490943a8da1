//! Where a parsed word sits in the command line: the parser records positions in characters,
//! the classifier compares byte slices of the source with what the parser made of them.

use brush_parser::ast::Word;

/// A word's byte span in `source`, when the parser recorded where it is.
pub(crate) fn span(source: &str, word: &Word) -> Option<(usize, usize)> {
    let loc = word.loc.as_ref()?;
    let (start, end) = (loc.start.index, loc.end.index);
    if start > end {
        return None;
    }
    if source.is_ascii() {
        return (end <= source.len()).then_some((start, end));
    }
    let mut offsets = source.char_indices().map(|(i, _)| i).chain([source.len()]);
    let from = offsets.nth(start)?;
    let to = if end == start {
        from
    } else {
        offsets.nth(end - start - 1)?
    };
    Some((from, to))
}

/// A word's source text, when the parser recorded where it is.
pub(crate) fn text_of<'a>(source: &'a str, word: &Word) -> Option<&'a str> {
    let (start, end) = span(source, word)?;
    source.get(start..end)
}

/// Whether `value` (a word as parsed) is `text` (its source) as the shell reads it: equal once
/// line continuations are removed from both (the span of a word after one starts at it).
pub(crate) fn same_word(text: &str, value: &str) -> bool {
    let text = text.trim_start_matches([' ', '\t']);
    if text == value {
        return true;
    }
    let squeeze = |s: &str| s.replace("\\\n", "");
    squeeze(text).trim_start_matches([' ', '\t']) == squeeze(value)
}
