//! Queries AgentScope lacks: ready tasks, a topological order, validation and repair of loaded data.

use super::hashing::{HashMap, HashSet};

use super::edges::{Edges, Side};
use super::graph::{Graph, Resolver};
use super::ids::{Id, compare_ids};
use super::model::{TaskData, TaskRecord, TaskState};
use super::native::{LoadError, TaskGraph};
use super::ops::{TaskError, wait_chain};
use super::order::Slot;

/// The kind of a problem [`TaskGraph::validate`] finds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProblemKind {
    /// Two tasks share an id (only in unloaded data).
    DuplicateId,
    /// An edge names an id no task has.
    DanglingEdge,
    /// A task names itself in an edge list.
    SelfLoop,
    /// An edge is recorded on one side only.
    OneSidedEdge,
    /// An id appears twice in one edge list.
    DuplicateEdge,
    /// Tasks wait on each other in a circle.
    Cycle,
}

impl ProblemKind {
    /// The kind's snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            ProblemKind::DuplicateId => "duplicate_id",
            ProblemKind::DanglingEdge => "dangling_edge",
            ProblemKind::SelfLoop => "self_loop",
            ProblemKind::OneSidedEdge => "one_sided_edge",
            ProblemKind::DuplicateEdge => "duplicate_edge",
            ProblemKind::Cycle => "cycle",
        }
    }
}

/// One problem in loaded task data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// What is wrong.
    pub kind: ProblemKind,
    /// The ids involved (for a cycle: the tasks around it, each waiting on the next).
    pub ids: Vec<String>,
    /// A sentence describing it.
    pub message: String,
}

impl Problem {
    /// A problem of `kind` about `ids`, described by `message`.
    fn new(kind: ProblemKind, ids: Vec<String>, message: String) -> Self {
        Problem { kind, ids, message }
    }
}

/// A wrapper ordering slots "lowest id first" for the heaps below.
struct ById<'a> {
    graph: &'a Graph<TaskData>,
    slot: Slot,
}

impl PartialEq for ById<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == std::cmp::Ordering::Equal
    }
}
impl Eq for ById<'_> {}
impl PartialOrd for ById<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for ById<'_> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        let g = self.graph;
        compare_ids(
            &g.node(self.slot).id,
            g.numeric_of(self.slot),
            &g.node(other.slot).id,
            g.numeric_of(other.slot),
        )
        .then(self.slot.cmp(&other.slot))
    }
}

/// Kahn's algorithm over "waits on" edges, lowest id first among the available tasks.
fn kahn(g: &Graph<TaskData>) -> (Vec<Slot>, Vec<Slot>) {
    g.kahn_by(|slot| ById { graph: g, slot })
}

/// The cycles behind the left-over tasks of [`kahn`], one per region, each as a closed walk.
/// Every left-over task waits on another left-over task, so walking from one always closes a
/// loop; a walk that runs into an earlier walk's tasks finds nothing new. Each task is walked
/// once, so this is linear in the left-over tasks and their edges.
fn cycles(g: &Graph<TaskData>, left: Vec<Slot>) -> Vec<Vec<Slot>> {
    let left_set: HashSet<Slot> = left.iter().copied().collect();
    // Which walk reached a task (and where on that walk's path it is).
    let mut reached: HashMap<Slot, (usize, usize)> = HashMap::default();
    let mut out = Vec::new();
    for (walk, &start) in left.iter().enumerate() {
        if reached.contains_key(&start) {
            continue;
        }
        let mut path = vec![start];
        reached.insert(start, (walk, 0));
        let mut at = start;
        loop {
            let next = g
                .prerequisites(at)
                .into_iter()
                .find(|s| left_set.contains(s))
                .expect("left-over tasks wait");
            match reached.get(&next) {
                Some(&(w, p)) if w == walk => {
                    let mut cycle = path.split_off(p);
                    cycle.push(next);
                    out.push(cycle);
                    break;
                }
                Some(_) => break,
                None => {
                    reached.insert(next, (walk, path.len()));
                    path.push(next);
                    at = next;
                }
            }
        }
    }
    out
}

fn ids(g: &Graph<TaskData>, slots: &[Slot]) -> Vec<String> {
    slots.iter().map(|s| g.node(*s).id.to_string()).collect()
}

