//! Unit and property tests of the task graph against a literal transcription of AgentScope's tools.

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::*;

/// AgentScope's `TaskCreate`/`TaskUpdate` transcribed literally (linear scans, no refusals).
#[derive(Clone, Debug, Default, PartialEq)]
struct Naive {
    tasks: Vec<(String, TaskState, Vec<String>, Vec<String>)>,
}

impl Naive {
    fn create(&mut self) -> String {
        let max = self
            .tasks
            .iter()
            .filter_map(|t| t.0.parse::<u64>().ok())
            .max()
            .unwrap_or(0);
        let id = (max + 1).to_string();
        self.tasks.push((id.clone(), TaskState::Pending, vec![], vec![]));
        id
    }

    fn relate(&mut self, blocker: &str, blocked: &str) {
        for t in &mut self.tasks {
            if t.0 == blocker && !t.2.iter().any(|x| x == blocked) {
                t.2.push(blocked.to_owned());
            }
            if t.0 == blocked && !t.3.iter().any(|x| x == blocker) {
                t.3.push(blocker.to_owned());
            }
        }
    }

    fn link(&mut self, id: &str, add_blocks: &Option<Vec<String>>, add_blocked_by: &Option<Vec<String>>) {
        let index = self.tasks.iter().rposition(|t| t.0 == id).unwrap();
        let existed: Vec<String> = self.tasks.iter().map(|t| t.0.clone()).collect();
        if let Some(list) = add_blocks.as_ref().filter(|l| !l.is_empty()) {
            let new: Vec<String> = list
                .iter()
                .filter(|b| !self.tasks[index].2.contains(b) && existed.contains(b))
                .cloned()
                .collect();
            for b in new {
                self.relate(id, &b);
            }
        }
        if let Some(list) = add_blocked_by {
            let new: Vec<String> = list
                .iter()
                .filter(|b| !self.tasks[index].3.contains(b) && existed.contains(b))
                .cloned()
                .collect();
            for b in new {
                self.relate(&b, id);
            }
        }
    }

    fn status(&mut self, id: &str, status: Status) {
        let index = self.tasks.iter().rposition(|t| t.0 == id).unwrap();
        match status.state() {
            None => {
                self.tasks.remove(index);
                for t in &mut self.tasks {
                    if let Some(p) = t.2.iter().position(|x| x == id) {
                        t.2.remove(p);
                    }
                    if let Some(p) = t.3.iter().position(|x| x == id) {
                        t.3.remove(p);
                    }
                }
            }
            Some(state) => {
                self.tasks[index].1 = state;
                if state == TaskState::Completed {
                    for t in &mut self.tasks {
                        if let Some(p) = t.3.iter().position(|x| x == id) {
                            t.3.remove(p);
                        }
                    }
                }
            }
        }
    }

    /// Whether "waits on" edges (blocked_by) contain a cycle, self-loops included.
    fn has_cycle(&self) -> bool {
        fn visit(n: &Naive, i: usize, stack: &mut Vec<usize>, done: &mut Vec<usize>) -> bool {
            if stack.contains(&i) {
                return true;
            }
            if done.contains(&i) {
                return false;
            }
            stack.push(i);
            for b in &n.tasks[i].3 {
                if let Some(j) = n.tasks.iter().position(|t| &t.0 == b)
                    && visit(n, j, stack, done)
                {
                    return true;
                }
            }
            stack.pop();
            done.push(i);
            false
        }
        let mut done = Vec::new();
        (0..self.tasks.len()).any(|i| visit(self, i, &mut Vec::new(), &mut done))
    }
}

fn snapshot(g: &TaskGraph) -> Naive {
    Naive {
        tasks: g
            .tasks()
            .map(|n| {
                let strings = |ids: &[Id]| ids.iter().map(Id::to_string).collect();
                (
                    n.id.to_string(),
                    n.payload.state,
                    strings(&n.blocks),
                    strings(&n.blocked_by),
                )
            })
            .collect(),
    }
}

#[derive(Clone, Debug)]
enum Op {
    Create,
    Update {
        target: usize,
        blocks: Option<Vec<usize>>,
        blocked_by: Option<Vec<usize>>,
        status: Option<u8>,
    },
}

fn op() -> impl Strategy<Value = Op> {
    let ids = || proptest::option::of(proptest::collection::vec(0usize..12, 0..3));
    prop_oneof![
        2 => Just(Op::Create),
        5 => (0usize..12, ids(), ids(), proptest::option::of(0u8..4))
            .prop_map(|(target, blocks, blocked_by, status)| Op::Update { target, blocks, blocked_by, status }),
    ]
}

