//! A command line split into the simple commands it runs and the files its redirections write,
//! for judging each part on its own (a plan's command patterns match one simple command each,
//! so `pytest; rm -rf x` cannot pass as `pytest*`).
//!
//! Parsed like the classifier parses (budget first, bash and POSIX sh must read the line alike),
//! and as strict about words: a word whose value is only known at run time (parameter or command
//! substitution, brace expansion...) makes the line unanalysable, except an unquoted glob, which
//! is kept as written. Lists (`;`, `&`, `&&`, `||`, newlines), pipelines, `!`, `{ ...; }` and
//! `( ... )` are looked into; every other compound command, a function definition, process
//! substitution and `[[ ... ]]` make the line unanalysable.

use brush_parser::ast::{
    Command, CommandPrefixOrSuffixItem, CompoundCommand, CompoundList, IoFileRedirectKind,
    IoFileRedirectTarget, IoRedirect, SimpleCommand, Word,
};

use super::source::Source;
use super::{Deny, Dialect, budget, heredoc, parse, parsed_differently_as_sh, parser_options, words};

/// What a command line runs: each simple command as one line of words, and the files written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CommandParts {
    /// Each simple command, its words (assignments included) joined by one blank; a word that
    /// is not plain is shown single-quoted (`git commit -m 'fix it'`).
    pub commands: Vec<String>,
    /// The targets of output redirections (`> f`, `>> f`, `&> f`, `<> f`), as written after
    /// quote removal; `/dev/null` is left out.
    pub writes: Vec<String>,
}

/// Splits `command` (as `/bin/sh -c` runs it); `Err` says why it cannot be analysed.
pub fn simple_commands(command: &str) -> Result<CommandParts, String> {
    let outcome = std::panic::catch_unwind(|| split(command))
        .unwrap_or_else(|_| Err(Deny::whole("cannot parse: the parser failed on this input")));
    outcome.map_err(|d| match d.offending {
        Some(part) => format!("{} (at `{part}`)", d.reason),
        None => d.reason,
    })
}

fn split(command: &str) -> Result<CommandParts, Deny> {
    budget::check(command)?;
    let options = parser_options(false);
    let program = parse(command, &options)?;
    if parsed_differently_as_sh(command) {
        let sh = parse(command, &parser_options(true))?;
        if sh.to_string() != program.to_string() {
            return Err(Deny::whole(
                "bash and POSIX sh read this line as different commands",
            ));
        }
    }
    let mut splitter = Splitter {
        parts: CommandParts::default(),
        options: &options,
        source: Source::new(command),
    };
    for list in &program.complete_commands {
        splitter.list(list)?;
    }
    if splitter.parts.commands.is_empty() && splitter.parts.writes.is_empty() {
        return Err(Deny::whole("empty command: nothing to run"));
    }
    Ok(splitter.parts)
}

struct Splitter<'o> {
    parts: CommandParts,
    options: &'o brush_parser::ParserOptions,
    source: Source<'o>,
}

