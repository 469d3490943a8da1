//! `sed` without in-place editing, script files, or the script commands that write files (`w`,
//! `W`, `s///w`) or run commands (`e`, `s///e`).
//!
//! The script is parsed the way GNU sed reads it: delimiters scanned like its `match_slash`
//! (a backslash escapes the next character, no bracket awareness), `a`/`i`/`c` text and `r`/`R`
//! file names to the end of the line. Where the reading of a label is uncertain, the parser
//! reads *more* commands, so a doubt refuses a harmless script rather than hiding a `w`.

use super::Deny;
use super::options::{self, resolve_long};
use super::words::Arg;

const NAME: &str = "sed";

/// GNU sed's long options (for abbreviation), and which are refused or take a value.
const LONG: &[&str] = &[
    "expression",
    "file",
    "in-place",
    "line-length",
    "null-data",
    "zero-terminated",
    "quiet",
    "silent",
    "regexp-extended",
    "separate",
    "sandbox",
    "unbuffered",
    "posix",
    "debug",
    "follow-symlinks",
    "binary",
    "help",
    "version",
];

/// Checks a `sed` command line (the words after `sed`).
pub(crate) fn check(_name: &str, args: &[Arg]) -> Result<(), Deny> {
    let mut scripts: Vec<(&str, &str)> = Vec::new(); // (script, the word it came from)
    let mut operands: Vec<&Arg> = Vec::new();
    let mut wants_value: Option<bool> = None; // Some(true): a script; Some(false): a number
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if arg.path_glob && arg.value.is_none() && wants_value.is_none() {
            operands.push(arg);
            continue;
        }
        let value = arg.require_static(NAME)?;
        if let Some(is_script) = wants_value.take() {
            if is_script {
                scripts.push((value, &arg.raw));
            }
        } else if value == "--" {
            operands.extend(iter.by_ref());
        } else if let Some(long) = value.strip_prefix("--") {
            let (name, inline) = long.split_once('=').map_or((long, None), |(n, v)| (n, Some(v)));
            match resolve_long(name, LONG) {
                Some(full @ "in-place") => return Err(options::refused_long(NAME, value, full, IN_PLACE)),
                Some(full @ "file") => return Err(options::refused_long(NAME, value, full, READS_SCRIPT)),
                Some("expression") => match inline {
                    Some(script) => scripts.push((script, &arg.raw)),
                    None => wants_value = Some(true),
                },
                Some("line-length") => wants_value = inline.is_none().then_some(false),
                Some(_) => {}
                None => return Err(options::refused(NAME, value, "is not a known sed option")),
            }
        } else if value.len() > 1 && value.starts_with('-') {
            wants_value = short_cluster(value, &arg.raw, &mut scripts)?;
        } else {
            operands.push(arg);
        }
    }
    if scripts.is_empty() {
        let script = operands
            .first()
            .ok_or_else(|| Deny::at(NAME, "`sed` without a script is not analysed"))?;
        scripts.push((script.require_static(NAME)?, &script.raw));
    }
    for (script, raw) in scripts {
        check_script(script, raw)?;
    }
    Ok(())
}

const READS_SCRIPT: &str = "reads its script from a file, which is not checked";
const IN_PLACE: &str = "edits files in place";

/// Checks a short option cluster (`-n`, `-nE`, `-e SCRIPT`, `-ne's/a/b/'`), collecting an inline
/// script; returns whether the next word is a value, and whether that value is a script.
fn short_cluster<'a>(
    word: &'a str,
    raw: &'a str,
    scripts: &mut Vec<(&'a str, &'a str)>,
) -> Result<Option<bool>, Deny> {
    let cluster = &word[1..];
    for (i, c) in cluster.char_indices() {
        let rest = &cluster[i + c.len_utf8()..];
        match c {
            'n' | 'E' | 'r' | 's' | 'u' | 'z' => {}
            'e' | 'l' if rest.is_empty() => return Ok(Some(c == 'e')),
            'e' => {
                scripts.push((rest, raw));
                return Ok(None);
            }
            'l' => return Ok(None),
            'i' => return Err(options::refused_short(NAME, word, c, IN_PLACE)),
            'f' => return Err(options::refused_short(NAME, word, c, READS_SCRIPT)),
            _ => return Err(options::refused_short(NAME, word, c, "is not a known sed option")),
        }
    }
    Ok(None)
}

/// Checks one sed script; `raw` is the word it came from, for the reason.
fn check_script(script: &str, raw: &str) -> Result<(), Deny> {
    Script {
        chars: script.chars().collect(),
        at: 0,
    }
    .commands()
    .map_err(|why| Deny::at(raw, format!("sed script `{script}`: {why}")))
}

/// A cursor over a sed script.
struct Script {
    chars: Vec<char>,
    at: usize,
}

