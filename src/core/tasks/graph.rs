//! The structural index behind every task operation: tasks in list order, id -> slot, the
//! numeric-id maximum, and both directions of every dependency edge.
//!
//! Each task's `blocks` / `blocked_by` lists are kept exactly as AgentScope keeps them (order and
//! any repeats included); the reverse maps are derived from them and updated with every change,
//! so no operation here ever scans all tasks.

use std::collections::BTreeMap;

use super::edges::{Edges, Side};
use super::hashing::{HashMap, HashSet};
use super::id_index::{IdIndex, KeyRef, Slots};
use super::ids::{Id, NumericId, ParsedId, parse_numeric};
use super::order::{Order, Slot};

/// One task as the graph sees it: its id, its two edge lists, and whatever else the owner keeps.
#[derive(Clone, Debug, PartialEq)]
pub struct Node<P> {
    /// The task id.
    pub id: Id,
    /// Ids of the tasks this task blocks.
    pub blocks: Edges,
    /// Ids of the tasks this task waits on.
    pub blocked_by: Edges,
    /// The owner's data for this task (task fields, or the Python object).
    pub payload: P,
}

impl<P> Node<P> {
    /// The edge list on `side`.
    pub fn edges(&self, side: Side) -> &[Id] {
        match side {
            Side::Blocks => &self.blocks,
            Side::BlockedBy => &self.blocked_by,
        }
    }

    fn edges_mut(&mut self, side: Side) -> &mut Edges {
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
    /// What each id is used for: the task(s) that have it and the edge lists that name it.
    ids: IdIndex,
    /// Later slots holding an id that `first` already has, in list order (duplicates).
    extra: HashMap<Id, Vec<Slot>>,
    /// How many tasks hold each numeric id value.
    numeric: BTreeMap<NumericId, u32>,
    /// A topological rank per slot (a blocker ranks below the tasks waiting on it), maintained
    /// with Pearce and Kelly's dynamic algorithm; meaningful only while `ranked`.
    rank: Vec<u64>,
    next_rank: u64,
    /// False while the waits-on graph has a cycle or duplicate ids (loaded data); cycle checks
    /// then fall back to a bidirectional search.
    ranked: bool,
    resolver: Resolver,
}

impl<P> Default for Graph<P> {
    fn default() -> Self {
        Self::new(no_resolver)
    }
}

/// Records that the `side` list of `slot` names `id`; returns the first task with that id.
fn link_rev(ids: &mut IdIndex, side: Side, id: &str, slot: Slot) -> Option<Slot> {
    let used = ids.entry(KeyRef::of(id));
    used.named_by(side).push(slot);
    used.first
}

fn unlink_rev(ids: &mut IdIndex, side: Side, id: &str, slot: Slot) {
    ids.update(KeyRef::of(id), |used| {
        let slots = used.named_by(side);
        if let Some(p) = slots.iter().position(|s| *s == slot) {
            slots.swap_remove(p);
        }
    });
}

impl<P> Graph<P> {
    /// An empty graph; `resolver` handles ids that only the host language can parse.
    pub fn new(resolver: Resolver) -> Self {
        Self {
            entries: Vec::new(),
            order: Order::default(),
            ids: IdIndex::default(),
            extra: HashMap::default(),
            numeric: BTreeMap::new(),
            rank: Vec::new(),
            next_rank: 0,
            ranked: true,
            resolver,
        }
    }

    /// Whether cycle checks can use the topological ranks (false while loaded data holds a
    /// cycle or duplicate ids).
    pub fn is_ranked(&self) -> bool {
        self.ranked
    }

    /// A graph holding `nodes` in order (ranked once at the end, in O(n + edges)).
    pub fn from_nodes(nodes: impl IntoIterator<Item = Node<P>>, resolver: Resolver) -> Self {
        let mut g = Self::new(resolver);
        g.extend(nodes);
        g
    }

