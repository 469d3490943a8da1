//! The structural index behind every task operation: tasks in list order, id -> slot, the
//! numeric-id maximum, and both directions of every dependency edge.
//!
//! Each task's `blocks` / `blocked_by` lists are kept exactly as AgentScope keeps them (order and
//! any repeats included); the reverse maps are derived from them and updated with every change,
//! so no operation here ever scans all tasks.

use std::collections::BTreeMap;

use foldhash::{HashMap, HashMapExt};

use super::ids::{NumericId, ParsedId, parse_numeric};
use super::order::{Order, Slot};

/// Which edge list of a task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// `blocks`: the ids of the tasks this one blocks.
    Blocks,
    /// `blocked_by`: the ids of the tasks this one waits on.
    BlockedBy,
}

impl Side {
    /// The field name, as in AgentScope's `Task`.
    pub fn field(self) -> &'static str {
        match self {
            Side::Blocks => "blocks",
            Side::BlockedBy => "blocked_by",
        }
    }
}

/// One task as the graph sees it: its id, its two edge lists, and whatever else the owner keeps.
#[derive(Clone, Debug, PartialEq)]
pub struct Node<P> {
    /// The task id.
    pub id: String,
    /// Ids of the tasks this task blocks.
    pub blocks: Vec<String>,
    /// Ids of the tasks this task waits on.
    pub blocked_by: Vec<String>,
    /// The owner's data for this task (task fields, or the Python object).
    pub payload: P,
}

impl<P> Node<P> {
    /// The edge list on `side`.
    pub fn edges(&self, side: Side) -> &[String] {
        match side {
            Side::Blocks => &self.blocks,
            Side::BlockedBy => &self.blocked_by,
        }
    }

    fn edges_mut(&mut self, side: Side) -> &mut Vec<String> {
        match side {
            Side::Blocks => &mut self.blocks,
            Side::BlockedBy => &mut self.blocked_by,
        }
    }
}

/// Decides what Python's `int(id)` makes of ids with non-ASCII characters (see [`ParsedId::NeedsHost`]).
pub type Resolver = fn(&str) -> Option<NumericId>;

fn no_resolver(_: &str) -> Option<NumericId> {
    None
}

#[derive(Clone, Debug)]
struct Entry<P> {
    node: Node<P>,
    numeric: Option<NumericId>,
}

/// Tasks in list order with O(1) id lookup, O(log n) positions, and both edge directions indexed.
#[derive(Clone, Debug)]
pub struct Graph<P> {
    entries: Vec<Option<Entry<P>>>,
    order: Order,
    /// The first (lowest position) slot holding each id.
    first: HashMap<String, Slot>,
    /// Later slots holding an id that `first` already has, in list order (duplicates).
    extra: HashMap<String, Vec<Slot>>,
    /// How many tasks hold each numeric id value.
    numeric: BTreeMap<NumericId, u32>,
    /// id -> the slots whose `blocked_by` names it (once per occurrence).
    dependents: HashMap<String, Vec<Slot>>,
    /// id -> the slots whose `blocks` names it (once per occurrence).
    blockers: HashMap<String, Vec<Slot>>,
    resolver: Resolver,
}

impl<P> Default for Graph<P> {
    fn default() -> Self {
        Self::new(no_resolver)
    }
}

fn link_rev(map: &mut HashMap<String, Vec<Slot>>, id: &str, slot: Slot) {
    match map.get_mut(id) {
        Some(slots) => slots.push(slot),
        None => {
            map.insert(id.to_owned(), vec![slot]);
        }
    }
}

fn unlink_rev(map: &mut HashMap<String, Vec<Slot>>, id: &str, slot: Slot) {
    if let Some(slots) = map.get_mut(id) {
        if let Some(p) = slots.iter().position(|s| *s == slot) {
            slots.swap_remove(p);
        }
        if slots.is_empty() {
            map.remove(id);
        }
    }
}

