//! The fields of a wide record (more than [`WIDE_FIELDS`]), persistent: the copies `apply` and
//! `merge` make share every node but the paths they change.
//!
//! Two trees of 16-way nodes held by `Rc` and copied on write (`Rc::make_mut`: a node this
//! record alone holds is changed in place, a shared one is copied once):
//! - the slots: the fields by insertion number (a radix tree over the number, leaves of 16
//!   slots), so a scan is insertion order. A cleared field leaves its slot empty, and a subtree
//!   left empty is dropped, so a scan reads 16 slots per node that holds a field. Each node
//!   keeps how many fields it holds and how many are plain (equal to themselves at one charge),
//!   so `diff` of two copies charges what they share without visiting it ([`Wide::walk`]).
//! - the names: a hash trie from each name (its text hashed by SipHash-1-3 under a fixed key) to
//!   its insertion number. The key is fixed, not random per process, because the trie's shape
//!   is counted: the work tallied and the bytes charged to the memory ceiling must be the same
//!   for one call in every process. Names chosen to collide cost their chooser 16 times more
//!   search per level they share, and buy at most 16 levels (64 bits of hash, then a scanned
//!   bucket): every step of a deeper path is tallied and every node it copies charged.
//!
//! Setting, adding or clearing a field copies at most 16 entries per level and a lookup reads
//! one entry per level: O(log₁₆ n) for n fields ever added along the record's history. Every
//! unit of that work (a slot or entry copied, read or scanned, a name hashed) is tallied on a
//! thread-local counter that the evaluation adds to its own ([`work_done`]).
//!
//! [`WIDE_FIELDS`]: super::value::WIDE_FIELDS

use std::cell::Cell;
use std::rc::Rc;

use siphasher::sip::SipHasher13;

use super::value::{Name, Value};

const BITS: u32 = 4;
const WIDTH: usize = 1 << BITS;
const MASK: u64 = WIDTH as u64 - 1;

type Field = (Name, Value);
type Slot = Option<Field>;

thread_local! {
    static WORK: Cell<u64> = const { Cell::new(0) };
}

/// Tallies `units` of work done where the evaluation's own counter is out of reach (a wide
/// record's operations, packed texts turned into values).
#[inline]
pub(crate) fn tally(units: u64) {
    WORK.with(|work| work.set(work.get().wrapping_add(units)));
}

/// The units of work every wide record operation on this thread has done so far (wrapping):
/// an evaluation adds the difference over its run to its work counter.
pub(crate) fn work_done() -> u64 {
    WORK.with(Cell::get)
}

/// What a change allocated, for the memory ceiling: each node made or copied, whole.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Cost {
    pub bytes: u64,
}

const RC_HEADER: u64 = 16;
const LEAF_BYTES: u64 = RC_HEADER + std::mem::size_of::<LeafNode>() as u64;
const BRANCH_BYTES: u64 = RC_HEADER + std::mem::size_of::<BranchNode>() as u64;
const TRIE_NODE_BYTES: u64 = RC_HEADER + std::mem::size_of::<TrieNode>() as u64;
const TRIE_ENTRY_BYTES: u64 = std::mem::size_of::<Entry>() as u64;

/// What a subtree holds: its fields, and how many of them compare with themselves in exactly one
/// charge ([`plain`]), so `diff` can charge a subtree both records share without visiting it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Sum {
    pub live: u64,
    pub plain: u64,
}

impl Sum {
    fn of(slot: &Slot) -> Sum {
        match slot {
            None => Sum::default(),
            Some((_, value)) => Sum { live: 1, plain: u64::from(plain(value)) },
        }
    }
}

/// Whether `value` compared with itself is equal at exactly one charge and one unit of work
/// (`Machine::equal`): a boolean, an integer, a float other than NaN, a text of fewer than 64
/// bytes, or the empty value.
pub(crate) fn plain(value: &Value) -> bool {
    match value {
        Value::Bool(_) | Value::Int(_) => true,
        // NaN is not equal to itself.
        Value::Float(float) => !float.is_nan(),
        Value::Str(text) => text.len() < 64,
        Value::Seq(items) => items.is_empty(),
        _ => false,
    }
}