/// Picks an existing id for small indexes, an unknown one otherwise.
fn pick(model: &Naive, i: usize) -> String {
    model
        .tasks
        .get(i)
        .map_or_else(|| format!("9{i}"), |t| t.0.clone())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Every accepted operation does exactly what AgentScope does; a refused one is exactly one
    /// AgentScope would have accepted with an unknown id, a self-loop or a new cycle, and changes
    /// nothing. The index stays consistent and the waits-on graph acyclic throughout.
    #[test]
    fn matches_agentscope_and_refuses_only_bad_edges(ops in proptest::collection::vec(op(), 1..40)) {
        let mut g = TaskGraph::default();
        let mut model = Naive::default();
        for op in ops {
            match op {
                Op::Create => {
                    let id = g.create("s".into(), "d".into(), Map::new(), None);
                    prop_assert_eq!(id, model.create());
                }
                Op::Update { target, blocks, blocked_by, status } => {
                    if model.tasks.is_empty() { continue; }
                    let id = pick(&model, target % model.tasks.len());
                    let blocks: Option<Vec<String>> = blocks.map(|v| v.iter().map(|i| pick(&model, *i)).collect());
                    let blocked_by: Option<Vec<String>> = blocked_by.map(|v| v.iter().map(|i| pick(&model, *i)).collect());
                    let status = status.map(|s| [Status::Pending, Status::InProgress, Status::Completed, Status::Deleted][s as usize]);
                    let req = UpdateRequest { add_blocks: blocks.as_deref(), add_blocked_by: blocked_by.as_deref(), status, ..Default::default() };
                    let before = g.to_json();
                    let mut linked = model.clone();
                    linked.link(&id, &blocks, &blocked_by);
                    let names = |l: &Option<Vec<String>>, skip_empty: bool| l.iter().filter(|l| !(skip_empty && l.is_empty())).flatten().cloned().collect::<Vec<_>>();
                    let named: Vec<String> = names(&blocks, true).into_iter().chain(names(&blocked_by, false)).collect();
                    let bad = named.iter().any(|n| n == &id || !model.tasks.iter().any(|t| &t.0 == n)) || linked.has_cycle();
                    match g.update(&id, &req, None) {
                        Ok(_) => {
                            prop_assert!(!bad, "accepted a bad edge");
                            model = linked;
                            if let Some(s) = status { model.status(&id, s); }
                        }
                        Err(e) => {
                            prop_assert!(bad, "refused a good update: {}", e);
                            prop_assert_eq!(g.to_json(), before);
                        }
                    }
                }
            }
            prop_assert_eq!(snapshot(&g), model.clone());
            prop_assert!(!model.has_cycle());
            g.graph().assert_consistent();
            prop_assert!(g.topological_order().is_ok());
            // Edges are symmetric except AgentScope's quirk: a completed task keeps its `blocks`.
            for n in g.tasks() {
                for b in &n.blocked_by {
                    prop_assert!(g.get(b).is_some_and(|t| t.blocks.contains(&n.id)));
                }
            }
        }
    }
}

fn chain(n: usize) -> TaskGraph {
    let mut g = TaskGraph::default();
    for i in 1..=n {
        let id = g.create(format!("task {i}"), String::new(), Map::new(), Some("t".into()));
        if i > 1 {
            let prev = [(i - 1).to_string()];
            g.update(
                &id,
                &UpdateRequest {
                    add_blocked_by: Some(&prev),
                    ..Default::default()
                },
                None,
            )
            .unwrap();
        }
    }
    g
}

#[test]
fn refusals_name_the_problem() {
    let mut g = chain(3);
    let err = |g: &mut TaskGraph, id: &str, blocks: &[&str]| {
        let blocks: Vec<String> = blocks.iter().map(|s| s.to_string()).collect();
        g.update(
            id,
            &UpdateRequest {
                add_blocks: Some(&blocks),
                subject: Some("x"),
                ..Default::default()
            },
            None,
        )
        .unwrap_err()
    };
    let e = err(&mut g, "3", &["1"]);
    assert!(is_cycle(&e));
    assert!(
        e.to_string().contains("3 is blocked by 2, 2 is blocked by 1"),
        "{e}"
    );
    assert!(is_cycle(&err(&mut g, "2", &["2"])));
    let e = err(&mut g, "2", &["7", "8"]);
    assert!(
        e.to_string()
            .contains("add_blocks names task id(s) that do not exist: 7, 8"),
        "{e}"
    );
    assert_eq!(err(&mut g, "9", &["1"]), TaskError::NotFound { id: "9".into() });
    assert_eq!(g.get("3").unwrap().payload.subject, "task 3");
}

