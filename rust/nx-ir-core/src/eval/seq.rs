//! A list's items ([`Items`]): values, or texts packed one after another in one buffer.
//!
//! A range loop whose every item is a text (`"item " + i`, a line per record) places its
//! items packed ([`Texts`]): each item's bytes appended to one buffer and its end to a vector
//! of offsets, where a list of values holds a two-word value and a counted block per text.
//! Written for the host, the packed texts go straight from the buffer into host strings; read
//! as values by anything else (an index, a comparison, a check against a declared type), the
//! list is turned into values once, the first time, and keeps them (see [`Texts::values`]).
//! A `for` over it makes each item's text as it binds it, without turning the whole list.
//! The charges and memory accounting are the same either way: they are made where an item is
//! placed, whatever holds it.

use std::cell::OnceCell;
use std::fmt;
use std::ops::{Deref, DerefMut};

use super::value::{Text, Value};
use super::wide;

/// A list's items (see the module): values, or packed texts (and then no values).
pub(crate) struct Items {
    values: Vec<Value>,
    texts: Option<Box<Texts>>,
}

/// Texts packed one after another (see the module).
pub(crate) struct Texts {
    /// Every item's UTF-8 bytes, one after another.
    bytes: String,
    /// Where each item ends in `bytes` (it starts where the one before ends).
    ends: Vec<u32>,
    /// Whether every byte is ASCII.
    ascii: bool,
    /// The items as values, once anything read them so.
    values: OnceCell<Vec<Value>>,
}

impl Items {
    /// A list of packed texts.
    pub fn packed(texts: Texts) -> Items {
        Items { values: Vec::new(), texts: Some(Box::new(texts)) }
    }

    /// How many items: without turning packed texts into values.
    #[inline]
    pub fn len(&self) -> usize {
        match &self.texts {
            None => self.values.len(),
            Some(texts) => texts.len(),
        }
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The packed texts, while nothing has read them as values.
    #[inline]
    pub fn texts(&self) -> Option<&Texts> {
        self.texts.as_deref().filter(|texts| texts.values.get().is_none())
    }

    /// Each item as a value of its own: a copy, or a packed text made a value as it is reached
    /// (the list left as it is).
    pub fn each(&self) -> Each<'_> {
        match self.texts() {
            Some(texts) => Each::Texts(texts, 0..texts.len()),
            None => Each::Values(<Items as Deref>::deref(self).iter()),
        }
    }

    /// The items as a vector of values, packed texts turned into values first.
    pub fn values_mut(&mut self) -> &mut Vec<Value> {
        if let Some(texts) = self.texts.take() {
            self.values = (*texts).into_values();
        }
        &mut self.values
    }

    /// The items as a vector of values.
    pub fn into_values(self) -> Vec<Value> {
        match self.texts {
            None => self.values,
            Some(texts) => (*texts).into_values(),
        }
    }
}

/// The items of a list one by one ([`Items::each`]).
pub(crate) enum Each<'a> {
    Values(std::slice::Iter<'a, Value>),
    Texts(&'a Texts, std::ops::Range<usize>),
}

impl Iterator for Each<'_> {
    type Item = Value;

    #[inline]
    fn next(&mut self) -> Option<Value> {
        match self {
            Each::Values(values) => values.next().cloned(),
            Each::Texts(texts, at) => at.next().map(|at| texts.value(at)),
        }
    }
}

impl From<Vec<Value>> for Items {
    #[inline]
    fn from(values: Vec<Value>) -> Items {
        Items { values, texts: None }
    }
}

impl Deref for Items {
    type Target = [Value];

    #[inline]
    fn deref(&self) -> &[Value] {
        match &self.texts {
            None => &self.values,
            Some(texts) => texts.values(),
        }
    }
}

impl DerefMut for Items {
    #[inline]
    fn deref_mut(&mut self) -> &mut [Value] {
        self.values_mut()
    }
}

impl fmt::Debug for Items {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.texts {
            None => fmt::Debug::fmt(&self.values, f),
            Some(texts) => f.debug_list().entries(texts.iter()).finish(),
        }
    }
}

impl Default for Texts {
    fn default() -> Texts {
        Texts { bytes: String::new(), ends: Vec::new(), ascii: true, values: OnceCell::new() }
    }
}

impl Texts {
    /// Room for `count` more items of `bytes` bytes in all.
    pub fn reserve(&mut self, count: usize, bytes: usize) {
        self.ends.reserve(count);
        self.bytes.reserve(bytes);
    }