#[derive(Clone, Debug)]
struct LeafNode {
    slots: [Slot; WIDTH],
    sum: Sum,
}

#[derive(Clone, Debug)]
struct BranchNode {
    children: [Option<Node>; WIDTH],
    sum: Sum,
}

#[derive(Clone, Debug)]
enum Node {
    Leaf(Rc<LeafNode>),
    Branch(Rc<BranchNode>),
}

impl Node {
    fn sum(&self) -> Sum {
        match self {
            Node::Leaf(leaf) => leaf.sum,
            Node::Branch(branch) => branch.sum,
        }
    }

    fn same(&self, other: &Node) -> bool {
        match (self, other) {
            (Node::Leaf(a), Node::Leaf(b)) => Rc::ptr_eq(a, b),
            (Node::Branch(a), Node::Branch(b)) => Rc::ptr_eq(a, b),
            _ => false,
        }
    }
}

/// `rc`'s contents to change: in place when nothing else holds them, else a copy (tallied and
/// costed).
#[inline]
fn unique<'a, T: Clone>(rc: &'a mut Rc<T>, units: u64, bytes: u64, cost: &mut Cost) -> &'a mut T {
    if Rc::get_mut(rc).is_none() {
        tally(units);
        cost.bytes += bytes;
    }
    Rc::make_mut(rc)
}

/// The slots: a radix tree over insertion numbers.
#[derive(Clone, Debug, Default)]
struct Slots {
    root: Option<Node>,
    /// Levels of branches above the leaves.
    height: u32,
    /// The next insertion number (one past the last ever given).
    next: u64,
    /// Nodes held, leaves and branches: a scan reads [`WIDTH`] entries of each.
    nodes: u64,
}

impl Slots {
    fn capacity(&self) -> u64 {
        1u64.checked_shl(BITS * (self.height + 1)).unwrap_or(u64::MAX)
    }

    fn get(&self, seq: u64) -> Option<&Field> {
        tally(u64::from(self.height) + 1);
        let mut node = self.root.as_ref()?;
        let mut level = self.height;
        loop {
            let at = ((seq >> (level * BITS)) & MASK) as usize;
            match node {
                Node::Leaf(leaf) => return leaf.slots[at].as_ref(),
                Node::Branch(branch) => node = branch.children[at].as_ref()?,
            }
            level -= 1;
        }
    }

    /// Sets slot `seq` (below the capacity), dropping the nodes left empty.
    fn put(&mut self, seq: u64, slot: Slot, cost: &mut Cost) {
        /// Returns the subtree's sum before and after.
        fn put_in(node: &mut Option<Node>, level: u32, seq: u64, slot: Slot, nodes: &mut u64, cost: &mut Cost) -> (Sum, Sum) {
            let at = ((seq >> (level * BITS)) & MASK) as usize;
            let clearing = slot.is_none();
            let node_ref = match node {
                Some(node) => node,
                None if clearing => return (Sum::default(), Sum::default()),
                None => {
                    *nodes += 1;
                    tally(WIDTH as u64);
                    if level == 0 {
                        cost.bytes += LEAF_BYTES;
                        node.insert(Node::Leaf(Rc::new(LeafNode { slots: std::array::from_fn(|_| None), sum: Sum::default() })))
                    } else {
                        cost.bytes += BRANCH_BYTES;
                        let children = std::array::from_fn(|_| None);
                        node.insert(Node::Branch(Rc::new(BranchNode { children, sum: Sum::default() })))
                    }
                }
            };
            let (before, after) = match node_ref {
                Node::Leaf(leaf) => {
                    let leaf = unique(leaf, WIDTH as u64, LEAF_BYTES, cost);
                    let before = leaf.sum;
                    let (old, new) = (Sum::of(&leaf.slots[at]), Sum::of(&slot));
                    leaf.slots[at] = slot;
                    leaf.sum = Sum { live: leaf.sum.live - old.live + new.live, plain: leaf.sum.plain - old.plain + new.plain };
                    (before, leaf.sum)
                }
                Node::Branch(branch) => {
                    let branch = unique(branch, WIDTH as u64, BRANCH_BYTES, cost);
                    let before = branch.sum;
                    let (old, new) = put_in(&mut branch.children[at], level - 1, seq, slot, nodes, cost);
                    branch.sum = Sum { live: branch.sum.live - old.live + new.live, plain: branch.sum.plain - old.plain + new.plain };
                    (before, branch.sum)
                }
            };
            if after.live == 0 {
                *node = None;
                *nodes -= 1;
            }
            (before, after)
        }
        let height = self.height;
        put_in(&mut self.root, height, seq, slot, &mut self.nodes, cost);
    }

