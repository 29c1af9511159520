//! Field lists built in time linear in their size: properties set in order (a later one of a
//! name replacing the earlier in its place), and the copies `apply` and `merge` make. Small lists
//! scan; past [`INDEXED_FIELDS`] names a map from each name's address (names are interned, so
//! one text is one address) to its position keeps every set O(1).

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use super::compiled::{name_key, NameHasher};
use super::machine::FIELD_BYTES;
use super::value::{set_field, Fields, Name, Record, Value, Wide, INDEXED_FIELDS};
use super::wide::Cost;

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

/// What `apply` or `merge` made: the fields, and what they cost beyond the work counter.
pub(crate) struct Made {
    pub fields: Fields,
    /// Fields copied that no structure shares: the update's (or second record's) own, and the
    /// whole first record when it is flat.
    pub copied: usize,
    /// Bytes allocated.
    pub bytes: u64,
}

/// `apply`: `target`'s fields with each field of `update` set, and each it holds empty left out.
/// A wide target is changed along the update's paths only (see [`Wide`]).
pub(crate) fn applied(target: &Record, update: &Record) -> Made {
    let wide = match &target.fields {
        Fields::Wide(wide) => wide,
        Fields::Flat(flat) => {
            let copied = flat.len() + update.fields.len();
            return Made { fields: Fields::new(applied_flat(flat, update)), copied, bytes: FIELD_BYTES * copied as u64 };
        }
    };
    let mut wide = Wide::clone(wide);
    let mut cost = Cost::default();
    for (name, value) in &update.fields {
        if value.is_empty() {
            wide.clear(name, &mut cost);
        } else {
            wide.set(Name::clone(name), value.clone(), &mut cost);
        }
    }
    Made { fields: Fields::settled(wide), copied: update.fields.len(), bytes: cost.bytes }
}

fn applied_flat(target: &[(Name, Value)], update: &Record) -> Vec<(Name, Value)> {
    let mut fields = target.to_vec();
    let sets = update.fields.iter().filter(|(_, value)| !value.is_empty());
    set_fields(&mut fields, sets.map(|(name, value)| (Name::clone(name), value.clone())).collect::<Vec<_>>().into_iter());
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

/// `merge`: `first`'s fields with each of `second`'s set. A wide `first` is changed along
/// `second`'s paths only.
pub(crate) fn merged(first: &Record, second: &Record) -> Made {
    let Fields::Wide(wide) = &first.fields else {
        let mut fields = first.fields.to_vec();
        let copied = fields.len() + second.fields.len();
        set_fields(&mut fields, second.fields.iter().map(|(name, value)| (Name::clone(name), value.clone())));
        return Made { fields: Fields::new(fields), copied, bytes: FIELD_BYTES * copied as u64 };
    };
    let mut wide = Wide::clone(wide);
    let mut cost = Cost::default();
    for (name, value) in &second.fields {
        wide.set(Name::clone(name), value.clone(), &mut cost);
    }
    Made { fields: Fields::settled(wide), copied: second.fields.len(), bytes: cost.bytes }
}
