//! `awk` programs that only read and print.
//!
//! awk can run commands (`system()`, `print | "cmd"`, `"cmd" | getline`), write files
//! (`print > "f"`, `printf >> "f"`), open network connections (gawk's `/inet/...` files in
//! those same redirections) and load code (`-f`, gawk's `@load`/`@include`, `-l`, `-i`) or write
//! profiles (`-p`, `-o`, `-d`). A sound check does not need a full awk parser: the program text
//! may hold no `|` (other than `||`), no `@`, none of the names `system`, `getline`, `ARGV`,
//! `ARGC` — looked for everywhere, string literals included — and no `>` between a
//! `print`/`printf` and the next `;` or `}` (line continuations and newlines after commas
//! continue a statement). That last scan skips string literals (`print "a > b"`) only when the
//! program has no `/`: a regular expression holding a quote (`/"/`) would otherwise make code
//! look like a string. A doubt refuses a harmless program instead of allowing a harmful one.

use super::Deny;
use super::options;
use super::words::Arg;

/// Names whose use is refused anywhere in the program.
const REFUSED_NAMES: &[(&str, &str)] = &[
    ("system", "runs a shell command"),
    ("getline", "reads from commands, files or the network"),
    ("ARGV", "changes which files are read"),
    ("ARGC", "changes which files are read"),
];

/// Checks an `awk` command line (the words after `awk`): only `-F` and `-v` options, a static
/// program that only prints, and operands that are files or `name=value` assignments.
pub(crate) fn check(name: &str, args: &[Arg]) -> Result<(), Deny> {
    let mut program: Option<&Arg> = None;
    let mut i = 0;
    let mut options_done = false;
    while let Some(arg) = args.get(i) {
        i += 1;
        if program.is_some() {
            // A pathname pattern names files (it cannot expand to an assignment to ARGV).
            if !(arg.path_glob && arg.value.is_none()) {
                operand(name, arg.require_static(name)?)?;
            }
            continue;
        }
        let value = arg.require_static(name)?;
        if !options_done && value == "--" {
            options_done = true;
        } else if !options_done && value.len() > 1 && value.starts_with('-') {
            let (option, attached) = value.split_at(2);
            let option_value = match (option, attached) {
                ("-F" | "-v", "") => {
                    let next = args
                        .get(i)
                        .ok_or_else(|| options::refused(name, value, "needs a value"))?;
                    i += 1;
                    next.require_static(name)?
                }
                ("-F" | "-v", attached) => attached,
                _ => {
                    return Err(options::refused(
                        name,
                        value,
                        "is not analysed (only `-F` and `-v` are; `-f` and gawk's options load code or write files)",
                    ));
                }
            };
            if option == "-v" {
                assignment(name, option_value)?;
            }
        } else {
            program = Some(arg);
        }
    }
    let program =
        program.ok_or_else(|| Deny::at(name, format!("`{name}` without a program is not analysed")))?;
    check_program(program.value.as_deref().unwrap_or_default())
        .map_err(|why| Deny::at(&program.raw, format!("{name} program `{}` {why}", program.raw)))
}

/// An operand after the program: a file to read or a `name=value` assignment.
fn operand(program: &str, value: &str) -> Result<(), Deny> {
    if value.starts_with("/inet") {
        return Err(Deny::at(
            value,
            format!("`{program} ... {value}` opens a network connection (gawk's special files)"),
        ));
    }
    match value.split_once('=') {
        Some((var, _)) if super::words::is_name(var) => assignment(program, value),
        _ => Ok(()),
    }
}

/// A `name=value` assignment to an awk variable: any but the ones that choose input files.
fn assignment(program: &str, text: &str) -> Result<(), Deny> {
    let var = text.split_once('=').map_or(text, |(v, _)| v);
    if matches!(var, "ARGV" | "ARGC") {
        return Err(Deny::at(
            text,
            format!("`{program}` assignment `{text}` changes which files are read"),
        ));
    }
    Ok(())
}

/// Checks an awk program's text; the error says what the program does.
fn check_program(program: &str) -> Result<(), String> {
    if program.contains('@') {
        return Err("uses gawk's `@` directives or indirect calls, which load or call code".into());
    }
    if program.replace("||", "").contains('|') {
        return Err("pipes to or from a command (`|`, also refused inside strings and regexes)".into());
    }
    for word in program.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
        if let Some((_, why)) = REFUSED_NAMES.iter().find(|(n, _)| *n == word) {
            return Err(format!("uses `{word}`, which {why}"));
        }
    }
    let code = if program.contains('/') {
        program.to_owned()
    } else {
        without_strings(program)?
    };
    for (at, _) in code.match_indices("print") {
        let starts_word = !code[..at].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
        let statement = &code[at..];
        let end = statement.find([';', '}']).unwrap_or(statement.len());
        if starts_word && statement[..end].contains('>') {
            return Err("redirects `print` output to a file (`>`)".into());
        }
    }
    Ok(())
}

/// The program with every string literal's contents removed (escapes included).
fn without_strings(program: &str) -> Result<String, String> {
    let mut code = String::with_capacity(program.len());
    let mut chars = program.chars();
    while let Some(c) = chars.next() {
        if c != '"' {
            code.push(c);
            continue;
        }
        code.push_str("\"\"");
        loop {
            match chars.next() {
                Some('\\') => {
                    chars.next();
                }
                Some('"') => break,
                Some(_) => {}
                None => return Err("has an unterminated string".into()),
            }
        }
    }
    Ok(code)
}