    /// Adds `field` at the next insertion number, which it returns.
    fn push(&mut self, field: Field, cost: &mut Cost) -> u64 {
        if self.next == self.capacity() {
            if let Some(root) = self.root.take() {
                let mut children: [Option<Node>; WIDTH] = std::array::from_fn(|_| None);
                let sum = root.sum();
                children[0] = Some(root);
                self.root = Some(Node::Branch(Rc::new(BranchNode { children, sum })));
                self.nodes += 1;
                tally(WIDTH as u64);
                cost.bytes += BRANCH_BYTES;
            }
            self.height += 1;
        }
        let seq = self.next;
        self.next += 1;
        self.put(seq, Some(field), cost);
        seq
    }

    /// The node of `other` at the place of this tree's root (the same numbers below it), when
    /// `other` is as tall or taller: its first child down to this height.
    fn aligned<'a>(&self, other: &'a Slots) -> Option<&'a Node> {
        let mut node = other.root.as_ref()?;
        for _ in self.height..other.height {
            tally(1);
            match node {
                Node::Branch(branch) => node = branch.children[0].as_ref()?,
                Node::Leaf(_) => return None,
            }
        }
        (self.height <= other.height).then_some(node)
    }
}

/// A step of [`Wide::walk`].
pub(crate) enum Step<'a> {
    /// A field of the walked record (which the other may hold or not).
    Field(&'a Field),
    /// A field both records hold, the same name and value at the same place.
    Same(&'a Field),
    /// `plain` fields both records hold at the same place, each of a [`plain`] value.
    SamePlain(u64),
}

/// A node of the names trie. Below 64 bits of hash, `bitmap` says which of the 16 digits at
/// this level have an entry, and `entries` holds them in digit order; past 64 bits (names
/// whose whole hashes are equal) `entries` is a list of leaves read in full.
#[derive(Clone, Debug, Default)]
struct TrieNode {
    bitmap: u16,
    entries: Vec<Entry>,
}

#[derive(Clone, Debug)]
enum Entry {
    Leaf { hash: u64, name: Name, seq: u64 },
    Node(Rc<TrieNode>),
}

#[inline]
fn same_text(a: &Name, b: &str) -> bool {
    std::ptr::eq(a.as_ptr(), b.as_ptr()) && a.len() == b.len() || **a == *b
}

fn find(mut node: &TrieNode, hash: u64, name: &str) -> Option<u64> {
    let mut shift = 0;
    loop {
        tally(1);
        if shift >= u64::BITS {
            tally(node.entries.len() as u64);
            return node.entries.iter().find_map(|entry| match entry {
                Entry::Leaf { name: held, seq, .. } if same_text(held, name) => Some(*seq),
                _ => None,
            });
        }
        let bit = 1u16 << ((hash >> shift) & MASK);
        if node.bitmap & bit == 0 {
            return None;
        }
        match &node.entries[(node.bitmap & (bit - 1)).count_ones() as usize] {
            Entry::Leaf { hash: held_hash, name: held, seq } => {
                return (*held_hash == hash && same_text(held, name)).then_some(*seq);
            }
            Entry::Node(next) => {
                node = next;
                shift += BITS;
            }
        }
    }
}

/// Maps `name` to `seq` in the trie under `node` (at `shift` bits of hash), replacing what it
/// mapped to.
fn insert(node: &mut Rc<TrieNode>, shift: u32, hash: u64, name: Name, seq: u64, cost: &mut Cost) {
    let len = node.entries.len() as u64;
    let node = unique(node, len + 1, TRIE_NODE_BYTES + TRIE_ENTRY_BYTES * len, cost);
    tally(1);
    if shift >= u64::BITS {
        tally(node.entries.len() as u64);
        for entry in node.entries.iter_mut() {
            if let Entry::Leaf { name: held, seq: held_seq, .. } = entry {
                if same_text(held, &name) {
                    *held_seq = seq;
                    return;
                }
            }
        }
        node.entries.push(Entry::Leaf { hash, name, seq });
        cost.bytes += TRIE_ENTRY_BYTES;
        return;
    }
    let bit = 1u16 << ((hash >> shift) & MASK);
    let at = (node.bitmap & (bit - 1)).count_ones() as usize;
    if node.bitmap & bit == 0 {
        node.bitmap |= bit;
        tally(node.entries.len() as u64);
        node.entries.insert(at, Entry::Leaf { hash, name, seq });
        cost.bytes += TRIE_ENTRY_BYTES;
        return;
    }
    let (held_hash, held_name, held_seq) = match &mut node.entries[at] {
        Entry::Node(next) => return insert(next, shift + BITS, hash, name, seq, cost),
        Entry::Leaf { hash: held_hash, name: held, seq: held_seq } => {
            if *held_hash == hash && same_text(held, &name) {
                *held_seq = seq;
                return;
            }
            (*held_hash, Name::clone(held), *held_seq)
        }
    };
    // Two names under one digit: a node one level down holds both.
    let mut next = Rc::new(TrieNode::default());
    cost.bytes += TRIE_NODE_BYTES;
    insert(&mut next, shift + BITS, held_hash, held_name, held_seq, cost);
    insert(&mut next, shift + BITS, hash, name, seq, cost);
    node.entries[at] = Entry::Node(next);
}

/// The key of [`name_hash`]: any fixed value; these are the first 128 bits of π's fraction.
const NAME_KEY: (u64, u64) = (0x243f_6a88_85a3_08d3, 0x1319_8a2e_0370_7344);

fn name_hash(name: &str) -> u64 {
    tally(1 + name.len() as u64 / 64);
    SipHasher13::new_with_keys(NAME_KEY.0, NAME_KEY.1).hash(name.as_bytes())
}

/// The fields of a wide record: see the module's documentation.
#[derive(Clone, Debug, Default)]
pub(crate) struct Wide {
    slots: Slots,
    names: Option<Rc<TrieNode>>,
    live: usize,
}

impl Wide {
    /// The fields of `fields` (each name at most once), in their order.
    pub fn from_fields(fields: Vec<Field>) -> Wide {
        let mut wide = Wide::default();
        let mut cost = Cost::default();
        for (name, value) in fields {
            wide.set(name, value, &mut cost);
        }
        wide
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.live
    }

    fn seq_of(&self, name: &str) -> Option<u64> {
        let hash = name_hash(name);
        find(self.names.as_deref()?, hash, name)
    }

    pub fn get(&self, name: &str) -> Option<&Value> {
        let seq = self.seq_of(name)?;
        self.slots.get(seq).map(|(_, value)| value)
    }

    /// Sets `name` to `value`: in its place when the record holds it, else after the others.
    pub fn set(&mut self, name: Name, value: Value, cost: &mut Cost) {
        let hash = name_hash(&name);
        if let Some(seq) = self.names.as_deref().and_then(|names| find(names, hash, &name)) {
            if let Some((held, _)) = self.slots.get(seq) {
                let held = Name::clone(held);
                self.slots.put(seq, Some((held, value)), cost);
                return;
            }
        }
        let seq = self.slots.push((Name::clone(&name), value), cost);
        match &mut self.names {
            Some(names) => insert(names, 0, hash, name, seq, cost),
            None => {
                let mut names = Rc::new(TrieNode::default());
                cost.bytes += TRIE_NODE_BYTES;
                insert(&mut names, 0, hash, name, seq, cost);
                self.names = Some(names);
            }
        }
        self.live += 1;
    }

    /// Leaves `name` out, if the record holds it.
    pub fn clear(&mut self, name: &str, cost: &mut Cost) {
        let Some(seq) = self.seq_of(name) else { return };
        if self.slots.get(seq).is_some() {
            self.slots.put(seq, None, cost);
            self.live -= 1;
        }
    }

    /// The fields in insertion order; the scan is tallied up front.
    pub fn iter(&self) -> Iter<'_> {
        tally(self.scan_work());
        let mut iter = Iter { branches: Vec::new(), leaf: None, remaining: self.live };
        match &self.slots.root {
            Some(Node::Leaf(leaf)) => iter.leaf = Some((&leaf.slots, 0)),
            Some(Node::Branch(branch)) => iter.branches.push((&branch.children, 0)),
            None => {}
        }
        iter
    }

    /// The entries a full scan reads.
    #[inline]
    pub fn scan_work(&self) -> u64 {
        self.slots.nodes * WIDTH as u64
    }

    /// Visits this record's fields in order against `other`'s: a subtree both hold at the same
    /// place (a copy's unchanged part) is one [`Step::SamePlain`] when all its values are
    /// [`plain`], else its fields as [`Step::Same`]; every other field is a [`Step::Field`].
    /// Reads one entry per node visited, so the walk is in proportion to the fields that differ
    /// (and the shared ones that are not plain), with a factor of the tree's height.
    pub fn walk<'a, E>(&'a self, other: &Wide, visit: &mut impl FnMut(Step<'a>) -> Result<(), E>) -> Result<(), E> {
        fn walk_in<'a, E>(node: &'a Node, other: Option<&Node>, same: bool, visit: &mut impl FnMut(Step<'a>) -> Result<(), E>) -> Result<(), E> {
            tally(1);
            let same = same || other.is_some_and(|other| node.same(other));
            let sum = node.sum();
            if same && sum.plain == sum.live {
                return visit(Step::SamePlain(sum.live));
            }
            match node {
                Node::Leaf(leaf) => {
                    tally(WIDTH as u64);
                    for field in leaf.slots.iter().flatten() {
                        visit(if same { Step::Same(field) } else { Step::Field(field) })?;
                    }
                }
                Node::Branch(branch) => {
                    tally(WIDTH as u64);
                    let others = match other {
                        Some(Node::Branch(other)) if !same => Some(&other.children),
                        _ => None,
                    };
                    for (at, child) in branch.children.iter().enumerate() {
                        if let Some(child) = child {
                            let other = others.and_then(|others| others[at].as_ref());
                            walk_in(child, other, same, visit)?;
                        }
                    }
                }
            }
            Ok(())
        }
        match &self.slots.root {
            Some(root) => walk_in(root, self.slots.aligned(&other.slots), false, visit),
            None => Ok(()),
        }
    }

    #[cfg(test)]
    /// Whether `self` and `other` hold the very same slots (a copy neither changed).
    pub fn same_slots(&self, other: &Wide) -> bool {
        match (&self.slots.root, &other.slots.root) {
            (Some(a), Some(b)) => a.same(b),
            (None, None) => true,
            _ => false,
        }
    }
}

