//! Questions about calls outside the approved scope, bound to the exact call the human saw.
//!
//! When the build phase asks the human about a call outside the scope, the question is stored
//! with the call's id, the parked reply and a digest of the input it shows. The human's answer
//! is accepted only for that call, in that reply, with that input; the resumed call passes the
//! scope check only when an accepted answer waits for exactly it, and only once. A call marked
//! allowed by anything else (another reply, a changed input, a replayed id, a forged state
//! flag) is judged again.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::content::sha256_hex;
use super::state::{Phase, PlanState};

/// Most open questions kept (the oldest is dropped first).
pub const MAX_SCOPE_ASKS: usize = 64;

/// A question asked about one call outside the approved scope.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ScopeAsk {
    /// The tool call asked about.
    pub tool_call_id: String,
    /// The reply parked on the question.
    pub reply_id: String,
    /// The tool's name, for people reading the state.
    pub tool: String,
    /// sha256 of the input shown to the human (canonical JSON).
    pub input_sha256: String,
    /// True once the human allowed exactly this call.
    #[serde(default)]
    pub allowed: bool,
}

/// sha256 of `input` as canonical JSON (object keys sorted), so the same input always has the
/// same digest whatever order its keys arrived in.
pub fn input_digest(input: &Value) -> String {
    let mut out = String::new();
    canonical(input, &mut out);
    sha256_hex(&out)
}

fn canonical(v: &Value, out: &mut String) {
    match v {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                canonical(&map[k], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// Checks stored questions: bounded in number, one per call.
pub fn check_asks(asks: &[ScopeAsk]) -> Result<(), String> {
    if asks.len() > MAX_SCOPE_ASKS {
        return Err(format!("more than {MAX_SCOPE_ASKS} scope questions"));
    }
    for (i, a) in asks.iter().enumerate() {
        if asks[..i].iter().any(|o| o.tool_call_id == a.tool_call_id) {
            return Err(format!(
                "two scope questions about tool call {:?}",
                a.tool_call_id
            ));
        }
    }
    Ok(())
}

impl PlanState {
    /// Where the question about call `tool_call_id` is kept, if one is.
    fn scope_ask_at(&self, tool_call_id: &str) -> Option<usize> {
        self.scope_asks
            .iter()
            .position(|a| a.tool_call_id == tool_call_id)
    }

    /// Records that the human is asked about call `tool_call_id` (in reply `reply_id`) with
    /// `input`; a question asked before about the same call is replaced.
    pub fn ask_scope(&mut self, tool_call_id: &str, reply_id: &str, tool: &str, input: &Value) {
        self.scope_asks.retain(|a| a.tool_call_id != tool_call_id);
        if self.scope_asks.len() == MAX_SCOPE_ASKS {
            self.scope_asks.remove(0);
        }
        self.scope_asks.push(ScopeAsk {
            tool_call_id: tool_call_id.to_string(),
            reply_id: reply_id.to_string(),
            tool: tool.to_string(),
            input_sha256: input_digest(input),
            allowed: false,
        });
    }

    /// Takes the human's answer about call `tool_call_id`, confirmed in reply `reply_id` for
    /// `tool` with `input` (None: the confirmation's input could not be read). Accepted only
    /// when a question about that call waits in that reply with that very tool and input; any
    /// other answer (declined, another reply, a changed tool or input) closes the question, so
    /// the call is judged again. Returns true when a question was answered (the state changed).
    pub fn answer_scope(
        &mut self,
        tool_call_id: &str,
        reply_id: &str,
        tool: &str,
        input: Option<&Value>,
        confirmed: bool,
    ) -> bool {
        let Some(at) = self.scope_ask_at(tool_call_id) else {
            return false;
        };
        let ask = &self.scope_asks[at];
        let same = ask.reply_id == reply_id
            && ask.tool == tool
            && input.is_some_and(|i| input_digest(i) == ask.input_sha256);
        if confirmed && same && self.phase == Phase::Building {
            self.scope_asks[at].allowed = true;
        } else {
            self.scope_asks.remove(at);
        }
        true
    }

    /// True when the human allowed exactly this call (`tool_call_id` of `tool` with `input`)
    /// outside the scope; the answer is used up. Any question about the call is closed either way.
    pub fn take_scope_pass(&mut self, tool_call_id: &str, tool: &str, input: &Value) -> bool {
        let Some(at) = self.scope_ask_at(tool_call_id) else {
            return false;
        };
        let ask = self.scope_asks.remove(at);
        ask.allowed
            && self.phase == Phase::Building
            && ask.tool == tool
            && ask.input_sha256 == input_digest(input)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn building() -> PlanState {
        PlanState {
            phase: Phase::Building,
            ..PlanState::new()
        }
    }

    #[test]
    fn only_the_asked_call_with_its_input_passes_once() {
        let input = json!({"path": "src/a.py", "content": "x"});
        let reordered = json!({"content": "x", "path": "src/a.py"});
        let mut s = building();
        assert!(!s.take_scope_pass("c1", "write_file", &input), "nothing asked");
        s.ask_scope("c1", "r1", "write_file", &input);
        assert!(
            !s.answer_scope("c9", "r1", "write_file", Some(&input), true),
            "another call"
        );
        assert!(s.answer_scope("c1", "r1", "write_file", Some(&reordered), true));
        assert!(s.take_scope_pass("c1", "write_file", &input));
        assert!(
            !s.take_scope_pass("c1", "write_file", &input),
            "used up: a replayed id is judged again"
        );

        for (reply, answer, confirmed, run) in [
            ("r2", input.clone(), true, input.clone()), // another reply
            (
                "r1",
                json!({"path": "/etc/passwd", "content": "x"}),
                true,
                input.clone(),
            ), // changed answer
            ("r1", input.clone(), false, input.clone()), // declined
            (
                "r1",
                input.clone(),
                true,
                json!({"path": "src/b.py", "content": "x"}),
            ), // changed call
        ] {
            let mut s = building();
            s.ask_scope("c1", "r1", "write_file", &input);
            s.answer_scope("c1", reply, "write_file", Some(&answer), confirmed);
            assert!(
                !s.take_scope_pass("c1", "write_file", &run),
                "{reply} {answer} {confirmed} {run}"
            );
        }
        let mut s = building();
        s.ask_scope("c1", "r1", "write_file", &input);
        assert!(
            !s.take_scope_pass("c1", "write_file", &input),
            "never answered (a forged ALLOWED state)"
        );
        let mut s = building();
        s.ask_scope("c1", "r1", "write_file", &input);
        s.answer_scope("c1", "r1", "Bash", Some(&input), true);
        assert!(
            !s.take_scope_pass("c1", "Bash", &input),
            "the answer renamed the tool"
        );
        let mut s = building();
        s.ask_scope("c1", "r1", "write_file", &input);
        s.answer_scope("c1", "r1", "write_file", None, true);
        assert!(
            !s.take_scope_pass("c1", "write_file", &input),
            "unreadable confirmation input"
        );
    }

    #[test]
    fn questions_are_bounded_and_checked() {
        let mut s = building();
        for i in 0..MAX_SCOPE_ASKS + 5 {
            s.ask_scope(&format!("c{i}"), "r", "t", &json!({}));
        }
        assert_eq!(s.scope_asks.len(), MAX_SCOPE_ASKS);
        assert_eq!(s.scope_asks[0].tool_call_id, "c5");
        assert!(check_asks(&s.scope_asks).is_ok());
        let twice = vec![s.scope_asks[0].clone(), s.scope_asks[0].clone()];
        assert!(check_asks(&twice).is_err());
    }
}
