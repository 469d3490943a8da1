//! One permission check as a state machine with AgentScope 2.0.11's evaluation order.
//!
//! | step | DEFAULT / ACCEPT_EDITS | EXPLORE | BYPASS | DONT_ASK |
//! |---|---|---|---|---|
//! | 1 deny rules | DENY | DENY | DENY | DENY |
//! | 2 ask rules | ASK | ASK | ASK | DENY (converted) |
//! | 3 read-only | ALLOW | ALLOW | ALLOW | ALLOW |
//! | 4 tool check | ALLOW/DENY as is; safety ASK | skipped | ALLOW/DENY as is; ASK ignored | ALLOW/DENY as is; safety ASK → DENY |
//! | 5 allow rules | ALLOW | skipped | ALLOW | ALLOW |
//! | 6 fallback | ASK | DENY | ALLOW | DENY |

use std::convert::Infallible;
use std::fmt;

use super::rules::{CompiledRule, Subject};
use super::types::{Mode, RuleList};

/// The deny, ask and allow rules of one tool, read one at a time in list order, only as far as
/// the evaluation needs them (AgentScope stops at the first matching rule, and so does a check:
/// rules after the deciding one are never read).
pub trait RuleSource {
    /// Why a rule could not be read.
    type Error;

    /// Rule `index` of `list`, or `None` past the end of the list. The evaluation asks for the
    /// indices of a list in order, starting at 0.
    fn rule(&mut self, list: RuleList, index: usize) -> Result<Option<&CompiledRule>, Self::Error>;
}

/// Compiled lists in deny, ask, allow order.
impl RuleSource for [&[CompiledRule]; 3] {
    type Error = Infallible;

    fn rule(&mut self, list: RuleList, index: usize) -> Result<Option<&CompiledRule>, Infallible> {
        Ok(self[list.index()].get(index))
    }
}

/// Why [`Evaluation::advance`] failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AdvanceError<E> {
    /// The caller broke the protocol.
    Protocol(ProtocolError),
    /// The rule source failed.
    Source(E),
}

/// What the evaluation needs next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Ask the tool's own `match_rule`, in order, about each rule of `list` in `from..until` that
    /// native matching cannot decide ([`CompiledRule::matches`] is `None`), stopping at the first
    /// match (answer with [`Reply::Matched`]). Rule `until` matched natively when `native_hit`.
    MatchRules {
        /// The list being scanned.
        list: RuleList,
        /// The first rule to ask about.
        from: usize,
        /// The end of the batch.
        until: usize,
        /// Whether rule `until` matched natively (and decides if the tool matches none before it).
        native_hit: bool,
    },
    /// Ask the tool's `check_read_only` (answer with [`Reply::ReadOnly`]).
    CheckReadOnly,
    /// Ask the tool's `check_permissions` (answer with [`Reply::Tool`]).
    CheckPermissions,
    /// The check is decided.
    Done(Outcome),
}

/// The caller's answer to the previous [`Step`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reply {
    /// The first call: nothing asked yet.
    Start,
    /// The index of the first rule of the batch the tool's `match_rule` matched, if any.
    Matched(Option<usize>),
    /// The truthiness of the tool's `check_read_only`.
    ReadOnly(bool),
    /// The class of the tool's own decision.
    Tool(ToolVerdict),
}

/// How the engine treats the decision a tool's `check_permissions` returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolVerdict {
    /// ALLOW or DENY: returned as is.
    Final,
    /// ASK with `bypass_immune`: a safety ASK.
    SafetyAsk,
    /// Anything else (a plain ASK, PASSTHROUGH): evaluation goes on.
    Continue,
}

/// How a check ended; with the mode it determines the decision ([`Outcome::decision`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Deny rule `index` matched.
    DenyRule(usize),
    /// Ask rule `index` matched.
    AskRule(usize),
    /// The invocation is read-only.
    ReadOnly,
    /// The tool's own ALLOW / DENY.
    ToolFinal,
    /// The tool's own safety ASK.
    ToolSafetyAsk,
    /// Allow rule `index` matched.
    AllowRule(usize),
    /// Nothing decided: the mode's fallback.
    Fallback,
}

/// A decision's behavior.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Behavior {
    /// Run the tool.
    Allow,
    /// Refuse it.
    Deny,
    /// Ask the user.
    Ask,
}

/// The engine-made part of a decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Return the tool's own decision object (with suggestions attached when asked).
    FromTool,
    /// A new decision.
    New {
        /// The behavior.
        behavior: Behavior,
        /// The message (what the model sees on DENY).
        message: String,
        /// The decision reason.
        reason: Option<String>,
        /// Whether `updated_input` is the tool input (allow rules).
        echoes_input: bool,
    },
}