impl Splitter<'_> {
    fn list(&mut self, list: &CompoundList) -> Result<(), Deny> {
        for item in &list.0 {
            for (_, pipeline) in &item.0 {
                for command in &pipeline.seq {
                    self.command(command)?;
                }
            }
        }
        Ok(())
    }

    fn command(&mut self, command: &Command) -> Result<(), Deny> {
        match command {
            Command::Simple(simple) => self.simple(simple),
            Command::Compound(CompoundCommand::BraceGroup(g), redirects) => {
                self.list(&g.list)?;
                redirects
                    .iter()
                    .flat_map(|r| &r.0)
                    .try_for_each(|r| self.redirect(r))
            }
            Command::Compound(CompoundCommand::Subshell(s), redirects) => {
                self.list(&s.list)?;
                redirects
                    .iter()
                    .flat_map(|r| &r.0)
                    .try_for_each(|r| self.redirect(r))
            }
            other => Err(Deny::at(
                other.to_string(),
                "only simple commands, lists, pipelines, `{ ...; }` and `( ... )` are matched against the scope",
            )),
        }
    }

    fn simple(&mut self, simple: &SimpleCommand) -> Result<(), Deny> {
        let mut shown: Vec<String> = Vec::new();
        let items = simple
            .prefix
            .iter()
            .flat_map(|p| &p.0)
            .map(Some)
            .chain(simple.word_or_name.iter().map(|_| None))
            .chain(simple.suffix.iter().flat_map(|s| &s.0).map(Some));
        for item in items {
            match item {
                None => {
                    if let Some(name) = &simple.word_or_name {
                        shown.push(self.word(name)?);
                    }
                }
                Some(CommandPrefixOrSuffixItem::IoRedirect(r)) => self.redirect(r)?,
                Some(CommandPrefixOrSuffixItem::ProcessSubstitution(..)) => {
                    return Err(Deny::whole("process substitution runs a command"));
                }
                Some(
                    CommandPrefixOrSuffixItem::Word(w) | CommandPrefixOrSuffixItem::AssignmentWord(_, w),
                ) => shown.push(self.word(w)?),
            }
        }
        if !shown.is_empty() {
            self.parts.commands.push(shown.join(" "));
        }
        Ok(())
    }

    /// A word as shown in a simple command's line (its static value, quoted when not plain).
    fn word(&self, word: &Word) -> Result<String, Deny> {
        if let Some(text) = self.source.text_of(word)
            && !super::source::same_word(text, &word.value)
        {
            return Err(Deny::at(
                text,
                "the parser reads this word differently from how it is written",
            ));
        }
        let arg = words::analyse(word, self.options, Dialect::Sh)?;
        match (arg.value, arg.runtime) {
            (Some(value), _) => Ok(quoted(&value)),
            (None, Some("unquoted glob")) => Ok(arg.raw),
            (None, why) => Err(Deny::at(
                &arg.raw,
                format!(
                    "word `{}` is only known at run time ({})",
                    arg.raw,
                    why.unwrap_or("expansion")
                ),
            )),
        }
    }

    /// The static value of a redirection target.
    fn target(&self, word: &Word) -> Result<String, Deny> {
        let arg = words::analyse(word, self.options, Dialect::Sh)?;
        arg.value.ok_or_else(|| {
            Deny::at(
                &arg.raw,
                format!("redirection target `{}` is only known at run time", arg.raw),
            )
        })
    }

    fn write(&mut self, word: &Word) -> Result<(), Deny> {
        let target = self.target(word)?;
        if target != "/dev/null" {
            self.parts.writes.push(target);
        }
        Ok(())
    }

    fn redirect(&mut self, redirect: &IoRedirect) -> Result<(), Deny> {
        match redirect {
            IoRedirect::File(_, kind, target) => match target {
                IoFileRedirectTarget::ProcessSubstitution(..) => {
                    Err(Deny::whole("process substitution runs a command"))
                }
                IoFileRedirectTarget::Fd(_) => Ok(()),
                IoFileRedirectTarget::Duplicate(word) => {
                    let value = self.target(word)?;
                    let digits = value.strip_suffix('-').unwrap_or(&value);
                    let fd_like =
                        value == "-" || (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()));
                    match kind {
                        _ if fd_like => Ok(()),
                        IoFileRedirectKind::DuplicateInput => Ok(()),
                        _ => self.write(word),
                    }
                }
                IoFileRedirectTarget::Filename(word) => match kind {
                    IoFileRedirectKind::Read => self.target(word).map(drop),
                    _ => self.write(word),
                },
            },
            IoRedirect::OutputAndError(word, _) => self.write(word),
            IoRedirect::HereDocument(_, doc) => heredoc::check(doc, &self.source),
            IoRedirect::HereString(_, word) => self.target(word).map(drop),
        }
    }
}

/// `value` as one shell word: as is when plain, else in single quotes.
fn quoted(value: &str) -> String {
    let plain = !value.is_empty()
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_-+=:,./@%^".contains(&b));
    if plain {
        value.to_string()
    } else {
        format!("'{}'", value.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(cmd: &str) -> CommandParts {
        simple_commands(cmd).unwrap_or_else(|e| panic!("{cmd}: {e}"))
    }

    #[test]
    fn splits_lists_pipelines_and_groups() {
        assert_eq!(parts("pytest -q; rm -rf x").commands, ["pytest -q", "rm -rf x"]);
        assert_eq!(
            parts("a && b || c | d & e\nf").commands,
            ["a", "b", "c", "d", "e", "f"]
        );
        assert_eq!(parts("{ a; (b); } > out.txt").commands, ["a", "b"]);
        assert_eq!(parts("{ a; (b); } > out.txt").writes, ["out.txt"]);
        let p = parts("FOO=1 make docs 2>&1 >> log/x.txt < in > /dev/null");
        assert_eq!(p.commands, ["FOO=1 make docs"]);
        assert_eq!(p.writes, ["log/x.txt"]);
        assert_eq!(
            parts("git commit -m \"fix it\"").commands,
            ["git commit -m 'fix it'"]
        );
        assert_eq!(parts("pytest \"; rm -rf x\"").commands, ["pytest '; rm -rf x'"]);
        assert_eq!(parts("touch notes/*.md").commands, ["touch notes/*.md"]);
        assert_eq!(parts("echo hi >& f.txt").writes, ["f.txt"]);
    }

    #[test]
    fn refuses_what_it_cannot_see_through() {
        for bad in [
            "pytest $(rm -rf x)",
            "pytest `rm x`",
            "pytest $X",
            "diff <(rm x) y",
            "if true; then rm x; fi",
            "for f in a; do rm $f; done",
            "f() { rm x; }; f",
            "echo > $OUT",
            "cat <<EOF\n$(rm x)\nEOF\n",
            "",
            "echo {a,b}",
        ] {
            assert!(simple_commands(bad).is_err(), "{bad:?}");
        }
    }
}
