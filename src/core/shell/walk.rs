//! Walks the parsed command line: every list, pipeline, compound command, simple command and
//! redirection must be read-only for the whole to be.

use brush_parser::ParserOptions;
use brush_parser::ast::{
    AssignmentName, AssignmentValue, Command, CommandPrefixOrSuffixItem, CompoundCommand, CompoundList,
    IoFileRedirectKind, IoFileRedirectTarget, IoRedirect, Pipeline, Program, RedirectList, SimpleCommand,
    Word,
};

use super::source::{self, Source};
use super::words::{self, Arg};
use super::{Deny, Dialect, heredoc, programs};

/// Collects the programs of a command line that was found read-only.
pub(crate) struct Walker<'o> {
    programs: Vec<String>,
    options: &'o ParserOptions,
    source: Source<'o>,
    dialect: Dialect,
}

impl<'o> Walker<'o> {
    /// Checks a whole program parsed from `source` with `options` (whose dialect also reads its
    /// words) for a shell of `dialect`; returns the programs it runs (in order, without repeats).
    pub(crate) fn check(
        program: &Program,
        source: &'o str,
        options: &'o ParserOptions,
        dialect: Dialect,
    ) -> Result<Vec<String>, Deny> {
        let mut walker = Self {
            programs: Vec::new(),
            options,
            source: Source::new(source),
            dialect,
        };
        for list in &program.complete_commands {
            walker.list(list)?;
        }
        Ok(walker.programs)
    }

    fn list(&mut self, list: &CompoundList) -> Result<(), Deny> {
        for item in &list.0 {
            for (_, pipeline) in &item.0 {
                self.pipeline(pipeline)?;
            }
        }
        Ok(())
    }

    fn pipeline(&mut self, pipeline: &Pipeline) -> Result<(), Deny> {
        pipeline.seq.iter().try_for_each(|command| self.command(command))
    }

    fn command(&mut self, command: &Command) -> Result<(), Deny> {
        match command {
            Command::Simple(simple) => self.simple(simple),
            Command::Compound(compound, redirects) => {
                self.compound(compound)?;
                redirects.iter().try_for_each(|r| self.redirects(r))
            }
            Command::Function(f) => Err(Deny::at(
                &f.fname.value,
                format!(
                    "defines the shell function `{}`, which can shadow any command",
                    f.fname.value
                ),
            )),
            Command::ExtendedTest(..) => Err(Deny::at(
                "[[",
                "`[[ ... ]]` is not analysed (it evaluates arithmetic and array subscripts)",
            )),
        }
    }

    fn compound(&mut self, compound: &CompoundCommand) -> Result<(), Deny> {
        match compound {
            CompoundCommand::BraceGroup(group) => self.list(&group.list),
            CompoundCommand::Subshell(subshell) => self.list(&subshell.list),
            CompoundCommand::IfClause(clause) => {
                self.list(&clause.condition)?;
                self.list(&clause.then)?;
                for branch in clause.elses.iter().flatten() {
                    if let Some(condition) = &branch.condition {
                        self.list(condition)?;
                    }
                    self.list(&branch.body)?;
                }
                Ok(())
            }
            CompoundCommand::WhileClause(clause) | CompoundCommand::UntilClause(clause) => {
                self.list(&clause.0)?;
                self.list(&clause.1.list)
            }
            CompoundCommand::ForClause(clause) => {
                let name = &clause.variable_name;
                if !name.chars().any(|c| c.is_ascii_lowercase()) || name.ends_with("_proxy") {
                    return Err(Deny::at(
                        name,
                        format!(
                            "loop variable `{name}` could be an environment variable that changes what later commands run"
                        ),
                    ));
                }
                for value in clause.values.iter().flatten() {
                    self.word(value)?;
                }
                self.list(&clause.body.list)
            }
            CompoundCommand::CaseClause(clause) => {
                self.word(&clause.value)?;
                for case in &clause.cases {
                    for pattern in &case.patterns {
                        self.word(pattern)?;
                    }
                    if let Some(body) = &case.cmd {
                        self.list(body)?;
                    }
                }
                Ok(())
            }
            CompoundCommand::Arithmetic(_) | CompoundCommand::ArithmeticForClause(_) => Err(Deny::at(
                "((",
                "arithmetic commands are not analysed (they assign variables and can run code)",
            )),
            CompoundCommand::Coprocess(_) => Err(Deny::at("coproc", "`coproc` starts a background process")),
        }
    }