#[test]
fn ready_and_order_follow_dependencies() {
    let mut g = chain(3);
    assert_eq!(g.ready(), vec!["1"]);
    assert_eq!(g.topological_order().unwrap(), vec!["1", "2", "3"]);
    let done = UpdateRequest {
        status: Some(Status::Completed),
        ..Default::default()
    };
    let report = g.update("1", &done, None).unwrap();
    assert!(
        report
            .message("1")
            .ends_with("see if your work unblocked others.")
    );
    assert_eq!(g.ready(), vec!["2"]);
    // AgentScope's quirk: the completed task keeps its own `blocks`.
    assert_eq!(g.get("1").unwrap().blocks.as_slice(), ["2"]);
    assert!(g.validate().is_empty());
}

#[test]
fn metadata_merges_and_null_deletes() {
    let mut g = TaskGraph::default();
    let meta = json!({"a": 1, "b": 2}).as_object().cloned().unwrap();
    g.create("s".into(), "d".into(), meta, None);
    let patch = json!({"a": null, "c": [1]}).as_object().cloned().unwrap();
    let report = g.update("1", &UpdateRequest::default(), Some(&patch)).unwrap();
    assert_eq!(report.message("1"), "Update task (id=1) metadata.");
    assert_eq!(
        Value::Object(g.get("1").unwrap().payload.metadata.clone()),
        json!({"b": 2, "c": [1]})
    );
}

#[test]
fn validate_and_repair_loaded_data() {
    let json = r#"{"tasks":[
        {"subject":"a","description":"","metadata":{},"id":"1","blocks":["2","2","9"],"blocked_by":["3"]},
        {"subject":"b","description":"","metadata":{},"id":"2","blocked_by":["1"]},
        {"subject":"c","description":"","metadata":{},"id":"3","blocks":["1"],"blocked_by":["2","3"]},
        {"subject":"legacy","description":"","metadata":{},"id":"abc"}]}"#;
    let mut g = TaskGraph::from_json(json, |_| None).unwrap();
    let kinds: Vec<&str> = g.validate().iter().map(|p| p.kind.as_str()).collect();
    for kind in [
        "duplicate_edge",
        "dangling_edge",
        "self_loop",
        "one_sided_edge",
        "cycle",
    ] {
        assert!(kinds.contains(&kind), "{kind} missing from {kinds:?}");
    }
    assert!(g.topological_order().is_err());
    let fixed = g.repair();
    assert!(!fixed.is_empty());
    assert_eq!(g.validate(), vec![]);
    assert_eq!(g.topological_order().unwrap().last(), Some(&"abc"));
    g.graph().assert_consistent();
    assert_eq!(g.create("s".into(), "d".into(), Map::new(), None), "4");
}

