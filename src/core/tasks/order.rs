//! List order with O(log n) removal: every task gets a slot number when it is appended; a
//! Fenwick tree over "slot is alive" answers "which list position does slot s have" and "which
//! slot is at position p" in O(log n), so deleting from the middle never renumbers anything.

/// A slot number: the order in which tasks were appended (stable until [`Order::clear`]).
pub type Slot = u32;

/// Alive slots in append order, with O(log n) position queries.
#[derive(Clone, Debug, Default)]
pub struct Order {
    /// 1-based Fenwick tree of alive counts.
    tree: Vec<u32>,
    alive: Vec<bool>,
    live: usize,
}

fn lowbit(i: usize) -> usize {
    i & i.wrapping_neg()
}

impl Order {
    /// Number of alive slots.
    pub fn len(&self) -> usize {
        self.live
    }

    /// Whether no slot is alive.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Number of slots ever appended (alive or not).
    pub fn capacity(&self) -> usize {
        self.alive.len()
    }

    /// Makes room for `more` slots.
    pub fn reserve(&mut self, more: usize) {
        self.tree.reserve(more);
        self.alive.reserve(more);
    }

    /// Appends a new alive slot at the end and returns it.
    pub fn push(&mut self) -> Slot {
        let i = self.alive.len() + 1; // 1-based index of the new node
        // The node counts the alive slots in (i - lowbit(i), i]: all of them when none died.
        let covered = if self.live == self.alive.len() {
            lowbit(i) - 1
        } else {
            self.prefix(i - 1) - self.prefix(i - lowbit(i))
        };
        self.tree.push(covered as u32 + 1);
        self.alive.push(true);
        self.live += 1;
        (i - 1) as Slot
    }

    /// Marks `slot` as removed (no-op if it already is).
    pub fn remove(&mut self, slot: Slot) {
        let s = slot as usize;
        if !self.alive.get(s).copied().unwrap_or(false) {
            return;
        }
        self.alive[s] = false;
        self.live -= 1;
        let mut i = s + 1;
        while i <= self.tree.len() {
            self.tree[i - 1] -= 1;
            i += lowbit(i);
        }
    }

    /// Number of alive slots among the first `n` slots.
    fn prefix(&self, mut n: usize) -> usize {
        let mut sum = 0;
        while n > 0 {
            sum += self.tree[n - 1] as usize;
            n -= lowbit(n);
        }
        sum
    }

    /// The list position of an alive `slot` (the number of alive slots before it).
    pub fn position(&self, slot: Slot) -> usize {
        self.prefix(slot as usize)
    }

    /// The alive slot at list position `pos`, if `pos < len()`.
    pub fn slot_at(&self, pos: usize) -> Option<Slot> {
        if pos >= self.live {
            return None;
        }
        let mut remaining = pos + 1;
        let mut idx = 0;
        let mut step = self.tree.len().next_power_of_two();
        while step > 0 {
            let next = idx + step;
            if next <= self.tree.len() && (self.tree[next - 1] as usize) < remaining {
                idx = next;
                remaining -= self.tree[next - 1] as usize;
            }
            step >>= 1;
        }
        Some(idx as Slot)
    }

    /// Alive slots in list order.
    pub fn iter(&self) -> impl Iterator<Item = Slot> + '_ {
        self.alive
            .iter()
            .enumerate()
            .filter(|(_, a)| **a)
            .map(|(i, _)| i as Slot)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn positions_match_a_vec(ops in proptest::collection::vec((any::<bool>(), 0usize..64), 0..200)) {
            let mut order = Order::default();
            let mut model: Vec<Slot> = Vec::new();
            for (push, pick) in ops {
                if push || model.is_empty() {
                    model.push(order.push());
                } else {
                    let slot = model.remove(pick % model.len());
                    order.remove(slot);
                }
                prop_assert_eq!(order.len(), model.len());
                for (pos, slot) in model.iter().enumerate() {
                    prop_assert_eq!(order.position(*slot), pos);
                    prop_assert_eq!(order.slot_at(pos), Some(*slot));
                }
                prop_assert_eq!(order.slot_at(model.len()), None);
                prop_assert_eq!(order.iter().collect::<Vec<_>>(), model.clone());
            }
        }
    }
}