/// The caller answered a step with the wrong kind of reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtocolError {
    /// The reply that was given.
    pub got: Reply,
    /// What the evaluation was waiting for.
    pub expected: &'static str,
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "permission evaluation expected {}, got {:?}",
            self.expected, self.got
        )
    }
}

impl std::error::Error for ProtocolError {}

impl<E: fmt::Display> fmt::Display for AdvanceError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AdvanceError::Protocol(err) => err.fmt(f),
            AdvanceError::Source(err) => err.fmt(f),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Start,
    Matching {
        list: RuleList,
        from: usize,
        until: usize,
        native_hit: bool,
    },
    ReadOnly,
    Tool,
    Done,
}

/// One permission check in progress.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evaluation {
    mode: Mode,
    stage: Stage,
}

impl Evaluation {
    /// A check in `mode`.
    pub fn new(mode: Mode) -> Evaluation {
        Evaluation {
            mode,
            stage: Stage::Start,
        }
    }

    /// The mode being evaluated.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Feeds the answer to the previous step and returns the next one, reading the tool's deny,
    /// ask and allow rules from `rules` as far as it needs them.
    pub fn advance<R: RuleSource>(
        &mut self,
        reply: Reply,
        rules: &mut R,
        subject: &Subject,
    ) -> Result<Step, AdvanceError<R::Error>> {
        let step = match (self.stage, reply) {
            (Stage::Start, Reply::Start) => self.scan(RuleList::Deny, rules, subject),
            (
                Stage::Matching {
                    list, from, until, ..
                },
                Reply::Matched(Some(index)),
            ) if (from..until).contains(&index) => Ok(self.hit(list, index)),
            (
                Stage::Matching {
                    list,
                    until,
                    native_hit,
                    ..
                },
                Reply::Matched(None),
            ) => {
                if native_hit {
                    Ok(self.hit(list, until))
                } else {
                    self.next_list(list, rules, subject)
                }
            }
            (Stage::ReadOnly, Reply::ReadOnly(true)) => Ok(self.finish(Outcome::ReadOnly)),
            (Stage::ReadOnly, Reply::ReadOnly(false)) if self.mode == Mode::Explore => {
                Ok(self.finish(Outcome::Fallback))
            }
            (Stage::ReadOnly, Reply::ReadOnly(false)) => {
                self.stage = Stage::Tool;
                Ok(Step::CheckPermissions)
            }
            (Stage::Tool, Reply::Tool(ToolVerdict::Final)) => Ok(self.finish(Outcome::ToolFinal)),
            (Stage::Tool, Reply::Tool(ToolVerdict::SafetyAsk)) if self.mode != Mode::Bypass => {
                Ok(self.finish(Outcome::ToolSafetyAsk))
            }
            (Stage::Tool, Reply::Tool(_)) => self.scan(RuleList::Allow, rules, subject),
            (stage, got) => {
                return Err(AdvanceError::Protocol(ProtocolError {
                    got,
                    expected: expected(stage),
                }));
            }
        };
        step.map_err(AdvanceError::Source)
    }

    /// Scans `list` from its start: the first rule that matches natively decides, unless rules
    /// only the tool can judge come before it (then the tool is asked about those first).
    fn scan<R: RuleSource>(
        &mut self,
        list: RuleList,
        rules: &mut R,
        subject: &Subject,
    ) -> Result<Step, R::Error> {
        let mut unknown_from = None;
        let mut index = 0;
        while let Some(rule) = rules.rule(list, index)? {
            match rule.matches(subject) {
                Some(false) => {}
                None => {
                    unknown_from.get_or_insert(index);
                }
                Some(true) => {
                    return Ok(match unknown_from {
                        None => self.hit(list, index),
                        Some(from) => self.ask(list, from, index, true),
                    });
                }
            }
            index += 1;
        }
        match unknown_from {
            Some(from) => Ok(self.ask(list, from, index, false)),
            None => self.next_list(list, rules, subject),
        }
    }

    fn ask(&mut self, list: RuleList, from: usize, until: usize, native_hit: bool) -> Step {
        self.stage = Stage::Matching {
            list,
            from,
            until,
            native_hit,
        };
        Step::MatchRules {
            list,
            from,
            until,
            native_hit,
        }
    }

