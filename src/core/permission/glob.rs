//! `fnmatch.fnmatch` as AgentScope's file tools call it (POSIX, so case-sensitive): `*` matches any
//! run of characters (slashes and newlines included, so `**` is just `*`), `?` any one character,
//! `[...]` / `[!...]` a character class, anything else itself.
//!
//! [`Glob::compile`] ports CPython 3.11's `fnmatch.translate` step by step and refuses (returns
//! `None`) the rare class spellings whose regex meaning it cannot reproduce with certainty; those
//! rules are then left to the tool's own `match_rule`.

/// One character class (`[a-z_]`, `[!.]`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Class {
    negated: bool,
    singles: Vec<char>,
    ranges: Vec<(char, char)>,
}

impl Class {
    fn matches(&self, c: char) -> bool {
        let inside = self.singles.contains(&c) || self.ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi);
        inside != self.negated
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Star,
    Any,
    Literal(char),
    Class(Class),
}

/// A compiled fnmatch pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Glob {
    tokens: Vec<Token>,
}

impl Glob {
    /// Compiles `pattern`, or `None` when its meaning under Python's `re` is not certain to be
    /// reproduced (ranges in odd positions, patterns on which `fnmatch` itself raises).
    pub fn compile(pattern: &str) -> Option<Glob> {
        let p: Vec<char> = pattern.chars().collect();
        let n = p.len();
        let mut tokens = Vec::new();
        let mut i = 0;
        while i < n {
            let c = p[i];
            i += 1;
            match c {
                '*' => {
                    if tokens.last() != Some(&Token::Star) {
                        tokens.push(Token::Star);
                    }
                }
                '?' => tokens.push(Token::Any),
                '[' => {
                    let mut j = i;
                    if j < n && p[j] == '!' {
                        j += 1;
                    }
                    if j < n && p[j] == ']' {
                        j += 1;
                    }
                    while j < n && p[j] != ']' {
                        j += 1;
                    }
                    if j >= n {
                        tokens.push(Token::Literal('['));
                    } else {
                        tokens.push(class(&p, i, j)?);
                        i = j + 1;
                    }
                }
                other => tokens.push(Token::Literal(other)),
            }
        }
        Some(Glob { tokens })
    }

    /// Whether `name` (as characters) matches the whole pattern.
    pub fn is_match(&self, name: &[char]) -> bool {
        let toks = &self.tokens;
        let (mut p, mut t) = (0, 0);
        let mut backtrack: Option<(usize, usize)> = None;
        while t < name.len() {
            if let Some(tok) = toks.get(p) {
                let step = match tok {
                    Token::Star => {
                        backtrack = Some((p, t));
                        p += 1;
                        continue;
                    }
                    Token::Any => true,
                    Token::Literal(c) => *c == name[t],
                    Token::Class(class) => class.matches(name[t]),
                };
                if step {
                    p += 1;
                    t += 1;
                    continue;
                }
            }
            match backtrack {
                Some((star, from)) => {
                    p = star + 1;
                    t = from + 1;
                    backtrack = Some((star, from + 1));
                }
                None => return false,
            }
        }
        toks[p..].iter().all(|tok| *tok == Token::Star)
    }
}