/// The fields of a [`Wide`] in insertion order.
pub(crate) struct Iter<'a> {
    branches: Vec<(&'a [Option<Node>; WIDTH], usize)>,
    leaf: Option<(&'a [Slot; WIDTH], usize)>,
    remaining: usize,
}

impl<'a> Iterator for Iter<'a> {
    type Item = &'a Field;

    fn next(&mut self) -> Option<&'a Field> {
        loop {
            if let Some((leaf, at)) = &mut self.leaf {
                let leaf: &'a [Slot; WIDTH] = leaf;
                while *at < WIDTH {
                    let slot = &leaf[*at];
                    *at += 1;
                    if let Some(field) = slot {
                        self.remaining -= 1;
                        return Some(field);
                    }
                }
                self.leaf = None;
            }
            let (branch, at) = self.branches.last_mut()?;
            let branch: &'a [Option<Node>; WIDTH] = branch;
            if *at == WIDTH {
                self.branches.pop();
                continue;
            }
            let child = &branch[*at];
            *at += 1;
            match child {
                None => {}
                Some(Node::Leaf(leaf)) => self.leaf = Some((&leaf.slots, 0)),
                Some(Node::Branch(next)) => self.branches.push((&next.children, 0)),
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl ExactSizeIterator for Iter<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(i: usize) -> Name {
        Name::counted(&format!("f{i}"))
    }

    fn keys(wide: &Wide) -> Vec<String> {
        wide.iter().map(|(k, _)| k.to_string()).collect()
    }

    #[test]
    fn keeps_insertion_order_through_sets_clears_and_re_adds() {
        let mut cost = Cost::default();
        let mut wide = Wide::from_fields((0..300).map(|i| (name(i), Value::Int(i as i64))).collect());
        assert_eq!(wide.len(), 300);
        let before = wide.clone();
        wide.set(name(7), Value::Int(-7), &mut cost);
        wide.clear("f3", &mut cost);
        wide.set(name(300), Value::Int(300), &mut cost);
        wide.set(name(3), Value::Int(-3), &mut cost);
        let mut expected: Vec<String> = (0..301).filter(|i| *i != 3).map(|i| format!("f{i}")).collect();
        expected.push("f3".into());
        assert_eq!(keys(&wide), expected);
        assert!(matches!(wide.get("f7"), Some(Value::Int(-7))));
        assert!(matches!(wide.get("f3"), Some(Value::Int(-3))));
        assert!(wide.get("f301").is_none());
        assert_eq!(wide.len(), 301);
        // The copy it was made from is unchanged.
        assert_eq!(keys(&before), (0..300).map(|i| format!("f{i}")).collect::<Vec<_>>());
        assert!(matches!(before.get("f7"), Some(Value::Int(7))));
        assert!(before.get("f300").is_none());
    }

    #[test]
    fn a_change_copies_one_path_and_clearing_everything_drops_every_node() {
        let mut wide = Wide::from_fields((0..4096).map(|i| (name(i), Value::Int(1))).collect());
        let shared = wide.clone();
        let mut cost = Cost::default();
        wide.set(name(100), Value::Int(2), &mut cost);
        // Three levels of 16 (4,096 slots): a leaf and two branches copied.
        assert_eq!(cost.bytes, LEAF_BYTES + 2 * BRANCH_BYTES);
        assert!(!wide.same_slots(&shared));
        let mut cost = Cost::default();
        for i in 0..4096 {
            wide.clear(&format!("f{i}"), &mut cost);
        }
        assert_eq!((wide.len(), wide.slots.nodes, wide.iter().count()), (0, 0, 0));
        assert_eq!(shared.iter().count(), 4096);
    }

    #[test]
    fn names_chosen_to_share_hash_digits_are_found_a_level_per_shared_digit() {
        // What anyone who knows the fixed key can do: search for names whose hashes agree in
        // their first 16 bits (four levels of the trie), about 65,536 candidates a name.
        let target = name_hash("c0") & 0xffff;
        let chosen: Vec<String> = (0..).map(|i| format!("c{i}")).filter(|n| name_hash(n) & 0xffff == target).take(40).collect();
        let plain: Vec<String> = (0..200).map(|i| format!("f{i}")).collect();
        let all: Vec<&String> = chosen.iter().zip(&plain).flat_map(|(c, p)| [c, p]).chain(&plain[chosen.len()..]).collect();
        let wide = Wide::from_fields(all.iter().enumerate().map(|(i, n)| (Name::counted(n), Value::Int(i as i64))).collect());
        assert_eq!(keys(&wide), all.iter().map(|n| n.to_string()).collect::<Vec<_>>());
        for (i, n) in all.iter().enumerate() {
            let before = work_done();
            assert!(matches!(wide.get(n), Some(Value::Int(v)) if *v == i as i64), "{n}");
            let work = work_done() - before;
            // A unit to hash, one a level: the chosen names go at least five levels down, and no
            // name more than the 16 levels a 64-bit hash has.
            assert!(work <= 1 + 17, "{n}: {work}");
            if chosen.contains(n) {
                assert!(work >= 1 + 5, "{n}: {work}");
            }
        }
        assert!(wide.get("c-1").is_none());
    }
}