impl<P> Graph<P> {
    /// An empty graph; `resolver` handles ids that only the host language can parse.
    pub fn new(resolver: Resolver) -> Self {
        Self {
            entries: Vec::new(),
            order: Order::default(),
            first: HashMap::new(),
            extra: HashMap::new(),
            numeric: BTreeMap::new(),
            dependents: HashMap::new(),
            blockers: HashMap::new(),
            resolver,
        }
    }

    /// Number of tasks.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Whether there are no tasks.
    pub fn is_empty(&self) -> bool {
        self.order.len() == 0
    }

    /// Slots in list order.
    pub fn slots(&self) -> impl Iterator<Item = Slot> + '_ {
        self.order.iter()
    }

    /// Nodes in list order.
    pub fn nodes(&self) -> impl Iterator<Item = &Node<P>> + '_ {
        self.entries.iter().filter_map(|e| e.as_ref().map(|e| &e.node))
    }

    fn entry(&self, slot: Slot) -> &Entry<P> {
        self.entries[slot as usize].as_ref().expect("slot is alive")
    }

    fn entry_mut(&mut self, slot: Slot) -> &mut Entry<P> {
        self.entries[slot as usize].as_mut().expect("slot is alive")
    }

    /// The task in an alive slot.
    pub fn node(&self, slot: Slot) -> &Node<P> {
        &self.entry(slot).node
    }

    /// The owner's data in an alive slot.
    pub fn payload_mut(&mut self, slot: Slot) -> &mut P {
        &mut self.entry_mut(slot).node.payload
    }

    /// The numeric value of the task's id, if it has one.
    pub fn numeric_of(&self, slot: Slot) -> Option<&NumericId> {
        self.entry(slot).numeric.as_ref()
    }

    /// The list position of an alive slot.
    pub fn position(&self, slot: Slot) -> usize {
        self.order.position(slot)
    }

    /// The slot at a list position.
    pub fn slot_at(&self, pos: usize) -> Option<Slot> {
        self.order.slot_at(pos)
    }

    /// The first task (lowest position) with this id.
    pub fn first_slot(&self, id: &str) -> Option<Slot> {
        self.first.get(id).copied()
    }

    /// The last task (highest position) with this id.
    pub fn last_slot(&self, id: &str) -> Option<Slot> {
        self.extra
            .get(id)
            .and_then(|v| v.last().copied())
            .or_else(|| self.first_slot(id))
    }

    /// Every task with this id, in list order.
    pub fn all_slots<'a>(&'a self, id: &str) -> impl Iterator<Item = Slot> + 'a {
        let first = self.first_slot(id);
        let extra = first
            .and_then(|_| self.extra.get(id))
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        first.into_iter().chain(extra.iter().copied())
    }

    /// Whether more than one task has this id.
    pub fn is_duplicated(&self, id: &str) -> bool {
        self.extra.contains_key(id)
    }

    /// Ids held by more than one task, sorted.
    pub fn duplicate_ids(&self) -> Vec<&str> {
        let mut ids: Vec<&str> = self.extra.keys().map(String::as_str).collect();
        ids.sort_unstable();
        ids
    }

    /// The id AgentScope's `TaskCreate` would give the next task: largest numeric id + 1.
    pub fn next_id(&self) -> String {
        self.numeric
            .last_key_value()
            .map_or_else(|| "1".to_owned(), |(max, _)| max.successor())
    }

    /// The slots whose `blocked_by` names `id` (once per occurrence).
    pub fn dependents(&self, id: &str) -> &[Slot] {
        self.dependents.get(id).map_or(&[], Vec::as_slice)
    }

    /// The slots whose `blocks` names `id` (once per occurrence).
    pub fn blockers(&self, id: &str) -> &[Slot] {
        self.blockers.get(id).map_or(&[], Vec::as_slice)
    }

    fn numeric_value(&self, id: &str) -> Option<NumericId> {
        match parse_numeric(id) {
            ParsedId::Value(v) => Some(v),
            ParsedId::NotNumeric => None,
            ParsedId::NeedsHost => (self.resolver)(id),
        }
    }

    /// Appends a task at the end of the list and returns its slot.
    pub fn insert(&mut self, node: Node<P>) -> Slot {
        let slot = self.order.push();
        for id in &node.blocks {
            link_rev(&mut self.blockers, id, slot);
        }
        for id in &node.blocked_by {
            link_rev(&mut self.dependents, id, slot);
        }
        if self.first.contains_key(&node.id) {
            self.extra.entry(node.id.clone()).or_default().push(slot);
        } else {
            self.first.insert(node.id.clone(), slot);
        }
        let numeric = self.numeric_value(&node.id);
        if let Some(value) = &numeric {
            *self.numeric.entry(value.clone()).or_insert(0) += 1;
        }
        debug_assert_eq!(self.entries.len(), slot as usize);
        self.entries.push(Some(Entry { node, numeric }));
        slot
    }

    /// Removes the task in `slot` from the list (its own edge lists go with it; other tasks'
    /// lists are untouched) and returns it.
    pub fn remove(&mut self, slot: Slot) -> Node<P> {
        let entry = self.entries[slot as usize].take().expect("slot is alive");
        self.order.remove(slot);
        let node = &entry.node;
        for id in &node.blocks {
            unlink_rev(&mut self.blockers, id, slot);
        }
        for id in &node.blocked_by {
            unlink_rev(&mut self.dependents, id, slot);
        }
        if self.first.get(&node.id) == Some(&slot) {
            match self.extra.get_mut(&node.id) {
                Some(rest) => {
                    let next = rest.remove(0);
                    if rest.is_empty() {
                        self.extra.remove(&node.id);
                    }
                    self.first.insert(node.id.clone(), next);
                }
                None => {
                    self.first.remove(&node.id);
                }
            }
        } else if let Some(rest) = self.extra.get_mut(&node.id) {
            rest.retain(|s| *s != slot);
            if rest.is_empty() {
                self.extra.remove(&node.id);
            }
        }
        if let Some(value) = &entry.numeric {
            if let Some(count) = self.numeric.get_mut(value) {
                *count -= 1;
                if *count == 0 {
                    self.numeric.remove(value);
                }
            }
        }
        entry.node
    }

    fn rev_map(&mut self, side: Side) -> &mut HashMap<String, Vec<Slot>> {
        match side {
            Side::Blocks => &mut self.blockers,
            Side::BlockedBy => &mut self.dependents,
        }
    }

    /// Appends `id` to one edge list of the task in `slot`.
    pub fn append_edge(&mut self, slot: Slot, side: Side, id: &str) {
        self.entry_mut(slot).node.edges_mut(side).push(id.to_owned());
        link_rev(self.rev_map(side), id, slot);
    }

    /// Removes the first occurrence of `id` from one edge list (Python's `list.remove`);
    /// returns whether it was there.
    pub fn remove_edge(&mut self, slot: Slot, side: Side, id: &str) -> bool {
        let edges = self.entry_mut(slot).node.edges_mut(side);
        let Some(p) = edges.iter().position(|e| e == id) else {
            return false;
        };
        edges.remove(p);
        unlink_rev(self.rev_map(side), id, slot);
        true
    }

    /// Undoes the last [`Graph::append_edge`] on this list.
    pub fn pop_edge(&mut self, slot: Slot, side: Side) {
        if let Some(id) = self.entry_mut(slot).node.edges_mut(side).pop() {
            unlink_rev(self.rev_map(side), &id, slot);
        }
    }

    /// Replaces both edge lists of a task (used when its lists changed behind the graph's back).
    pub fn set_edges(&mut self, slot: Slot, blocks: Vec<String>, blocked_by: Vec<String>) {
        for (side, new) in [(Side::Blocks, blocks), (Side::BlockedBy, blocked_by)] {
            for id in &new {
                link_rev(self.rev_map(side), id, slot);
            }
            let old = std::mem::replace(self.entry_mut(slot).node.edges_mut(side), new);
            for id in &old {
                unlink_rev(self.rev_map(side), id, slot);
            }
        }
    }

    /// A chain of "waits on" steps (`x.blocked_by` names the next) from `from` to `to`, found
    /// by a bidirectional breadth-first search that stops as soon as either side runs dry, so it
    /// only walks what it must.
    pub fn wait_path(&self, from: Slot, to: Slot) -> Option<Vec<Slot>> {
        if from == to {
            return Some(vec![from]);
        }
        let mut fwd: HashMap<Slot, Slot> = HashMap::new();
        let mut bwd: HashMap<Slot, Slot> = HashMap::new();
        fwd.insert(from, from);
        bwd.insert(to, to);
        let (mut fwd_frontier, mut bwd_frontier) = (vec![from], vec![to]);
        let mut forward_turn = false;
        while !fwd_frontier.is_empty() && !bwd_frontier.is_empty() {
            forward_turn = match fwd_frontier.len().cmp(&bwd_frontier.len()) {
                std::cmp::Ordering::Less => true,
                std::cmp::Ordering::Greater => false,
                std::cmp::Ordering::Equal => !forward_turn,
            };
            let mut next = Vec::new();
            if forward_turn {
                for u in std::mem::take(&mut fwd_frontier) {
                    for id in &self.node(u).blocked_by {
                        for w in self.all_slots(id) {
                            if fwd.contains_key(&w) {
                                continue;
                            }
                            fwd.insert(w, u);
                            if bwd.contains_key(&w) {
                                return Some(join_path(&fwd, &bwd, w));
                            }
                            next.push(w);
                        }
                    }
                }
                fwd_frontier = next;
            } else {
                for v in std::mem::take(&mut bwd_frontier) {
                    for &u in self.dependents(&self.node(v).id) {
                        if bwd.contains_key(&u) {
                            continue;
                        }
                        bwd.insert(u, v);
                        if fwd.contains_key(&u) {
                            return Some(join_path(&fwd, &bwd, u));
                        }
                        next.push(u);
                    }
                }
                bwd_frontier = next;
            }
        }
        None
    }

    /// Renumbers slots when more than half of them are dead (amortized O(1) per removal).
    /// Slots held by the caller are invalid afterwards.
    pub fn maybe_compact(&mut self) {
        let cap = self.order.capacity();
        if cap < 64 || self.len() * 2 > cap {
            return;
        }
        let mut fresh = Graph::new(self.resolver);
        for entry in std::mem::take(&mut self.entries).into_iter().flatten() {
            fresh.insert(entry.node);
        }
        *self = fresh;
    }
}