    /// After a list matched nothing.
    fn next_list<R: RuleSource>(
        &mut self,
        list: RuleList,
        rules: &mut R,
        subject: &Subject,
    ) -> Result<Step, R::Error> {
        match list {
            RuleList::Deny => self.scan(RuleList::Ask, rules, subject),
            RuleList::Ask => {
                self.stage = Stage::ReadOnly;
                Ok(Step::CheckReadOnly)
            }
            RuleList::Allow => Ok(self.finish(Outcome::Fallback)),
        }
    }

    fn hit(&mut self, list: RuleList, index: usize) -> Step {
        self.finish(match list {
            RuleList::Deny => Outcome::DenyRule(index),
            RuleList::Ask => Outcome::AskRule(index),
            RuleList::Allow => Outcome::AllowRule(index),
        })
    }

    fn finish(&mut self, outcome: Outcome) -> Step {
        self.stage = Stage::Done;
        Step::Done(outcome)
    }
}

fn expected(stage: Stage) -> &'static str {
    match stage {
        Stage::Start => "Start",
        Stage::Matching { .. } => "Matched",
        Stage::ReadOnly => "ReadOnly",
        Stage::Tool => "Tool",
        Stage::Done => "nothing (the evaluation is over)",
    }
}

impl Outcome {
    /// The rule list and index that decided, if a rule did.
    pub fn rule(self) -> Option<(RuleList, usize)> {
        match self {
            Outcome::DenyRule(i) => Some((RuleList::Deny, i)),
            Outcome::AskRule(i) => Some((RuleList::Ask, i)),
            Outcome::AllowRule(i) => Some((RuleList::Allow, i)),
            _ => None,
        }
    }

    /// Whether the decision carries the tool's `generate_suggestions` (every ASK, and the DENYs
    /// DONT_ASK converts from one).
    pub fn wants_suggestions(self, mode: Mode) -> bool {
        match self {
            Outcome::AskRule(_) | Outcome::ToolSafetyAsk => true,
            Outcome::Fallback => matches!(mode, Mode::Default | Mode::AcceptEdits),
            _ => false,
        }
    }

