//! Walks the parsed command line: every list, pipeline, compound command, simple command and
//! redirection must be read-only for the whole to be.

use brush_parser::ParserOptions;
use brush_parser::ast::{
    AssignmentName, AssignmentValue, Command, CommandPrefixOrSuffixItem, CompoundCommand, CompoundList,
    IoFileRedirectKind, IoFileRedirectTarget, IoRedirect, Pipeline, Program, RedirectList, SimpleCommand,
    Word,
};

use super::words::{self, Arg};
use super::{Deny, programs};

/// Collects the programs of a command line that was found read-only.
pub(crate) struct Walker<'o> {
    programs: Vec<String>,
    options: &'o ParserOptions,
}

impl<'o> Walker<'o> {
    /// Checks a whole program parsed with `options` (whose dialect also reads its words);
    /// returns the programs it runs (in order, without repeats).
    pub(crate) fn check(program: &Program, options: &'o ParserOptions) -> Result<Vec<String>, Deny> {
        let mut walker = Self {
            programs: Vec::new(),
            options,
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
                if !name.chars().any(|c| c.is_ascii_lowercase()) {
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
            IoRedirect::OutputAndError(target, _) => self.write_target(target, &shown),
            IoRedirect::HereDocument(_, doc) if doc.requires_expansion => {
                words::check_heredoc_body(&doc.doc.value, self.options)
            }
            IoRedirect::HereDocument(..) => Ok(()),
            IoRedirect::HereString(_, word) => self.word(word).map(drop),
        }
    }

    fn word(&self, word: &Word) -> Result<Arg, Deny> {
        words::analyse(word, self.options)
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
                        _ => Ok(()),
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