    /// Makes room for `more` tasks.
    pub fn reserve(&mut self, more: usize) {
        self.entries.reserve(more);
        self.rank.reserve(more);
        self.order.reserve(more);
        self.ids.reserve(more);
    }

    /// Appends many tasks, then ranks the whole graph once.
    pub fn extend(&mut self, nodes: impl IntoIterator<Item = Node<P>>) {
        let nodes = nodes.into_iter();
        let more = nodes.size_hint().0;
        self.reserve(more);
        // Whether every task so far waits only on tasks listed before it.
        let mut forward = self.entries.is_empty();
        self.ranked = false;
        let mut values = Vec::with_capacity(more);
        for node in nodes {
            let (slot, node_forward) = self.push_node(node);
            forward &= node_forward;
            values.extend(self.entry(slot).numeric.clone());
        }
        // Count numeric ids in bulk: sorted runs, built in O(n) when the map starts empty.
        values.sort_unstable();
        let counts = values
            .chunk_by(|a, b| a == b)
            .map(|run| (run[0].clone(), run.len() as u32));
        if self.numeric.is_empty() {
            self.numeric = counts.collect();
        } else {
            for (value, count) in counts {
                *self.numeric.entry(value).or_insert(0) += count;
            }
        }
        if forward && self.extra.is_empty() {
            self.rank_in_list_order();
        } else {
            self.rerank();
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
        self.ids.get(KeyRef::of(id)).and_then(|used| used.first)
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
        let mut ids: Vec<&str> = self.extra.keys().map(Id::as_str).collect();
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
        self.ids
            .get(KeyRef::of(id))
            .map_or(&[], |used| used.dependents.as_slice())
    }

    /// The slots whose `blocks` names `id` (once per occurrence).
    pub fn blockers(&self, id: &str) -> &[Slot] {
        self.ids
            .get(KeyRef::of(id))
            .map_or(&[], |used| used.blockers.as_slice())
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
        let (slot, _) = self.push_node(node);
        if let Some(value) = self.entry(slot).numeric.clone() {
            *self.numeric.entry(value).or_insert(0) += 1;
        }
        if self.ranked {
            // The new task ranks last: edges to it are fine, edges from it (tasks that already
            // named its id) need ordering.
            let id = self.node(slot).id.clone();
            let waiting: Vec<Slot> = self.dependents(&id).to_vec();
            if self.is_duplicated(&id) || waiting.contains(&slot) {
                self.ranked = false;
            }
            for w in waiting {
                if self.ranked && self.order_wait(slot, w).is_err() {
                    self.ranked = false;
                }
            }
        }
        slot
    }

    /// Appends a task and indexes its id and edges; the caller counts its numeric id and ranks it.
    /// Also tells whether every task it waits on was already in the list.
    fn push_node(&mut self, node: Node<P>) -> (Slot, bool) {
        let slot = self.order.push();
        for id in &node.blocks {
            link_rev(&mut self.ids, Side::Blocks, id, slot);
        }
        let mut forward = true;
        for id in &node.blocked_by {
            forward &= link_rev(&mut self.ids, Side::BlockedBy, id, slot).is_some();
        }
        let key = KeyRef::of(&node.id);
        let used = self.ids.entry(key);
        match used.first {
            Some(_) => self.extra.entry(node.id.clone()).or_default().push(slot),
            None => used.first = Some(slot),
        }
        let numeric = match key {
            KeyRef::Num(value) => Some(NumericId::Small(value.into())),
            KeyRef::Text(id) => self.numeric_value(id),
        };
        debug_assert_eq!(self.entries.len(), slot as usize);
        self.entries.push(Some(Entry { node, numeric }));
        self.rank.push(self.next_rank);
        self.next_rank += 1;
        (slot, forward)
    }

    /// Removes the task in `slot` from the list (its own edge lists go with it; other tasks'
    /// lists are untouched) and returns it.
    pub fn remove(&mut self, slot: Slot) -> Node<P> {
        let entry = self.entries[slot as usize].take().expect("slot is alive");
        self.order.remove(slot);
        let node = &entry.node;
        for id in &node.blocks {
            unlink_rev(&mut self.ids, Side::Blocks, id, slot);
        }
        for id in &node.blocked_by {
            unlink_rev(&mut self.ids, Side::BlockedBy, id, slot);
        }
        if self.first_slot(&node.id) == Some(slot) {
            let next = self.extra.get_mut(&node.id).map(|rest| rest.remove(0));
            if self.extra.get(&node.id).is_some_and(Vec::is_empty) {
                self.extra.remove(&node.id);
            }
            self.ids.update(KeyRef::of(&node.id), |used| used.first = next);
        } else if let Some(rest) = self.extra.get_mut(&node.id) {
            rest.retain(|s| *s != slot);
            if rest.is_empty() {
                self.extra.remove(&node.id);
            }
        }
        if let Some(value) = &entry.numeric
            && let Some(count) = self.numeric.get_mut(value)
        {
            *count -= 1;
            if *count == 0 {
                self.numeric.remove(value);
            }
        }
        entry.node
    }

    /// Appends `id` to one edge list of the task in `slot`.
    pub fn append_edge(&mut self, slot: Slot, side: Side, id: &str) {
        self.entry_mut(slot).node.edges_mut(side).push(Id::from(id));
        link_rev(&mut self.ids, side, id, slot);
    }

    /// Removes the first occurrence of `id` from one edge list (Python's `list.remove`);
    /// returns whether it was there.
    pub fn remove_edge(&mut self, slot: Slot, side: Side, id: &str) -> bool {
        let edges = self.entry_mut(slot).node.edges_mut(side);
        let Some(p) = edges.iter().position(|e| e == id) else {
            return false;
        };
        edges.remove(p);
        unlink_rev(&mut self.ids, side, id, slot);
        true
    }

    /// Removes the first occurrence of `id` from the `side` list of every task that names it
    /// and returns those tasks in slot order; linear in how often `id` is named.
    pub fn detach(&mut self, side: Side, id: &str) -> Vec<Slot> {
        let key = KeyRef::of(id);
        let mut naming: Vec<Slot> = match self.ids.get(key) {
            Some(used) => match side {
                Side::Blocks => used.blockers.to_vec(),
                Side::BlockedBy => used.dependents.to_vec(),
            },
            None => return Vec::new(),
        };
        naming.sort_unstable();
        let mut removed = Vec::new();
        let mut still = Slots::new();
        for run in naming.chunk_by(|a, b| a == b) {
            let edges = self.entry_mut(run[0]).node.edges_mut(side);
            match edges.iter().position(|e| e == id) {
                Some(p) => {
                    edges.remove(p);
                    removed.push(run[0]);
                    still.extend_from_slice(&run[1..]);
                }
                None => still.extend_from_slice(run),
            }
        }
        self.ids.update(key, |used| *used.named_by(side) = still);
        removed
    }

    /// Undoes the last [`Graph::append_edge`] on this list.
    pub fn pop_edge(&mut self, slot: Slot, side: Side) {
        if let Some(id) = self.entry_mut(slot).node.edges_mut(side).pop() {
            unlink_rev(&mut self.ids, side, &id, slot);
        }
    }

    /// Replaces both edge lists of a task (used when its lists changed behind the graph's back).
    pub fn set_edges(&mut self, slot: Slot, blocks: Edges, blocked_by: Edges) {
        for (side, new) in [(Side::Blocks, blocks), (Side::BlockedBy, blocked_by)] {
            for id in &new {
                link_rev(&mut self.ids, side, id, slot);
            }
            let old = std::mem::replace(self.entry_mut(slot).node.edges_mut(side), new);
            for id in &old {
                unlink_rev(&mut self.ids, side, id, slot);
            }
        }
        let blockers: Vec<Slot> = self
            .node(slot)
            .blocked_by
            .iter()
            .flat_map(|id| self.all_slots(id))
            .collect();
        for b in blockers {
            if self.ranked
                && (b == slot || self.is_duplicated(&self.node(b).id) || self.order_wait(b, slot).is_err())
            {
                self.ranked = false;
            }
        }
    }

    /// The distinct tasks `slot` waits on (its `blocked_by`, resolved; itself left out).
    pub fn prerequisites(&self, slot: Slot) -> Vec<Slot> {
        let mut out: Vec<Slot> = self
            .node(slot)
            .blocked_by
            .iter()
            .flat_map(|id| self.all_slots(id))
            .collect();
        out.sort_unstable();
        out.dedup();
        out.retain(|s| *s != slot);
        out
    }

    /// The distinct tasks waiting on `slot` (itself left out).
    pub fn waiters(&self, slot: Slot) -> Vec<Slot> {
        let mut out: Vec<Slot> = self.dependents(&self.node(slot).id).to_vec();
        out.sort_unstable();
        out.dedup();
        out.retain(|s| *s != slot);
        out
    }

    /// Kahn's algorithm over "waits on" edges, taking the smallest `key` among the available
    /// tasks first. Returns the order and the tasks left over (those on or behind a cycle).
    pub fn kahn_by<K: Ord>(&self, key: impl Fn(Slot) -> K) -> (Vec<Slot>, Vec<Slot>) {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let mut waiting = vec![0usize; self.entries.len()];
        let mut heap = BinaryHeap::new();
        for slot in self.slots() {
            waiting[slot as usize] = self.prerequisites(slot).len();
            if waiting[slot as usize] == 0 {
                heap.push(Reverse((key(slot), slot)));
            }
        }
        let mut order = Vec::with_capacity(self.len());
        while let Some(Reverse((_, slot))) = heap.pop() {
            order.push(slot);
            for d in self.waiters(slot) {
                waiting[d as usize] -= 1;
                if waiting[d as usize] == 0 {
                    heap.push(Reverse((key(d), d)));
                }
            }
        }
        let mut done = vec![false; self.entries.len()];
        for s in &order {
            done[*s as usize] = true;
        }
        let left = self.slots().filter(|s| !done[*s as usize]).collect();
        (order, left)
    }

    /// Recomputes the ranks from scratch; leaves the graph unranked if it has a cycle,
    /// a self-loop or duplicate ids.
    pub fn rerank(&mut self) {
        self.ranked = false;
        if !self.extra.is_empty() || self.nodes().any(|n| n.blocked_by.contains(&n.id)) {
            return;
        }
        // Usual case: every task waits only on tasks listed before it, so list order is a ranking.
        let forward_only = self.slots().all(|s| {
            self.node(s)
                .blocked_by
                .iter()
                .all(|id| self.first_slot(id).is_none_or(|b| b < s))
        });
        if forward_only {
            self.rank_in_list_order();
            return;
        }
        let (order, left) = self.kahn_by(|s| s);
        if !left.is_empty() {
            return;
        }
        for (r, slot) in order.into_iter().enumerate() {
            self.rank[slot as usize] = r as u64;
        }
        self.next_rank = self.len() as u64;
        self.ranked = true;
    }

    /// Ranks every task by its slot: right when each task waits only on tasks listed before it.
    fn rank_in_list_order(&mut self) {
        for slot in 0..self.entries.len() {
            self.rank[slot] = slot as u64;
        }
        self.next_rank = self.entries.len() as u64;
        self.ranked = true;
    }

    /// Makes room for a new "`blocked` waits on `blocker`" edge in the topological ranks, or
    /// returns the chain of waits that the edge would close into a cycle (`blocker` first,
    /// `blocked` last). Costs O(1) when the ranks already agree, otherwise only the tasks ranked
    /// between the two are visited (Pearce and Kelly's algorithm).
    pub fn order_wait(&mut self, blocker: Slot, blocked: Slot) -> Result<(), Vec<Slot>> {
        if blocker == blocked {
            return Err(vec![blocker]);
        }
        if !self.ranked {
            return self.wait_path(blocker, blocked).map_or(Ok(()), Err);
        }
        let (lower, upper) = (self.rank[blocked as usize], self.rank[blocker as usize]);
        if lower > upper {
            return Ok(());
        }
        // Forward: tasks transitively waiting on `blocked`, ranked below `blocker`.
        let mut parent: HashMap<Slot, Slot> = HashMap::default();
        parent.insert(blocked, blocked);
        let mut stack = vec![blocked];
        let mut forward = vec![blocked];
        while let Some(x) = stack.pop() {
            for w in self.waiters(x) {
                if w == blocker {
                    let mut path = vec![blocker, x];
                    let mut at = x;
                    while parent[&at] != at {
                        at = parent[&at];
                        path.push(at);
                    }
                    return Err(path);
                }
                if self.rank[w as usize] < upper && !parent.contains_key(&w) {
                    parent.insert(w, x);
                    stack.push(w);
                    forward.push(w);
                }
            }
        }
        // Backward: tasks `blocker` transitively waits on, ranked above `blocked`.
        let mut seen: HashSet<Slot> = HashSet::default();
        seen.insert(blocker);
        let mut stack = vec![blocker];
        let mut backward = vec![blocker];
        while let Some(x) = stack.pop() {
            for p in self.prerequisites(x) {
                if self.rank[p as usize] > lower && seen.insert(p) {
                    stack.push(p);
                    backward.push(p);
                }
            }
        }
        let by_rank = |v: &mut Vec<Slot>, rank: &[u64]| v.sort_unstable_by_key(|s| rank[*s as usize]);
        by_rank(&mut forward, &self.rank);
        by_rank(&mut backward, &self.rank);
        let mut ranks: Vec<u64> = backward
            .iter()
            .chain(&forward)
            .map(|s| self.rank[*s as usize])
            .collect();
        ranks.sort_unstable();
        for (slot, r) in backward.into_iter().chain(forward).zip(ranks) {
            self.rank[slot as usize] = r;
        }
        Ok(())
    }

    /// A chain of "waits on" steps (`x.blocked_by` names the next) from `from` to `to`, found
    /// by a bidirectional breadth-first search that stops as soon as either side runs dry, so it
    /// only walks what it must.
    pub fn wait_path(&self, from: Slot, to: Slot) -> Option<Vec<Slot>> {
        if from == to {
            return Some(vec![from]);
        }
        let mut fwd: HashMap<Slot, Slot> = HashMap::default();
        let mut bwd: HashMap<Slot, Slot> = HashMap::default();
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
        let nodes = std::mem::take(&mut self.entries)
            .into_iter()
            .flatten()
            .map(|e| e.node);
        *self = Graph::from_nodes(nodes, self.resolver);
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
        // Every id in use, with the positions of its first task and of the lists naming it.
        let sorted = |g: &Graph<P>| {
            let positions = |s: &super::id_index::Slots| {
                let mut p: Vec<usize> = s.iter().map(|s| g.position(*s)).collect();
                p.sort_unstable();
                p
            };
            assert!(!g.ids.keeps_unused(), "an unused id was kept");
            let mut v: Vec<_> = g
                .ids
                .iter()
                .map(|(k, u)| {
                    (
                        k,
                        u.first.map(|s| g.position(s)),
                        positions(&u.dependents),
                        positions(&u.blockers),
                    )
                })
                .collect();
            v.sort();
            v
        };
        assert_eq!(sorted(self), sorted(&fresh));
        assert_eq!(self.numeric, fresh.numeric);
        if self.ranked {
            for slot in self.slots() {
                for p in self.prerequisites(slot) {
                    assert!(
                        self.rank[p as usize] < self.rank[slot as usize],
                        "rank order broken"
                    );
                }
            }
        }
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
