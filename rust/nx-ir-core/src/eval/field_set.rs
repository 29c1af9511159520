//! Field lists built in time linear in their size: properties set in order (a later one of a
//! name replacing the earlier in its place), and the copies `apply` and `merge` make. Small lists
//! scan; past [`INDEXED_FIELDS`] names a map from each name's address (names are interned, so
//! one text is one address) to its position keeps every set O(1).

use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::sync::Arc;

use super::compiled::{name_key, NameHasher};
use super::value::{set_field, Name, Record, Value, INDEXED_FIELDS};

type Positions = HashMap<usize, u32, BuildHasherDefault<NameHasher>>;

/// Sets each of `entries` on `fields` in order, as [`set_field`] one by one would. `fields`
/// holds each name at most once.
pub(crate) fn set_fields(fields: &mut Vec<(Name, Value)>, entries: impl ExactSizeIterator<Item = (Name, Value)>) {
    if fields.len() + entries.len() <= INDEXED_FIELDS {
        for (name, value) in entries {
            set_field(fields, name, value);
        }
        return;
    }
    let mut at: Positions = HashMap::with_capacity_and_hasher(fields.len() + entries.len(), Default::default());
    for (position, (name, _)) in fields.iter().enumerate() {
        at.insert(name_key(name), position as u32);
    }
    for (name, value) in entries {
        match at.get(&name_key(&name)) {
            Some(&position) => fields[position as usize].1 = value,
            None => {
                at.insert(name_key(&name), fields.len() as u32);
                fields.push((name, value));
            }
        }
    }
}

/// Keeps, of fields set in order with repeats, each name once: at its first place, with its
/// last value (what [`set_field`] one by one gives).
pub(crate) fn settle(fields: Vec<(Name, Value)>) -> Vec<(Name, Value)> {
    let mut out = Vec::with_capacity(fields.len());
    set_fields(&mut out, fields.into_iter());
    out
}

/// `apply`: `target`'s fields with each field of `update` set, and each it holds empty left out.
pub(crate) fn applied(target: &Record, update: &Record) -> Vec<(Name, Value)> {
    let mut fields = target.fields.clone();
    let sets = update.fields.iter().filter(|(_, value)| !value.is_empty());
    set_fields(&mut fields, sets.map(|(name, value)| (Arc::clone(name), value.clone())).collect::<Vec<_>>().into_iter());
    let cleared: Vec<usize> = update.fields.iter().filter(|(_, value)| value.is_empty()).map(|(name, _)| name_key(name)).collect();
    match cleared.len() {
        0 => {}
        1..=INDEXED_FIELDS => fields.retain(|(name, _)| !cleared.contains(&name_key(name))),
        _ => {
            let cleared: std::collections::HashSet<usize, BuildHasherDefault<NameHasher>> = cleared.into_iter().collect();
            fields.retain(|(name, _)| !cleared.contains(&name_key(name)));
        }
    }
    fields
}

/// `merge`: `first`'s fields with each of `second`'s set.
pub(crate) fn merged(first: &Record, second: &Record) -> Vec<(Name, Value)> {
    let mut fields = first.fields.clone();
    set_fields(&mut fields, second.fields.iter().map(|(name, value)| (Arc::clone(name), value.clone())));
    fields
}