#[cfg(test)]
impl<P: Clone> Graph<P> {
    /// Test helper: panics unless every derived map agrees with a fresh rebuild.
    pub fn assert_consistent(&self) {
        let mut fresh: Graph<P> = Graph::new(self.resolver);
        for node in self.nodes() {
            fresh.insert(node.clone());
        }
        let sorted = |m: &HashMap<String, Vec<Slot>>, g: &Graph<P>| {
            let mut v: Vec<(String, Vec<usize>)> = m
                .iter()
                .map(|(k, s)| {
                    let mut p: Vec<usize> = s.iter().map(|s| g.position(*s)).collect();
                    p.sort_unstable();
                    (k.clone(), p)
                })
                .collect();
            v.sort();
            v
        };
        assert_eq!(sorted(&self.dependents, self), sorted(&fresh.dependents, &fresh));
        assert_eq!(sorted(&self.blockers, self), sorted(&fresh.blockers, &fresh));
        assert_eq!(self.numeric, fresh.numeric);
        assert_eq!(self.len(), fresh.len());
        for node in self.nodes() {
            let a: Vec<usize> = self.all_slots(&node.id).map(|s| self.position(s)).collect();
            let b: Vec<usize> = fresh.all_slots(&node.id).map(|s| fresh.position(s)).collect();
            assert_eq!(a, b);
        }
    }
}

/// Joins the two half-paths of a bidirectional search at `meet`.
fn join_path(fwd: &HashMap<Slot, Slot>, bwd: &HashMap<Slot, Slot>, meet: Slot) -> Vec<Slot> {
    let mut path = vec![meet];
    let mut at = meet;
    while fwd[&at] != at {
        at = fwd[&at];
        path.push(at);
    }
    path.reverse();
    at = meet;
    while bwd[&at] != at {
        at = bwd[&at];
        path.push(at);
    }
    path
}
