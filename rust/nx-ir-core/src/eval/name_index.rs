//! Looking names up among a list of them without a scan per look-up where that would make the
//! work the product of the two: a component's emits, props and state fields, a patch's names.

use std::collections::HashMap;

use super::machine::Machine;
use super::value::{Name, INDEXED_FIELDS};

/// Where names are among a list of them, compared by text: the list scanned when few names are
/// looked for or the list is short, else through an index of its names (each name's first
/// position). Either way the work is tallied.
pub(crate) struct NameIndex<'n>(Option<HashMap<&'n str, usize>>);

impl<'n> NameIndex<'n> {
    /// An index of `names` when `lookups` look-ups would scan it more than a few times over.
    pub(crate) fn new(machine: &mut Machine<'_>, names: impl ExactSizeIterator<Item = &'n Name>, lookups: usize) -> NameIndex<'n> {
        if names.len() <= INDEXED_FIELDS || lookups <= INDEXED_FIELDS {
            return NameIndex(None);
        }
        let mut index = HashMap::with_capacity(names.len());
        let mut units = 1;
        for (at, name) in names.enumerate() {
            units += 1 + name.len() as u64 / 64;
            index.entry(&**name).or_insert(at);
        }
        machine.tally(units);
        NameIndex(Some(index))
    }

    /// Notes `name` at `at`, where it was added to the list (when indexed, and not already there).
    pub(crate) fn add(&mut self, name: &'n Name, at: usize) {
        if let Some(index) = &mut self.0 {
            index.entry(&**name).or_insert(at);
        }
    }

    /// The first position of `name` among `names` (the list the index was made of; made only
    /// to be scanned, since making some lists is tallied as a scan).
    pub(crate) fn find<'a, I: Iterator<Item = &'a Name>>(&self, machine: &mut Machine<'_>, names: impl FnOnce() -> I, name: &str) -> Option<usize> {
        match &self.0 {
            Some(index) => {
                machine.tally(1 + name.len() as u64 / 64);
                index.get(name).copied()
            }
            None => {
                let mut scanned = 0;
                let found = names().inspect(|_| scanned += 1).position(|candidate| **candidate == *name);
                machine.tally(scanned + 1);
                found
            }
        }
    }
}