impl Script {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek();
        self.at += usize::from(c.is_some());
        c
    }

    fn skip_while(&mut self, keep: impl Fn(char) -> bool) {
        while self.peek().is_some_and(&keep) {
            self.at += 1;
        }
    }

    fn skip_blanks(&mut self) {
        self.skip_while(|c| c == ' ' || c == '\t');
    }

    fn skip_line(&mut self) {
        self.skip_while(|c| c != '\n');
    }

    fn commands(&mut self) -> Result<(), String> {
        let mut depth = 0usize;
        loop {
            self.skip_while(|c| c.is_whitespace() || c == ';');
            let Some(first) = self.peek() else {
                return if depth == 0 {
                    Ok(())
                } else {
                    Err("unmatched `{`".into())
                };
            };
            if first == '#' {
                self.skip_line();
                continue;
            }
            self.addresses()?;
            self.skip_blanks();
            while self.peek() == Some('!') {
                self.at += 1;
                self.skip_blanks();
            }
            let command = self.next().ok_or("missing command")?;
            match command {
                '{' => depth += 1,
                '}' => {
                    depth = depth.checked_sub(1).ok_or("unexpected `}`")?;
                    self.end_of_command()?;
                }
                '=' | 'd' | 'D' | 'g' | 'G' | 'h' | 'H' | 'n' | 'N' | 'p' | 'P' | 'x' | 'z' | 'F' => {
                    self.end_of_command()?;
                }
                'l' | 'L' | 'q' | 'Q' => {
                    self.skip_blanks();
                    self.skip_while(|c| c.is_ascii_digit());
                    self.end_of_command()?;
                }
                // Labels end at a blank or `;` here, so anything after one is read as commands.
                ':' | 'b' | 't' | 'T' | 'v' => {
                    self.skip_blanks();
                    self.skip_while(|c| !c.is_whitespace() && c != ';');
                }
                'a' | 'i' | 'c' => self.text(),
                'r' | 'R' => self.skip_line(),
                's' => self.substitute()?,
                'y' => {
                    let delimiter = self.delimiter()?;
                    self.delimited(delimiter)?;
                    self.delimited(delimiter)?;
                    self.end_of_command()?;
                }
                'w' | 'W' => return Err(format!("`{command}` writes a file")),
                'e' => return Err("`e` runs a shell command".into()),
                other => return Err(format!("unknown command `{other}`")),
            }
        }
    }

    /// `a`, `i`, `c` text: to the end of the line, continued by a trailing backslash.
    fn text(&mut self) {
        let mut escaped = false;
        while let Some(c) = self.next() {
            if c == '\n' && !escaped {
                return;
            }
            escaped = c == '\\' && !escaped;
        }
    }

    fn addresses(&mut self) -> Result<(), String> {
        if self.address()? {
            self.skip_blanks();
            if self.peek() == Some(',') {
                self.at += 1;
                self.skip_blanks();
                if matches!(self.peek(), Some('+' | '~')) {
                    self.at += 1;
                }
                if !self.address()? {
                    return Err("missing second address".into());
                }
            }
        }
        Ok(())
    }

    /// One address: a line number (with `~step`), `$`, `/re/` or `\cREc` (with `I`/`M` flags).
    fn address(&mut self) -> Result<bool, String> {
        match self.peek() {
            Some(c) if c.is_ascii_digit() => {
                self.skip_while(|c| c.is_ascii_digit());
                if self.peek() == Some('~') {
                    self.at += 1;
                    self.skip_while(|c| c.is_ascii_digit());
                }
            }
            Some('$') => self.at += 1,
            Some('/') => {
                self.at += 1;
                self.delimited('/')?;
                self.skip_while(|c| c == 'I' || c == 'M');
            }
            Some('\\') => {
                self.at += 1;
                let delimiter = self.delimiter()?;
                self.delimited(delimiter)?;
                self.skip_while(|c| c == 'I' || c == 'M');
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn delimiter(&mut self) -> Result<char, String> {
        match self.next() {
            Some('\n' | '\\') | None => Err("bad delimiter".into()),
            Some(d) => Ok(d),
        }
    }

    /// Skips to just past the next unescaped `delimiter`.
    fn delimited(&mut self, delimiter: char) -> Result<(), String> {
        while let Some(c) = self.next() {
            match c {
                '\\' => {
                    self.next().ok_or("unterminated expression")?;
                }
                '\n' => return Err("unterminated expression".into()),
                c if c == delimiter => return Ok(()),
                _ => {}
            }
        }
        Err("unterminated expression".into())
    }

    fn substitute(&mut self) -> Result<(), String> {
        let delimiter = self.delimiter()?;
        self.delimited(delimiter)?;
        self.delimited(delimiter)?;
        while let Some(flag) = self.peek() {
            match flag {
                'g' | 'p' | 'i' | 'I' | 'm' | 'M' | '0'..='9' => self.at += 1,
                'w' => return Err("the `w` flag writes a file".into()),
                'e' => return Err("the `e` flag runs the pattern space as a command".into()),
                _ => break,
            }
        }
        self.end_of_command()
    }

    /// After a command: blanks, then the end, a newline, `;`, `}` or a comment.
    fn end_of_command(&mut self) -> Result<(), String> {
        self.skip_blanks();
        match self.peek() {
            None | Some('\n' | ';' | '}' | '#') => Ok(()),
            Some(c) => Err(format!("unexpected `{c}` after a command")),
        }
    }
}
