//! Where a parsed word sits in the command line: the parser records positions in characters,
//! the classifier compares byte slices of the source with what the parser made of them.

use brush_parser::ast::Word;

/// The command line, with a character-to-byte table when it is not ASCII (built once, so
/// finding any word's text costs O(1)).
pub(crate) struct Source<'a> {
    /// The command line.
    pub text: &'a str,
    offsets: Option<Vec<usize>>,
}

impl<'a> Source<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        let offsets =
            (!text.is_ascii()).then(|| text.char_indices().map(|(i, _)| i).chain([text.len()]).collect());
        Self { text, offsets }
    }

    /// A word's byte span, when the parser recorded where it is.
    pub(crate) fn span(&self, word: &Word) -> Option<(usize, usize)> {
        let loc = word.loc.as_ref()?;
        let (start, end) = (loc.start.index, loc.end.index);
        if start > end {
            return None;
        }
        match &self.offsets {
            None => (end <= self.text.len()).then_some((start, end)),
            Some(offsets) => Some((*offsets.get(start)?, *offsets.get(end)?)),
        }
    }

    /// A word's source text, when the parser recorded where it is.
    pub(crate) fn text_of(&self, word: &Word) -> Option<&'a str> {
        let (start, end) = self.span(word)?;
        self.text.get(start..end)
    }
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
