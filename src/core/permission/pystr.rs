//! Python `str` semantics the matchers must reproduce exactly.

/// Python's `str.isspace()` for one character (CPython 3.11, Unicode 14).
pub fn py_isspace(c: char) -> bool {
    matches!(
        c,
        '\u{9}'..='\u{d}'
            | '\u{1c}'..='\u{20}'
            | '\u{85}'
            | '\u{a0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202f}'
            | '\u{205f}'
            | '\u{3000}'
    )
}

/// Python's `s.strip()`.
pub fn py_strip(s: &str) -> &str {
    s.trim_matches(py_isspace)
}

/// Python's `s.rstrip()`.
pub fn py_rstrip(s: &str) -> &str {
    s.trim_end_matches(py_isspace)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_is_pythons_set_not_rusts() {
        // Python counts the information separators as whitespace, Rust does not.
        assert!(py_isspace('\u{1c}') && !'\u{1c}'.is_whitespace());
        // Rust counts NEXT LINE and friends too; both agree there.
        assert!(py_isspace('\u{85}') && py_isspace('\u{3000}'));
        assert!(!py_isspace('\u{180e}') && !py_isspace('\u{200b}') && !py_isspace('x'));
        assert_eq!(py_strip("\u{1f} git \t"), "git");
        assert_eq!(py_rstrip("  a b\u{a0}"), "  a b");
    }
}