fn cycle_problem(g: &Graph<TaskData>, cycle: &[Slot]) -> Problem {
    let ids = ids(g, cycle);
    let message = format!("tasks wait on each other in a cycle: {}", wait_chain(&ids));
    Problem::new(ProblemKind::Cycle, ids, message)
}

impl TaskGraph {
    /// Ids of pending tasks with no open blocker (every task they wait on is completed or gone),
    /// lowest id first.
    pub fn ready(&self) -> Vec<&str> {
        let g = &self.graph;
        let mut out: Vec<ById<'_>> = g
            .slots()
            .filter(|s| g.node(*s).payload.state == TaskState::Pending)
            .filter(|s| {
                g.node(*s).blocked_by.iter().all(|id| {
                    g.all_slots(id)
                        .all(|b| g.node(b).payload.state == TaskState::Completed)
                })
            })
            .map(|slot| ById { graph: g, slot })
            .collect();
        out.sort();
        out.into_iter().map(|b| g.node(b.slot).id.as_str()).collect()
    }

    /// Every task id, each after all the tasks it waits on (`blocked_by`), lowest id first among
    /// equals. Refused with [`TaskError::Cycle`] when tasks wait on each other.
    pub fn topological_order(&self) -> Result<Vec<&str>, TaskError> {
        let g = &self.graph;
        let self_loop = g.slots().find(|s| g.node(*s).blocked_by.contains(&g.node(*s).id));
        if let Some(s) = self_loop {
            let id = g.node(s).id.to_string();
            return Err(TaskError::Cycle {
                blocker: id.clone(),
                blocked: id.clone(),
                path: vec![id.clone(), id],
            });
        }
        let (order, left) = kahn(g);
        if let Some(cycle) = cycles(g, left).into_iter().next() {
            let path = ids(g, &cycle);
            let (blocker, blocked) = (path[path.len() - 2].clone(), path[path.len() - 1].clone());
            return Err(TaskError::Cycle {
                blocker,
                blocked,
                path,
            });
        }
        Ok(order.into_iter().map(|s| g.node(s).id.as_str()).collect())
    }

    /// Problems in the data: dangling, one-sided, repeated and self-referencing edges, and cycles.
    /// AgentScope's own quirk — a completed task keeps its `blocks` while its dependents drop it
    /// from `blocked_by` — is not a problem.
    pub fn validate(&self) -> Vec<Problem> {
        let g = &self.graph;
        let mut problems = Vec::new();
        // Every (task, id) pair of each side, to ask "does that task list this id" in O(1).
        let mut listed: [HashSet<(Slot, &str)>; 2] = [HashSet::default(), HashSet::default()];
        for slot in g.slots() {
            for (i, side) in [Side::Blocks, Side::BlockedBy].into_iter().enumerate() {
                listed[i].extend(g.node(slot).edges(side).iter().map(|id| (slot, id.as_str())));
            }
        }
        for slot in g.slots() {
            let node = g.node(slot);
            for side in [Side::Blocks, Side::BlockedBy] {
                let mut times: HashMap<&str, usize> = HashMap::default();
                for other in node.edges(side) {
                    *times.entry(other).or_insert(0) += 1;
                }
                let mut seen: HashSet<&str> = HashSet::default();
                for other in node.edges(side) {
                    let pair = vec![node.id.to_string(), other.to_string()];
                    let field = side.field();
                    if !seen.insert(other) {
                        continue; // a repeated id is reported once, at its first occurrence
                    }
                    if times[other.as_str()] > 1 {
                        let message = format!("task {} lists {other} more than once in {field}", node.id);
                        problems.push(Problem::new(ProblemKind::DuplicateEdge, pair.clone(), message));
                    }
                    if *other == node.id {
                        let message = format!("task {} names itself in {field}", node.id);
                        problems.push(Problem::new(ProblemKind::SelfLoop, pair, message));
                        continue;
                    }
                    let Some(target) = g.first_slot(other) else {
                        let message = format!("task {} names unknown task {other} in {field}", node.id);
                        problems.push(Problem::new(ProblemKind::DanglingEdge, pair, message));
                        continue;
                    };
                    let lists = |side: usize| listed[side].contains(&(target, node.id.as_str()));
                    let one_sided = match side {
                        Side::Blocks => node.payload.state != TaskState::Completed && !lists(1),
                        Side::BlockedBy => !lists(0),
                    };
                    if one_sided {
                        let (other_field, verb) = match side {
                            Side::Blocks => ("blocked_by", "blocks"),
                            Side::BlockedBy => ("blocks", "is blocked by"),
                        };
                        let message = format!(
                            "task {} {verb} task {other}, but task {other} does not list {} in {other_field}",
                            node.id, node.id
                        );
                        problems.push(Problem::new(ProblemKind::OneSidedEdge, pair, message));
                    }
                }
            }
        }
        let (_, left) = kahn(g);
        problems.extend(cycles(g, left).iter().map(|c| cycle_problem(g, c)));
        problems
    }