    /// The decision, with AgentScope's exact messages. `rule` is how the deciding rule's content
    /// prints; `tool_reason` how the tool's own decision reason prints (for DONT_ASK conversions).
    pub fn decision(self, mode: Mode, tool: &str, rule: &str, tool_reason: &str) -> Decision {
        let new = |behavior, message: String, reason: Option<String>| Decision::New {
            behavior,
            message,
            reason,
            echoes_input: false,
        };
        let converted = |original: &str| {
            new(
                Behavior::Deny,
                format!(
                    "Permission denied for {tool} (dont_ask mode - ASK converted to DENY, user not available)"
                ),
                Some(format!(
                    "DONT_ASK mode converted ASK to DENY. Original reason: {original}"
                )),
            )
        };
        match (self, mode) {
            (Outcome::DenyRule(_), _) => new(
                Behavior::Deny,
                format!("Permission to use {tool} has been denied"),
                Some(format!("Rule: {rule}")),
            ),
            (Outcome::AskRule(_), Mode::DontAsk) => converted(&format!("Rule: {rule}")),
            (Outcome::AskRule(_), _) => new(
                Behavior::Ask,
                format!("Permission required for {tool}"),
                Some(format!("Rule: {rule}")),
            ),
            (Outcome::ReadOnly, _) => new(
                Behavior::Allow,
                format!("Permission granted for {tool} (read-only invocation)"),
                Some("Read-only operations are auto-allowed".to_owned()),
            ),
            (Outcome::ToolSafetyAsk, Mode::DontAsk) => converted(tool_reason),
            (Outcome::ToolFinal | Outcome::ToolSafetyAsk, _) => Decision::FromTool,
            (Outcome::AllowRule(_), _) => Decision::New {
                behavior: Behavior::Allow,
                message: format!("Permission granted for {tool}"),
                reason: None,
                echoes_input: true,
            },
            (Outcome::Fallback, Mode::Default | Mode::AcceptEdits) => new(
                Behavior::Ask,
                format!("Permission required for {tool}"),
                Some(format!("Mode: {}", mode.value())),
            ),
            (Outcome::Fallback, Mode::Explore) => new(
                Behavior::Deny,
                format!("Permission denied for {tool} (explore mode is read-only)"),
                Some("Explore mode does not allow modifications".to_owned()),
            ),
            (Outcome::Fallback, Mode::Bypass) => new(
                Behavior::Allow,
                format!("Permission granted for {tool} (bypass mode)"),
                Some("Bypass mode allows all operations".to_owned()),
            ),
            (Outcome::Fallback, Mode::DontAsk) => new(
                Behavior::Deny,
                format!("Permission denied for {tool} (dont_ask mode - user not available)"),
                Some("User is not available to answer permission prompts".to_owned()),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scripted tool: which rules only it can match (and its verdicts), read-only, own decision.
    struct FakeTool {
        read_only: bool,
        verdict: ToolVerdict,
        python_matches: bool,
    }

    fn run(
        mode: Mode,
        mut rules: [&[CompiledRule]; 3],
        subject: &Subject,
        tool: &FakeTool,
    ) -> (Outcome, Vec<Step>) {
        let mut ev = Evaluation::new(mode);
        let mut steps = Vec::new();
        let mut reply = Reply::Start;
        loop {
            let step = ev.advance(reply, &mut rules, subject).expect("protocol");
            steps.push(step);
            reply = match step {
                Step::MatchRules { from, .. } => Reply::Matched(tool.python_matches.then_some(from)),
                Step::CheckReadOnly => Reply::ReadOnly(tool.read_only),
                Step::CheckPermissions => Reply::Tool(tool.verdict),
                Step::Done(outcome) => return (outcome, steps),
            };
        }
    }

    fn rule(content: Option<&str>) -> CompiledRule {
        CompiledRule::new(content)
    }

    const WRITE: FakeTool = FakeTool {
        read_only: false,
        verdict: ToolVerdict::Continue,
        python_matches: false,
    };

    #[test]
    fn fallbacks_per_mode() {
        let none: [&[CompiledRule]; 3] = [&[], &[], &[]];
        let expected = [
            (Mode::Default, Outcome::Fallback, 3),
            (Mode::AcceptEdits, Outcome::Fallback, 3),
            (Mode::Explore, Outcome::Fallback, 2),
            (Mode::Bypass, Outcome::Fallback, 3),
            (Mode::DontAsk, Outcome::Fallback, 3),
        ];
        for (mode, outcome, steps) in expected {
            let (got, trace) = run(mode, none, &Subject::Tool, &WRITE);
            assert_eq!((got, trace.len()), (outcome, steps), "{}", mode.value());
        }
    }

    #[test]
    fn deny_beats_ask_beats_read_only_and_allow() {
        let deny = [rule(Some("rm:*"))];
        let ask = [rule(Some("git push:*"))];
        let allow = [rule(None)];
        let rules: [&[CompiledRule]; 3] = [&deny, &ask, &allow];
        let ro = FakeTool {
            read_only: true,
            ..WRITE
        };
        let cmd = |c: &str| Subject::Command(c.to_owned());
        assert_eq!(
            run(Mode::Bypass, rules, &cmd("rm -rf x"), &ro).0,
            Outcome::DenyRule(0)
        );
        assert_eq!(
            run(Mode::Bypass, rules, &cmd("git push origin"), &ro).0,
            Outcome::AskRule(0)
        );
        assert_eq!(run(Mode::Explore, rules, &cmd("ls"), &ro).0, Outcome::ReadOnly);
        assert_eq!(
            run(Mode::Default, rules, &cmd("make"), &WRITE).0,
            Outcome::AllowRule(0)
        );
        assert_eq!(
            run(Mode::Explore, rules, &cmd("make"), &WRITE).0,
            Outcome::Fallback
        );
    }

    #[test]
    fn safety_ask_is_honoured_except_in_bypass() {
        let allow = [rule(None)];
        let rules: [&[CompiledRule]; 3] = [&[], &[], &allow];
        let risky = FakeTool {
            verdict: ToolVerdict::SafetyAsk,
            ..WRITE
        };
        for mode in [Mode::Default, Mode::AcceptEdits, Mode::DontAsk] {
            assert_eq!(run(mode, rules, &Subject::Tool, &risky).0, Outcome::ToolSafetyAsk);
        }
        assert_eq!(
            run(Mode::Bypass, rules, &Subject::Tool, &risky).0,
            Outcome::AllowRule(0)
        );
        assert_eq!(
            run(Mode::Explore, rules, &Subject::Tool, &risky).0,
            Outcome::Fallback
        );
        let final_ = FakeTool {
            verdict: ToolVerdict::Final,
            ..WRITE
        };
        assert_eq!(
            run(Mode::Bypass, rules, &Subject::Tool, &final_).0,
            Outcome::ToolFinal
        );
    }

    #[test]
    fn rules_only_the_tool_can_match_are_asked_in_one_batch() {
        let deny = [rule(Some("x")), rule(Some("y"))];
        let rules: [&[CompiledRule]; 3] = [&deny, &[], &[]];
        let (outcome, steps) = run(Mode::Default, rules, &Subject::Tool, &WRITE);
        assert_eq!(outcome, Outcome::Fallback);
        let batch = Step::MatchRules {
            list: RuleList::Deny,
            from: 0,
            until: 2,
            native_hit: false,
        };
        assert_eq!(steps[0], batch);
        let yes = FakeTool {
            python_matches: true,
            ..WRITE
        };
        assert_eq!(
            run(Mode::Default, rules, &Subject::Tool, &yes).0,
            Outcome::DenyRule(0)
        );
    }

    #[test]
    fn a_native_match_after_undecidable_rules_waits_for_the_tool() {
        let deny = [
            rule(Some("no:*")),
            rule(Some("a\\d*")),
            rule(Some("git:*")),
            rule(Some("b\\d*")),
        ];
        let mut rules: [&[CompiledRule]; 3] = [&deny, &[], &[]];
        let command = Subject::Command("git log".into());
        let mut ev = Evaluation::new(Mode::Default);
        let batch = Step::MatchRules {
            list: RuleList::Deny,
            from: 1,
            until: 2,
            native_hit: true,
        };
        assert_eq!(ev.advance(Reply::Start, &mut rules, &command), Ok(batch));
        let mut other = ev.clone();
        assert_eq!(
            ev.advance(Reply::Matched(None), &mut rules, &command),
            Ok(Step::Done(Outcome::DenyRule(2)))
        );
        assert_eq!(
            other.advance(Reply::Matched(Some(1)), &mut rules, &command),
            Ok(Step::Done(Outcome::DenyRule(1)))
        );
        let mut bad = Evaluation::new(Mode::Default);
        bad.advance(Reply::Start, &mut rules, &command).expect("starts");
        assert!(
            bad.advance(Reply::Matched(Some(2)), &mut rules, &command)
                .is_err(),
            "index outside the batch"
        );
    }

    /// A source that counts the rules read.
    struct Counting<'a>(&'a [CompiledRule], usize);

    impl RuleSource for Counting<'_> {
        type Error = Infallible;

        fn rule(&mut self, list: RuleList, index: usize) -> Result<Option<&CompiledRule>, Infallible> {
            if list != RuleList::Deny {
                return Ok(None);
            }
            self.1 += 1;
            Ok(self.0.get(index))
        }
    }

    #[test]
    fn rules_after_the_deciding_one_are_never_read() {
        let deny: Vec<CompiledRule> = (0..1000)
            .map(|i| rule(Some(if i == 2 { "git:*" } else { "tool:*" })))
            .collect();
        let mut source = Counting(&deny, 0);
        let mut ev = Evaluation::new(Mode::Default);
        let step = ev.advance(Reply::Start, &mut source, &Subject::Command("git log".into()));
        assert_eq!(step, Ok(Step::Done(Outcome::DenyRule(2))));
        assert_eq!(source.1, 3);
    }

    #[test]
    fn wrong_replies_are_protocol_errors() {
        let mut ev = Evaluation::new(Mode::Default);
        let mut none: [&[CompiledRule]; 3] = [&[], &[], &[]];
        assert!(
            ev.advance(Reply::ReadOnly(true), &mut none, &Subject::Tool)
                .is_err()
        );
        assert_eq!(
            ev.advance(Reply::Start, &mut none, &Subject::Tool),
            Ok(Step::CheckReadOnly)
        );
        let err = ev
            .advance(Reply::Matched(None), &mut none, &Subject::Tool)
            .unwrap_err();
        assert!(err.to_string().contains("expected ReadOnly"));
    }

    #[test]
    fn messages_are_agentscopes() {
        let d = Outcome::AskRule(0).decision(Mode::DontAsk, "Bash", "git:*", "");
        assert_eq!(
            d,
            Decision::New {
                behavior: Behavior::Deny,
                message:
                    "Permission denied for Bash (dont_ask mode - ASK converted to DENY, user not available)"
                        .into(),
                reason: Some("DONT_ASK mode converted ASK to DENY. Original reason: Rule: git:*".into()),
                echoes_input: false,
            }
        );
        assert_eq!(
            Outcome::ToolFinal.decision(Mode::DontAsk, "t", "", ""),
            Decision::FromTool
        );
        assert!(Outcome::Fallback.wants_suggestions(Mode::AcceptEdits));
        assert!(!Outcome::Fallback.wants_suggestions(Mode::DontAsk));
        assert!(Outcome::ToolSafetyAsk.wants_suggestions(Mode::DontAsk));
    }
}