#[test]
fn loading_refuses_bad_data_with_a_path() {
    let bad = |json: &str| TaskGraph::from_json(json, |_| None).unwrap_err().0;
    assert!(
        bad(r#"{"tasks":[{"subject":1,"description":"","metadata":{}}]}"#).starts_with("tasks[0].subject")
    );
    assert!(
        bad(r#"{"tasks":[{"subject":"","description":"","metadata":{},"state":"done"}]}"#).contains("done")
    );
    let dup = r#"{"tasks":[{"subject":"","description":"","metadata":{},"id":"1"},{"subject":"","description":"","metadata":{},"id":"1"}]}"#;
    assert!(bad(dup).contains("duplicate task id \"1\": tasks[0] and tasks[1] both have it"));
}

#[test]
fn fast_json_load_matches_the_general_one() {
    let task = r#"{"subject":"s\u00e9","description":"d","metadata":{"k":[1,null]},"created_at":"t","id":"7","blocks":["8"]}"#;
    let general = |json: &str| super::json_tests::general(json).unwrap().to_json();
    // Plain, extra keys, an escaped key, the list form serde also accepts, no tasks at all.
    for json in [
        format!(r#"{{"tasks":[{task}]}}"#),
        format!(r#"{{"x":{{"tasks":1}},"tasks":[{task}],"y":null}}"#),
        format!(r#"{{"t\u0061sks":[{task}]}}"#),
        format!(r#"[[{task}]]"#),
        "{}".to_owned(),
    ] {
        let loaded = TaskGraph::from_json(&json, |_| None).unwrap();
        assert_eq!(loaded.to_json(), general(&json), "{json}");
    }
    let twice = format!(r#"{{"tasks":[],"tasks":[{task}]}}"#);
    assert!(
        TaskGraph::from_json(&twice, |_| None)
            .unwrap_err()
            .0
            .contains("duplicate field")
    );
    assert!(TaskGraph::from_json(r#"{"tasks":[]} x"#, |_| None).is_err());
}

#[test]
fn json_round_trip_and_drawings() {
    let mut g = chain(3);
    g.update(
        "1",
        &UpdateRequest {
            status: Some(Status::Completed),
            ..Default::default()
        },
        None,
    )
    .unwrap();
    let back = TaskGraph::from_json(&g.to_json(), |_| None).unwrap();
    assert_eq!(back.to_json(), g.to_json());
    let mermaid = g.to_mermaid();
    assert!(mermaid.contains("t0[\"#1 task 1\"]:::completed"));
    assert!(mermaid.contains("t0 -.-> t1") && mermaid.contains("t1 --> t2"));
    assert!(g.to_dot().contains("\"2\" -> \"3\";"));
}

#[test]
fn deletes_remove_every_edge_and_keep_order() {
    let mut g = chain(200);
    let del = UpdateRequest {
        status: Some(Status::Deleted),
        ..Default::default()
    };
    for i in (2..200).step_by(2) {
        g.update(&i.to_string(), &del, None).unwrap();
    }
    g.graph().assert_consistent();
    assert_eq!(g.len(), 101);
    let ids: Vec<&str> = g.tasks().map(|n| n.id.as_str()).collect();
    assert_eq!(ids[..3], ["1", "3", "5"]);
    assert!(
        g.tasks()
            .take(99)
            .all(|n| n.blocks.is_empty() && n.blocked_by.is_empty())
    );
    assert_eq!(g.get("200").unwrap().blocked_by.as_slice(), ["199"]);
    assert_eq!(g.create(String::new(), String::new(), Map::new(), None), "201");
}

#[test]
fn loaded_cycles_fall_back_to_search_and_repair_restores_ranks() {
    // 1 <-> 2 wait on each other (loaded data); 3 -> 4 -> 5 is a clean chain.
    let json = r#"{"tasks":[
        {"subject":"","description":"","metadata":{},"id":"1","blocks":["2"],"blocked_by":["2"]},
        {"subject":"","description":"","metadata":{},"id":"2","blocks":["1"],"blocked_by":["1"]},
        {"subject":"","description":"","metadata":{},"id":"3","blocks":["4"]},
        {"subject":"","description":"","metadata":{},"id":"4","blocks":["5"],"blocked_by":["3"]},
        {"subject":"","description":"","metadata":{},"id":"5","blocked_by":["4"]}]}"#;
    let mut g = TaskGraph::from_json(json, |_| None).unwrap();
    assert!(!g.graph().is_ranked());
    let link = |g: &mut TaskGraph, id: &str, by: &str| {
        let by = [by.to_string()];
        g.update(
            id,
            &UpdateRequest {
                add_blocked_by: Some(&by),
                ..Default::default()
            },
            None,
        )
    };
    assert!(is_cycle(&link(&mut g, "3", "5").unwrap_err()));
    link(&mut g, "5", "1").unwrap();
    assert!(is_cycle(&link(&mut g, "1", "5").unwrap_err()));
    g.repair();
    assert!(g.graph().is_ranked());
    g.graph().assert_consistent();
    // Ranked again: a backward edge reorders, a closing one is still refused.
    link(&mut g, "3", "2").unwrap();
    assert!(is_cycle(&link(&mut g, "2", "5").unwrap_err()));
    g.graph().assert_consistent();
    assert!(g.topological_order().is_ok());
}

/// Whether an error is a refused cycle or self-loop.
fn is_cycle(e: &TaskError) -> bool {
    matches!(e, TaskError::Cycle { .. } | TaskError::SelfLoop { .. })
}

#[test]
fn long_chains_and_ids_are_capped_in_messages() {
    let path: Vec<String> = (0..100_000).rev().map(|i| i.to_string()).collect();
    let text = ops::wait_chain(&path);
    assert!(text.len() < 300, "{text}");
    assert!(text.starts_with("99999 is blocked by 99998, "), "{text}");
    assert!(text.ends_with("1 is blocked by 0; 100000 tasks in all"), "{text}");
    assert!(text.contains("… 99991 more steps …"), "{text}");
    let short: Vec<String> = ["3", "2", "1"].map(String::from).to_vec();
    assert_eq!(ops::wait_chain(&short), "3 is blocked by 2, 2 is blocked by 1");
    let long = "é".repeat(100);
    assert_eq!(ops::short_id(&long), format!("{}…", "é".repeat(32)));
}

#[test]
fn detaching_a_much_named_id_keeps_the_index_consistent() {
    let mut g = chain(3);
    let star: Vec<String> = (0..500)
        .map(|_| g.create("s".into(), String::new(), Map::new(), None))
        .collect();
    for id in &star {
        let one = ["1".to_owned()];
        let req = UpdateRequest {
            add_blocked_by: Some(&one),
            ..Default::default()
        };
        g.update(id, &req, None).unwrap();
    }
    // A task naming the id twice keeps one occurrence.
    let twice = g.graph.first_slot(&star[0]).unwrap();
    g.graph.append_edge(twice, Side::BlockedBy, "1");
    let removed = g.graph.detach(Side::BlockedBy, "1");
    assert_eq!(removed.len(), 501);
    assert_eq!(g.graph.dependents("1"), &[twice]);
    g.graph.assert_consistent();
}