    /// Fixes what [`TaskGraph::validate`] reports and returns those problems: drops dangling,
    /// repeated and self-referencing edge entries, adds the missing side of one-sided edges, then
    /// breaks each cycle at an edge where a task waits on a higher id.
    pub fn repair(&mut self) -> Vec<Problem> {
        let problems = self.validate();
        if problems.is_empty() {
            return problems;
        }
        let g = &mut self.graph;
        let slots: Vec<Slot> = g.slots().collect();
        for &slot in &slots {
            let node = g.node(slot);
            let keep = |list: &[Id]| {
                let mut out = Edges::new();
                for id in list {
                    if *id != node.id && g.first_slot(id).is_some() && !out.contains(id) {
                        out.push(id.clone());
                    }
                }
                out
            };
            let (blocks, blocked_by) = (keep(&node.blocks), keep(&node.blocked_by));
            g.set_edges(slot, blocks, blocked_by);
        }
        for &slot in &slots {
            let node = g.node(slot).clone();
            for other in &node.blocks {
                let t = g.first_slot(other).expect("kept");
                if node.payload.state != TaskState::Completed && !g.node(t).blocked_by.contains(&node.id) {
                    g.append_edge(t, Side::BlockedBy, &node.id);
                }
            }
            for other in &node.blocked_by {
                let t = g.first_slot(other).expect("kept");
                if !g.node(t).blocks.contains(&node.id) {
                    g.append_edge(t, Side::Blocks, &node.id);
                }
            }
        }
        loop {
            let (_, left) = kahn(g);
            let Some(cycle) = cycles(g, left).into_iter().next() else {
                break;
            };
            // cycle[i] waits on cycle[i + 1]; cut where a task waits on a higher id, else the first step.
            let steps: Vec<(Slot, Slot)> = cycle.windows(2).map(|w| (w[0], w[1])).collect();
            let (waiter, blocker) = steps
                .iter()
                .copied()
                .filter(|(w, b)| {
                    compare_ids(&g.node(*b).id, g.numeric_of(*b), &g.node(*w).id, g.numeric_of(*w)).is_gt()
                })
                .min_by(|a, b| ById { graph: g, slot: a.0 }.cmp(&ById { graph: g, slot: b.0 }))
                .unwrap_or(steps[0]);
            let (waiter_id, blocker_id) = (g.node(waiter).id.clone(), g.node(blocker).id.clone());
            while g.remove_edge(waiter, Side::BlockedBy, &blocker_id) {}
            while g.remove_edge(blocker, Side::Blocks, &waiter_id) {}
        }
        g.rerank();
        problems
    }
}

impl TaskGraph {
    /// The problems in task records before loading them: duplicate ids (which
    /// loading refuses) plus everything [`TaskGraph::validate`] reports for the first task of
    /// each id.
    pub fn problems_in(records: Vec<TaskRecord>, resolver: Resolver) -> Result<Vec<Problem>, LoadError> {
        let mut problems = Vec::new();
        let mut first_at: HashMap<Id, usize> = HashMap::default();
        let mut kept = Vec::new();
        for (i, record) in records.into_iter().enumerate() {
            if let Some(first) = first_at.get(&record.id) {
                let message = format!("tasks[{first}] and tasks[{i}] both have the id {:?}", record.id);
                problems.push(Problem::new(
                    ProblemKind::DuplicateId,
                    vec![record.id.into()],
                    message,
                ));
                continue;
            }
            first_at.insert(record.id.clone(), i);
            kept.push(record);
        }
        problems.extend(TaskGraph::from_records(kept, resolver)?.validate());
        Ok(problems)
    }
}