    fn simple(&mut self, simple: &SimpleCommand) -> Result<(), Deny> {
        named_fd_redirection(simple)?;
        let mut words: Vec<Arg> = Vec::new();
        if let Some(name) = &simple.word_or_name {
            words.push(self.word(name)?);
        }
        let mut assignments = Vec::new();
        for item in simple.prefix.iter().flat_map(|p| &p.0) {
            match item {
                CommandPrefixOrSuffixItem::AssignmentWord(assignment, word) => {
                    self.word(word)?;
                    assignments.push((assignment, word));
                }
                other => self.item(other, &mut words)?,
            }
        }
        for item in simple.suffix.iter().flat_map(|s| &s.0) {
            match item {
                // After the command name an assignment-looking word is an ordinary argument.
                CommandPrefixOrSuffixItem::AssignmentWord(_, word) => words.push(self.word(word)?),
                other => self.item(other, &mut words)?,
            }
        }
        for (assignment, word) in assignments {
            if simple.word_or_name.is_none() {
                return Err(Deny::at(
                    &word.value,
                    format!(
                        "assignment `{}` changes shell state for later commands",
                        word.value
                    ),
                ));
            }
            match (&assignment.name, &assignment.value) {
                (AssignmentName::VariableName(name), AssignmentValue::Scalar(_)) => {
                    programs::check_assignment(name, &word.value)?;
                }
                _ => {
                    return Err(Deny::at(
                        &word.value,
                        format!("array assignment `{}` is not analysed", word.value),
                    ));
                }
            }
        }
        if words.is_empty() {
            return Ok(());
        }
        let program = programs::check(&words)?;
        if !self.programs.contains(&program) {
            self.programs.push(program);
        }
        Ok(())
    }

    /// A redirection, process substitution or word of a simple command.
    fn item(&mut self, item: &CommandPrefixOrSuffixItem, words: &mut Vec<Arg>) -> Result<(), Deny> {
        match item {
            CommandPrefixOrSuffixItem::IoRedirect(redirect) => self.redirect(redirect),
            CommandPrefixOrSuffixItem::ProcessSubstitution(kind, subshell) => {
                let shown = format!("{kind}{subshell}");
                Err(Deny::at(
                    &shown,
                    format!("process substitution `{shown}` runs a command"),
                ))
            }
            CommandPrefixOrSuffixItem::Word(word) | CommandPrefixOrSuffixItem::AssignmentWord(_, word) => {
                words.push(self.word(word)?);
                Ok(())
            }
        }
    }

    fn redirects(&mut self, list: &RedirectList) -> Result<(), Deny> {
        list.0.iter().try_for_each(|r| self.redirect(r))
    }

    fn redirect(&mut self, redirect: &IoRedirect) -> Result<(), Deny> {
        let shown = redirect.to_string();
        match redirect {
            IoRedirect::File(_, kind, target) => self.file_redirect(kind, target, &shown),
            IoRedirect::OutputAndError(..) | IoRedirect::HereString(..) if self.dialect == Dialect::Sh => {
                Err(Deny::at(
                    &shown,
                    format!("`{shown}` is bash-only: POSIX sh reads it differently"),
                ))
            }
            IoRedirect::OutputAndError(target, _) => self.write_target(target, &shown),
            IoRedirect::HereDocument(_, doc) => heredoc::check(doc, &self.source),
            IoRedirect::HereString(_, word) => self.word(word).map(drop),
        }
    }

    /// Analyses a word, first making sure the parser kept it as written: where its value is not
    /// its source text (up to line continuations, which the shell removes too) the parser has
    /// rewritten it (`${ cmd; }` becomes `${cmd;}`), so its view is not the shell's.
    fn word(&self, word: &Word) -> Result<Arg, Deny> {
        if let Some(text) = self.source.text_of(word)
            && !source::same_word(text, &word.value)
        {
            return Err(Deny::at(
                text,
                format!(
                    "the parser reads `{text}` differently from how it is written, so it is not analysed"
                ),
            ));
        }
        words::analyse(word, self.options, self.dialect)
    }

