//! The fast JSON reader against the general (serde) one: whatever the fast reader accepts, it
//! must read exactly as the general reader does, and `to_json` output must always be accepted.

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::*;

/// The general (serde) reader alone.
pub(super) fn general(json: &str) -> Result<TaskGraph, LoadError> {
    let ctx: ContextRecord = serde_json::from_str(json).map_err(|e| LoadError(e.to_string()))?;
    TaskGraph::from_records(ctx.tasks, |_| None)
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z0-9 ]{0,30}",
        any::<String>(),
        "[\"\\\\\u{0}-\u{1f}é✓😀a]{0,8}",
    ]
}

fn id() -> impl Strategy<Value = String> {
    prop_oneof![
        (0u32..40).prop_map(|v| v.to_string()),
        "[0-9a-z]{1,3}",
        any::<String>()
    ]
}

fn metadata() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-1e9f64..1e9).prop_map(Value::from),
        text().prop_map(Value::from),
    ];
    let value = leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::from),
            prop::collection::btree_map(text(), inner, 0..3)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    });
    prop::collection::btree_map(text(), value, 0..3).prop_map(|m| Value::Object(m.into_iter().collect()))
}

fn state() -> impl Strategy<Value = &'static str> {
    prop_oneof![Just("pending"), Just("in_progress"), Just("completed")]
}

/// A `TaskContext.model_dump()`-shaped value with unique ids and arbitrary (even dangling) edges.
fn context() -> impl Strategy<Value = Value> {
    let task = (
        text(),
        text(),
        metadata(),
        state(),
        proptest::option::of(text()),
        prop::collection::vec(id(), 0..3),
        prop::collection::vec(id(), 0..3),
    );
    (
        prop::collection::btree_set(id(), 0..12),
        prop::collection::vec(task, 12),
    )
        .prop_map(|(ids, tasks)| {
            let tasks: Vec<Value> = ids
                .into_iter()
                .zip(tasks)
                .map(
                    |(id, (subject, description, metadata, state, owner, blocks, blocked_by))| {
                        json!({"subject": subject, "description": description, "metadata": metadata,
                       "created_at": "2026-11-30T09:55:46.533551+00:00", "state": state, "id": id,
                       "owner": owner, "blocks": blocks, "blocked_by": blocked_by})
                    },
                )
                .collect();
            json!({ "tasks": tasks })
        })
}

/// One small edit of a JSON text at a char boundary: a byte dropped, a byte doubled, or one of
/// the characters the layout depends on put in.
fn mutate(json: &str, at: usize, how: u8) -> String {
    let mut at = at % (json.len() + 1);
    while !json.is_char_boundary(at) {
        at -= 1;
    }
    let (head, tail) = json.split_at(at);
    let next = tail.chars().next().map_or(0, char::len_utf8);
    match how % 6 {
        0 => format!("{head}{}", &tail[next..]),
        1 => format!("{head}{}{tail}", &tail[..next]),
        2 => format!("{head}\"{tail}"),
        3 => format!("{head}\\{tail}"),
        4 => format!("{head} {tail}"),
        _ => format!("{head},{tail}"),
    }
}

proptest! {
    #[test]
    fn to_json_output_is_read_back_by_the_fast_reader(ctx in context()) {
        let json = serde_json::to_string(&ctx).unwrap();
        let slow = general(&json).unwrap();
        prop_assert_eq!(slow.to_json(), json.clone());
        let fast = canonical::read(&json, |_| None).expect("the canonical layout is accepted");
        let fast = TaskGraph { graph: fast };
        prop_assert_eq!(fast.to_json(), json);
        prop_assert_eq!(fast.graph().is_ranked(), slow.graph().is_ranked());
        fast.graph().assert_consistent();
    }

    #[test]
    fn whatever_the_fast_reader_accepts_reads_as_the_general_one(
        ctx in context(), at in any::<usize>(), how in any::<u8>()
    ) {
        let json = mutate(&serde_json::to_string(&ctx).unwrap(), at, how);
        let loaded = TaskGraph::from_json(&json, |_| None);
        match canonical::read(&json, |_| None) {
            // The fast reader only parses; `from_json` then checks the graph (duplicate ids), as
            // the general reader does.
            Some(fast) => match general(&json) {
                Ok(slow) => prop_assert_eq!(TaskGraph { graph: fast }.to_json(), slow.to_json()),
                Err(_) => prop_assert!(loaded.is_err(), "from_json accepted what the general reader refuses"),
            },
            None => {
                let slow = general(&json);
                prop_assert_eq!(loaded.is_ok(), slow.is_ok());
            }
        }
    }
}

#[test]
fn escapes_and_metadata_go_through_serde_json() {
    let json = r#"{"tasks":[{"subject":"a\"b\\c\u00e9\ud83d\ude00","description":"\n","metadata":{"k":[1,{"x":"}"}],"k":2.5},"created_at":"t","state":"completed","id":"0","owner":"\u0041","blocks":[],"blocked_by":["x\"y"]}]}"#;
    let fast = TaskGraph {
        graph: canonical::read(json, |_| None).unwrap(),
    };
    let task = fast.get("0").unwrap();
    assert_eq!(task.payload.subject, "a\"b\\cé😀");
    assert_eq!(
        task.payload.metadata,
        Map::from_iter([("k".to_owned(), json!(2.5))])
    );
    assert_eq!(task.payload.owner.as_deref(), Some("A"));
    assert_eq!(task.blocked_by.as_slice(), ["x\"y"]);
    assert_eq!(fast.to_json(), general(json).unwrap().to_json());
    // Raw control characters, a lone surrogate and trailing text are declined, then refused.
    for bad in [
        json.replace("\\n", "\n"),
        json.replace("\\ude00", ""),
        format!("{json} "),
    ] {
        assert!(canonical::read(&bad, |_| None).is_none(), "{bad}");
    }
    assert!(TaskGraph::from_json(&json.replace("\\n", "\n"), |_| None).is_err());
}
