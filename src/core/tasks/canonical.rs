//! A fast reader for the one JSON layout that [`TaskGraph::to_json`](super::TaskGraph::to_json)
//! and pydantic's `TaskContext.model_dump_json()` write: compact, with the keys in `Task`'s field
//! order. It reads straight into the graph's index, borrowing every string without escapes from
//! the input. Anything else (whitespace, another key order, extra keys, bad data) is declined,
//! and the caller reads it the general way, which also names the path of bad data.
//!
//! For any input it accepts, the result equals what the general (serde) reader gives: escaped
//! strings and non-empty metadata are decoded by serde_json itself.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::edges::Edges;
use super::graph::{Graph, Node, Resolver};
use super::ids::Id;
use super::json_text::plain_len;
use super::model::{Status, TaskData, TaskState};

/// A task's JSON is rarely shorter than this (an empty one with a short id and date takes about
/// 150 bytes), so `len / JSON_BYTES_PER_TASK` tasks are reserved up front: room for every task in
/// the usual case, and at most a small multiple of the input's size otherwise.
const JSON_BYTES_PER_TASK: usize = 160;

/// The graph `json` holds, if it is in the canonical layout and valid JSON; `None` otherwise.
pub fn read(json: &str, resolver: Resolver) -> Option<Graph<TaskData>> {
    let mut cur = Cursor { text: json, at: 0 };
    cur.lit(b"{\"tasks\":[")?;
    let mut graph = Graph::new(resolver);
    graph.reserve(json.len() / JSON_BYTES_PER_TASK);
    let (mut declined, mut first) = (false, true);
    graph.extend(std::iter::from_fn(|| {
        if cur.peek() == Some(b']') || !(first || cur.lit(b",").is_some()) {
            return None;
        }
        first = false;
        let node = cur.task();
        declined = node.is_none();
        node
    }));
    cur.lit(b"]}")?;
    (!declined && cur.at == json.len()).then_some(graph)
}

/// A position in the input text.
struct Cursor<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Cursor<'a> {
    fn rest(&self) -> &'a [u8] {
        &self.text.as_bytes()[self.at..]
    }

    fn peek(&self) -> Option<u8> {
        self.rest().first().copied()
    }

    /// Consumes exactly `bytes`.
    fn lit(&mut self, bytes: &[u8]) -> Option<()> {
        self.rest().starts_with(bytes).then(|| self.at += bytes.len())
    }

    /// One task, keys in `Task.model_dump_json()` order.
    fn task(&mut self) -> Option<Node<TaskData>> {
        self.lit(b"{\"subject\":")?;
        let subject = self.string()?.into_owned();
        self.lit(b",\"description\":")?;
        let description = self.string()?.into_owned();
        self.lit(b",\"metadata\":")?;
        let metadata = self.metadata()?;
        self.lit(b",\"created_at\":")?;
        let created_at = self.string()?.into_owned();
        self.lit(b",\"state\":")?;
        let state = self.state()?;
        self.lit(b",\"id\":")?;
        let id = Id::from(self.string()?);
        self.lit(b",\"owner\":")?;
        let owner = match self.lit(b"null") {
            Some(()) => None,
            None => Some(self.string()?.into_owned()),
        };
        self.lit(b",\"blocks\":")?;
        let blocks = self.ids()?;
        self.lit(b",\"blocked_by\":")?;
        let blocked_by = self.ids()?;
        self.lit(b"}")?;
        let payload = TaskData {
            subject,
            description,
            metadata,
            created_at,
            state,
            owner,
        };
        Some(Node {
            id,
            blocks,
            blocked_by,
            payload,
        })
    }

    fn state(&mut self) -> Option<TaskState> {
        Status::parse(&self.string()?)?.state()
    }

    /// A JSON string: borrowed when it has no escapes, decoded by serde_json when it has.
    fn string(&mut self) -> Option<Cow<'a, str>> {
        let rest = self.rest();
        if rest.first() != Some(&b'"') {
            return None;
        }
        let body = &rest[1..];
        let stop = plain_len(body);
        if *body.get(stop)? == b'"' {
            let text = &self.text[self.at + 1..self.at + 1 + stop];
            self.at += stop + 2;
            return Some(Cow::Borrowed(text));
        }
        // Escaped: decode the whole string with serde_json (which refuses raw control characters).
        let quoted = &self.text[self.at..self.at + closing_quote(body)? + 2];
        let text = serde_json::from_str::<String>(quoted).ok()?;
        self.at += quoted.len();
        Some(Cow::Owned(text))
    }

    /// `[]` or a list of strings.
    fn ids(&mut self) -> Option<Edges> {
        self.lit(b"[")?;
        let mut ids = Edges::new();
        if self.lit(b"]").is_some() {
            return Some(ids);
        }
        loop {
            ids.push(Id::from(self.string()?));
            if self.lit(b"]").is_some() {
                return Some(ids);
            }
            self.lit(b",")?;
        }
    }

    /// `{}`, or an object decoded by serde_json (its end found by matching brackets).
    fn metadata(&mut self) -> Option<Map<String, Value>> {
        if self.lit(b"{}").is_some() {
            return Some(Map::new());
        }
        if self.peek() != Some(b'{') {
            return None;
        }
        let len = bracketed_len(self.rest())?;
        let map = serde_json::from_str(&self.text[self.at..self.at + len]).ok()?;
        self.at += len;
        Some(map)
    }
}

/// Where the string whose text starts `body` ends: the index of its closing quote (an escaped
/// character is skipped whole).
fn closing_quote(body: &[u8]) -> Option<usize> {
    let mut at = memchr::memchr2(b'"', b'\\', body)?;
    while body[at] == b'\\' {
        at += 2;
        at += memchr::memchr2(b'"', b'\\', body.get(at..)?)?;
    }
    Some(at)
}

/// The length of the bracketed value at the start of `bytes` (strings skipped, escapes
/// included); whether it is valid JSON is left to the parser that reads it.
fn bracketed_len(bytes: &[u8]) -> Option<usize> {
    let mut depth = 0usize;
    let mut at = 0;
    loop {
        match *bytes.get(at)? {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(at + 1);
                }
            }
            b'"' => at += 1 + closing_quote(bytes.get(at + 1..)?)?,
            _ => {}
        }
        at += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bracketed_values_end_where_their_bracket_closes() {
        assert_eq!(bracketed_len(br#"{"a":[1,{"b":"}"}]},"x""#), Some(19));
        assert_eq!(bracketed_len(br#"{"a\"}":1}x"#), Some(10));
        assert_eq!(bracketed_len(br#"{"a":[1"#), None);
        assert_eq!(bracketed_len(br#"{"a\"#), None);
    }

    #[test]
    fn strings_borrow_unless_escaped() {
        let mut cur = Cursor {
            text: r#""plain""t\u00e9\"x\\""bad"#,
            at: 0,
        };
        assert!(matches!(cur.string(), Some(Cow::Borrowed("plain"))));
        assert_eq!(cur.string().as_deref(), Some("té\"x\\"));
        assert_eq!(cur.string(), None);
        let mut raw_newline = Cursor {
            text: "\"a\nb\"",
            at: 0,
        };
        assert_eq!(raw_newline.string(), None);
    }
}