    fn file_redirect(
        &self,
        kind: &IoFileRedirectKind,
        target: &IoFileRedirectTarget,
        shown: &str,
    ) -> Result<(), Deny> {
        match target {
            IoFileRedirectTarget::ProcessSubstitution(..) => Err(Deny::at(
                shown,
                format!("process substitution in `{shown}` runs a command"),
            )),
            IoFileRedirectTarget::Fd(_) => Ok(()),
            IoFileRedirectTarget::Duplicate(word) => {
                let arg = self.word(word)?;
                let fd_like = arg.value.as_deref().is_some_and(|v| {
                    let digits = v.strip_suffix('-').unwrap_or(v);
                    v == "-" || (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
                });
                match kind {
                    _ if fd_like => Ok(()),
                    IoFileRedirectKind::DuplicateInput => Err(Deny::at(
                        shown,
                        format!("redirection `{shown}` does not name a file descriptor"),
                    )),
                    // `>& word` with a word that is not a descriptor is bash's `&> word`.
                    _ => Err(Deny::at(shown, format!("redirection `{shown}` writes a file"))),
                }
            }
            IoFileRedirectTarget::Filename(word) => match kind {
                IoFileRedirectKind::Read => {
                    let arg = self.word(word)?;
                    match arg.value.as_deref() {
                        Some(path) if path.starts_with("/dev/tcp/") || path.starts_with("/dev/udp/") => Err(
                            Deny::at(shown, format!("redirection `{shown}` opens a network connection")),
                        ),
                        Some(_) => Ok(()),
                        // A path known only at run time could be `/dev/tcp/...` (a loop variable).
                        None => Err(Deny::at(
                            shown,
                            format!(
                                "redirection `{shown}` reads a path known only at run time (it could open a network connection)"
                            ),
                        )),
                    }
                }
                _ => self.write_target(word, shown),
            },
        }
    }

    /// An output redirection is read-only only into `/dev/null`.
    fn write_target(&self, word: &Word, shown: &str) -> Result<(), Deny> {
        let arg = self.word(word)?;
        if arg.value.as_deref() == Some("/dev/null") {
            Ok(())
        } else {
            Err(Deny::at(shown, format!("redirection `{shown}` writes a file")))
        }
    }
}

/// Refuses `{name}>file` and the like: bash assigns the new descriptor's number to `name`
/// (`true {PATH}>/dev/null` sets `PATH`), while POSIX sh reads a word and a redirection. Any
/// `{name}` word followed by a redirection is refused, with or without a blank between them.
fn named_fd_redirection(simple: &SimpleCommand) -> Result<(), Deny> {
    // The command's items in source order: `None` for a redirection, the word otherwise.
    fn item(i: &CommandPrefixOrSuffixItem) -> Option<Option<&Word>> {
        match i {
            CommandPrefixOrSuffixItem::Word(w) | CommandPrefixOrSuffixItem::AssignmentWord(_, w) => {
                Some(Some(w))
            }
            CommandPrefixOrSuffixItem::IoRedirect(_) => Some(None),
            CommandPrefixOrSuffixItem::ProcessSubstitution(..) => None,
        }
    }
    let items: Vec<Option<Option<&Word>>> = simple
        .prefix
        .iter()
        .flat_map(|p| &p.0)
        .map(item)
        .chain(simple.word_or_name.iter().map(|w| Some(Some(w))))
        .chain(simple.suffix.iter().flat_map(|s| &s.0).map(item))
        .collect();
    for pair in items.windows(2) {
        let [Some(Some(word)), Some(None)] = pair else {
            continue;
        };
        let inner = word.value.strip_prefix('{').and_then(|v| v.strip_suffix('}'));
        if inner.is_some_and(words::is_name) {
            return Err(Deny::at(
                &word.value,
                format!(
                    "`{}` before a redirection assigns a file descriptor number to a variable (bash's named descriptors)",
                    word.value
                ),
            ));
        }
    }
    Ok(())
}