    /// Whether `extra` more bytes keep every offset within `u32`.
    #[inline]
    pub fn has_room(&self, extra: usize) -> bool {
        self.bytes.len().checked_add(extra).is_some_and(|end| end <= u32::MAX as usize)
    }

    /// Appends the item `left` then `right` (`ascii` when both are ASCII). The caller checked
    /// [`Texts::has_room`] for them.
    #[inline(always)]
    pub fn push_parts(&mut self, left: &str, right: &str, ascii: bool) {
        self.push_copied(left, right, ascii, false);
    }

    /// [`Texts::push_parts`] of a `right` whose bytes were just written one at a time (the
    /// fused loop's digit counter): read back a byte at a time ([`copy_fresh`]).
    #[inline(always)]
    pub fn push_fresh(&mut self, left: &str, right: &str, ascii: bool) {
        self.push_copied(left, right, ascii, true);
    }

    #[inline(always)]
    fn push_copied(&mut self, left: &str, right: &str, ascii: bool, fresh: bool) {
        let len = left.len() + right.len();
        self.bytes.reserve(len);
        // SAFETY: `len` bytes of room were reserved after the current end; both parts are
        // written there whole, so the new end covers initialized bytes, and the two strs make a
        // valid UTF-8 string together.
        unsafe {
            let bytes = self.bytes.as_mut_vec();
            let end = bytes.len();
            let at = bytes.as_mut_ptr().add(end);
            copy_short(left.as_bytes(), at);
            if fresh {
                copy_fresh(right.as_bytes(), at.add(left.len()));
            } else {
                copy_short(right.as_bytes(), at.add(left.len()));
            }
            bytes.set_len(end + len);
        }
        self.ascii &= ascii;
        self.ends.push(self.bytes.len() as u32);
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether every item is ASCII.
    #[inline]
    pub fn is_ascii(&self) -> bool {
        self.ascii
    }

    /// Item `at`'s text (`at` below [`Texts::len`]).
    #[inline(always)]
    pub fn get(&self, at: usize) -> &str {
        let start = match at.checked_sub(1) {
            Some(before) => self.ends[before] as usize,
            None => 0,
        };
        &self.bytes[start..self.ends[at] as usize]
    }

    /// The items' texts in order.
    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.len()).map(|at| self.get(at))
    }

    /// Item `at` as a value of its own (a new text).
    #[inline]
    pub fn value(&self, at: usize) -> Value {
        let text = self.get(at);
        wide::tally(1 + text.len() as u64 / 64);
        Value::Str(if self.ascii { Text::ascii(text) } else { Text::new(text) })
    }

    /// The items as values, made the first time (one unit of work per item and per 64 bytes,
    /// tallied apart as a wide record's work is).
    fn values(&self) -> &[Value] {
        self.values.get_or_init(|| (0..self.len()).map(|at| self.value(at)).collect())
    }

    pub fn into_values(mut self) -> Vec<Value> {
        match self.values.take() {
            Some(values) => values,
            None => (0..self.len()).map(|at| self.value(at)).collect(),
        }
    }
}

/// Copies `from` to `to` a byte at a time: for bytes just written a byte at a time (a number's
/// digits), which a wider load would have to wait for until those stores are done. The stores
/// are volatile so that the loop is not made a `memcpy` call (whose wide loads would wait).
///
/// # Safety
/// As [`copy_short`].
#[inline(always)]
unsafe fn copy_fresh(from: &[u8], to: *mut u8) {
    for (at, byte) in from.iter().enumerate() {
        // SAFETY: `to` is valid for `from.len()` bytes.
        unsafe { to.add(at).write_volatile(*byte) };
    }
}