/// The class `p[i..j]` (between `[` and `]`), following `fnmatch.translate`.
fn class(p: &[char], i: usize, j: usize) -> Option<Token> {
    let stuff = &p[i..j];
    if !stuff.contains(&'-') {
        let negated = stuff.first() == Some(&'!');
        let singles = stuff[usize::from(negated)..].to_vec();
        return Some(if negated && singles.is_empty() {
            Token::Any
        } else {
            Token::Class(Class {
                negated,
                singles,
                ranges: Vec::new(),
            })
        });
    }
    // The range branch: split at the hyphens that make ranges, exactly like translate() does.
    let mut chunks: Vec<Vec<char>> = Vec::new();
    let mut start = i;
    let mut k = if p[i] == '!' { i + 2 } else { i + 1 };
    while let Some(pos) = (k < j).then(|| p[k..j].iter().position(|&c| c == '-')).flatten() {
        let hyphen = k + pos;
        chunks.push(p[start..hyphen].to_vec());
        start = hyphen + 1;
        k = hyphen + 3;
    }
    let last = &p[start..j];
    if last.is_empty() {
        chunks.last_mut()?.push('-');
    } else {
        chunks.push(last.to_vec());
    }
    // Remove empty ranges (translate() indexes chunks here and would raise on an empty one).
    for k in (1..chunks.len()).rev() {
        let (prev_last, next_first) = (*chunks[k - 1].last()?, *chunks[k].first()?);
        if prev_last > next_first {
            let next = chunks.remove(k);
            let prev = &mut chunks[k - 1];
            prev.pop();
            prev.extend_from_slice(&next[1..]);
        }
    }
    let negated = chunks[0].first() == Some(&'!');
    if negated {
        chunks[0].remove(0);
    }
    let total: usize = chunks.iter().map(Vec::len).sum::<usize>() + chunks.len() - 1;
    if total == 0 {
        // translate() emits `(?!)` (nothing matches) or, negated, `.` (anything matches).
        return Some(if negated {
            Token::Any
        } else {
            Token::Class(Class {
                negated: false,
                singles: Vec::new(),
                ranges: Vec::new(),
            })
        });
    }
    // From here on only the unambiguous shape is reproduced: every chunk non-empty, interior
    // chunks at least two characters (so no character ends one range and starts the next), and
    // every range ordered (otherwise `re` raises).
    let last_index = chunks.len() - 1;
    let mut singles = Vec::new();
    let mut ranges = Vec::new();
    for (index, chunk) in chunks.iter().enumerate() {
        let interior = index > 0 && index < last_index;
        if chunk.is_empty() || (interior && chunk.len() < 2) {
            return None;
        }
        let from = usize::from(index > 0);
        let to = if index < last_index {
            chunk.len() - 1
        } else {
            chunk.len()
        };
        singles.extend_from_slice(&chunk[from..to.max(from)]);
        if index > 0 {
            let (lo, hi) = (*chunks[index - 1].last()?, chunk[0]);
            if lo > hi {
                return None;
            }
            ranges.push((lo, hi));
        }
    }
    Some(Token::Class(Class {
        negated,
        singles,
        ranges,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(name: &str, pattern: &str) -> bool {
        let chars: Vec<char> = name.chars().collect();
        Glob::compile(pattern).expect("compiles").is_match(&chars)
    }

    #[test]
    fn star_crosses_slashes_and_newlines() {
        assert!(m("src/a/b.py", "src/**"));
        assert!(m("src/a/b.py", "src/*"));
        assert!(m("src/a\nb", "src/*"));
        assert!(!m("lib/a.py", "src/**"));
        assert!(m("src", "src*"));
        assert!(m("a.py", "*.py") && !m("a.pyc", "*.py"));
        assert!(m("", "*") && !m("", "?"));
    }

    #[test]
    fn question_mark_and_classes() {
        assert!(m("a1", "a?") && !m("a", "a?"));
        assert!(m("b", "[abc]") && !m("d", "[abc]"));
        assert!(m("d", "[!abc]") && !m("a", "[!abc]"));
        assert!(m("q", "[a-z]") && !m("Q", "[a-z]"));
        assert!(m("-", "[a-]") && m("a", "[a-]"));
        assert!(m("]", "[]]") && m("x", "[!]]") && !m("]", "[!]]"));
        assert!(m("[", "[[]") && m("*", "[*]"));
        assert!(m("[ab", "[ab"), "an unclosed bracket is literal");
        assert!(!m("a", "[z-a]"), "an empty range matches nothing");
        assert!(m("a", "[!z-a]"), "a negated empty range matches anything");
        assert!(m("b", "[a-cx-z]") && m("y", "[a-cx-z]") && !m("m", "[a-cx-z]"));
        assert!(m("-", "[a-c-e]") && m("e", "[a-c-e]") && !m("d", "[a-c-e]"));
    }

    #[test]
    fn chained_ranges_and_merged_empty_ranges() {
        assert!(m("-", "[a-b-c-d]") && m("c", "[a-b-c-d]") && !m("e", "[a-b-c-d]"));
        assert!(m("a", "[ab-a]") && !m("b", "[ab-a]"));
        assert!(!m("b", "[b-a]"));
    }
}

#[cfg(test)]
mod props {
    use super::*;
    use proptest::prelude::*;

    /// Textbook recursive glob over `*`, `?` and literals (exponential, fine for short inputs).
    fn reference(p: &[char], s: &[char]) -> bool {
        match p.split_first() {
            None => s.is_empty(),
            Some(('*', rest)) => (0..=s.len()).any(|k| reference(rest, &s[k..])),
            Some(('?', rest)) => !s.is_empty() && reference(rest, &s[1..]),
            Some((c, rest)) => s.first() == Some(c) && reference(rest, &s[1..]),
        }
    }

    proptest! {
        #[test]
        fn star_question_literal_match_the_reference(p in "[ab*?/\n]{0,8}", s in "[ab/\n]{0,10}") {
            let pc: Vec<char> = p.chars().collect();
            let sc: Vec<char> = s.chars().collect();
            prop_assert_eq!(Glob::compile(&p).unwrap().is_match(&sc), reference(&pc, &sc));
        }

        #[test]
        fn compile_never_panics(p in "[ab!\\-\\[\\]*?^\\\\]{0,12}", s in "[ab!\\-\\[\\]^]{0,6}") {
            let sc: Vec<char> = s.chars().collect();
            if let Some(glob) = Glob::compile(&p) {
                let _ = glob.is_match(&sc);
            }
        }
    }
}