/// Copies `from` to `to`: a text of up to 32 bytes with two overlapping loads and stores of
/// one width (no call, where `copy_nonoverlapping` of a length known only at run time calls
/// `memcpy`), a longer one by `copy_nonoverlapping`.
///
/// # Safety
/// `to` is valid for writing `from.len()` bytes and does not overlap `from`.
#[inline(always)]
pub unsafe fn copy_short(from: &[u8], to: *mut u8) {
    let (len, src) = (from.len(), from.as_ptr());
    // SAFETY (each arm): both loads and both stores lie within the first and the last `len`
    // bytes of `from` and `to` (the width is at most `len`).
    unsafe {
        match len {
            0 => {}
            1..=3 => {
                *to = *src;
                *to.add(len / 2) = *src.add(len / 2);
                *to.add(len - 1) = *src.add(len - 1);
            }
            4..=7 => {
                let (head, tail) = (src.cast::<u32>().read_unaligned(), src.add(len - 4).cast::<u32>().read_unaligned());
                to.cast::<u32>().write_unaligned(head);
                to.add(len - 4).cast::<u32>().write_unaligned(tail);
            }
            8..=16 => {
                let (head, tail) = (src.cast::<u64>().read_unaligned(), src.add(len - 8).cast::<u64>().read_unaligned());
                to.cast::<u64>().write_unaligned(head);
                to.add(len - 8).cast::<u64>().write_unaligned(tail);
            }
            17..=32 => {
                let (head, tail) = (src.cast::<u128>().read_unaligned(), src.add(len - 16).cast::<u128>().read_unaligned());
                to.cast::<u128>().write_unaligned(head);
                to.add(len - 16).cast::<u128>().write_unaligned(tail);
            }
            _ => std::ptr::copy_nonoverlapping(src, to, len),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_copies_write_exactly_their_bytes() {
        let source: Vec<u8> = (0..64u8).map(|b| b.wrapping_mul(37).wrapping_add(1)).collect();
        for len in 0..=64 {
            for offset in 0..3 {
                // Sentinels around the room the copy may write.
                let mut to = vec![0xAAu8; len + 2 * 17];
                let from = &source[offset..(offset + len).min(64)];
                let len = from.len();
                // SAFETY: `to` has 17 + len + 17 bytes; the copy writes at 17.
                unsafe { copy_short(from, to.as_mut_ptr().add(17)) };
                assert_eq!(&to[17..17 + len], from, "len {len}");
                assert!(to[..17].iter().chain(&to[17 + len..]).all(|b| *b == 0xAA), "len {len} wrote outside");
            }
        }
    }

    fn packed(texts: &[&str]) -> Items {
        let mut packed = Texts::default();
        for text in texts {
            assert!(packed.has_room(text.len()));
            packed.push_parts(text, "", text.is_ascii());
        }
        Items::packed(packed)
    }

    fn texts_of(values: &[Value]) -> Vec<String> {
        values.iter().map(|value| value.as_text().expect("a text").to_string()).collect()
    }

    #[test]
    fn packed_texts_read_as_values_once_and_keep_them() {
        let items = packed(&["item 0", "", "café", "item 3"]);
        assert_eq!(items.len(), 4);
        let texts = items.texts().expect("packed, nothing read yet");
        assert!(!texts.is_ascii());
        assert_eq!(texts.iter().collect::<Vec<_>>(), ["item 0", "", "café", "item 3"]);
        // Bound one by one: the list stays packed.
        assert_eq!(texts_of(&items.each().collect::<Vec<_>>()), ["item 0", "", "café", "item 3"]);
        assert!(items.texts().is_some());
        // Read as values: made once, the same slice after.
        let first: *const Value = items.as_ptr();
        assert_eq!(texts_of(&items), ["item 0", "", "café", "item 3"]);
        assert_eq!(first, items.as_ptr());
        assert!(items.texts().is_none(), "read as values, it is written as values");
        // Each item is a text flagged as it is: ASCII or not.
        let flags: Vec<bool> = items.iter().map(|v| matches!(v, Value::Str(t) if t.is_ascii() == t.as_bytes().is_ascii())).collect();
        assert_eq!(flags, [true; 4]);
        assert_eq!(texts_of(&items.each().collect::<Vec<_>>()), ["item 0", "", "café", "item 3"]);
        assert_eq!(texts_of(&items.into_values()), ["item 0", "", "café", "item 3"]);
    }

    #[test]
    fn packed_texts_turn_into_values_to_be_changed() {
        let mut items = packed(&["a", "b"]);
        items.values_mut().push(Value::Int(3));
        assert_eq!(items.len(), 3);
        assert!(items.texts().is_none());
        assert!(matches!(items[2], Value::Int(3)));
        let mut items = packed(&["x"]);
        items[0] = Value::Bool(true);
        assert!(matches!(items.into_values()[..], [Value::Bool(true)]));
        assert_eq!(format!("{:?}", packed(&["q", "r"])), r#"["q", "r"]"#);
    }

    #[test]
    fn each_item_made_a_value_is_tallied_apart() {
        let items = packed(&["a", &"b".repeat(130)]);
        let before = wide::work_done();
        let made: Vec<Value> = items.each().collect();
        assert_eq!(made.len(), 2);
        // One unit per item and one per 64 bytes.
        assert_eq!(wide::work_done().wrapping_sub(before), 1 + 1 + 130 / 64);
    }

    #[test]
    fn offsets_stay_within_u32() {
        let texts = Texts::default();
        assert!(texts.has_room(u32::MAX as usize));
        assert!(!texts.has_room(u32::MAX as usize + 1));
        assert!(!texts.has_room(usize::MAX));
    }
}
