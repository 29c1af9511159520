//! Names: of fields, types, declarations and cases.
//!
//! A name is two words, a pointer to its UTF-8 bytes and its length, and is one of two kinds:
//!
//! - **lasting**: a name a compiled program holds. It is interned once per process in a table
//!   that never frees it, so copying or dropping one touches no reference count (records copy
//!   their declaration's field names for every record built, and an atomic count per name was a
//!   fifth of a record-building loop). The table is bounded ([`MAX_LASTING_BYTES`]); past it, a
//!   program's new names are counted ones, equally correct.
//! - **counted**: an `Arc<str>`, freed with its last copy: a name made while evaluating (a host
//!   record's field name the program does not hold), or read from stored state.
//!
//! Within one evaluation every name of a given text is the same name (see
//! `Machine::prog_name`), so names compare by address ([`Name::ptr_eq`]); `==` compares text.

use std::borrow::Borrow;
use std::collections::HashSet;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::ptr::NonNull;
use std::sync::{Arc, Mutex};

/// The bit of `meta` that marks a counted name (a length never reaches it: a `str` is at most
/// `isize::MAX` bytes).
const COUNTED: usize = 1 << (usize::BITS - 1);

/// All the lasting names of a process may hold, text and table entry together. A program whose
/// names would go past it gets counted names for the rest: loading ever new programs cannot grow
/// the table without bound.
pub(crate) const MAX_LASTING_BYTES: usize = 16 << 20;

/// What one lasting name is counted as against [`MAX_LASTING_BYTES`]: its text and about what
/// its table entry and allocation take.
const LASTING_OVERHEAD: usize = 48;

pub(crate) struct Name {
    ptr: NonNull<u8>,
    /// The length, with [`COUNTED`] set for a counted name.
    meta: usize,
}

// SAFETY: a lasting name's bytes are immutable and never freed; a counted one is an `Arc<str>`,
// which is `Send` and `Sync`.
unsafe impl Send for Name {}
unsafe impl Sync for Name {}

#[derive(Default)]
struct Lasting {
    texts: HashSet<&'static str>,
    bytes: usize,
}

impl Lasting {
    fn intern(&mut self, text: &str, max_bytes: usize) -> Name {
        if let Some(&interned) = self.texts.get(text) {
            return Name::of_static(interned);
        }
        let cost = text.len() + LASTING_OVERHEAD;
        if self.bytes + cost > max_bytes {
            return Name::counted(text);
        }
        self.bytes += cost;
        let interned: &'static str = Box::leak(Box::from(text));
        self.texts.insert(interned);
        Name::of_static(interned)
    }
}

static LASTING: Mutex<Option<Lasting>> = Mutex::new(None);

impl Name {
    /// The process's lasting name of `text`, interned on first use; a counted one once the
    /// table is full.
    pub fn lasting(text: &str) -> Name {
        let mut table = LASTING.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        table.get_or_insert_with(Lasting::default).intern(text, MAX_LASTING_BYTES)
    }

    /// A counted name of `text` (a new allocation).
    pub fn counted(text: &str) -> Name {
        Name::from_arc(Arc::from(text))
    }

    /// A counted name owning `text`'s count.
    pub fn from_arc(text: Arc<str>) -> Name {
        let len = text.len();
        let raw = Arc::into_raw(text);
        // SAFETY: `Arc::into_raw` never returns null.
        let ptr = unsafe { NonNull::new_unchecked(raw as *const u8 as *mut u8) };
        Name { ptr, meta: len | COUNTED }
    }

    /// A name of text that lives as long as the process (not interned: it is equal by address
    /// only to its own copies).
    pub fn of_static(text: &'static str) -> Name {
        // SAFETY: a reference is never null.
        let ptr = unsafe { NonNull::new_unchecked(text.as_ptr() as *mut u8) };
        Name { ptr, meta: text.len() }
    }

    /// Whether `a` and `b` are one name (the same bytes at the same address).
    #[inline(always)]
    pub fn ptr_eq(a: &Name, b: &Name) -> bool {
        a.ptr == b.ptr && a.meta == b.meta
    }

    /// The address of the name's bytes: a key for tables of names.
    #[inline(always)]
    pub fn addr(&self) -> usize {
        self.ptr.as_ptr() as usize
    }

    #[inline(always)]
    fn is_counted(&self) -> bool {
        self.meta & COUNTED != 0
    }

    #[inline(always)]
    fn raw(&self) -> *const str {
        std::ptr::slice_from_raw_parts(self.ptr.as_ptr().cast_const(), self.meta & !COUNTED) as *const str
    }
}

impl Clone for Name {
    #[inline(always)]
    fn clone(&self) -> Name {
        if self.is_counted() {
            // SAFETY: a counted name holds one count of the `Arc<str>` it was made from, so the
            // allocation is live; the new copy takes one more.
            unsafe { Arc::increment_strong_count(self.raw()) };
        }
        Name { ptr: self.ptr, meta: self.meta }
    }
}

impl Drop for Name {
    #[inline(always)]
    fn drop(&mut self) {
        if self.is_counted() {
            // SAFETY: this copy holds one count (taken by `from_arc` or `clone`), given back here.
            unsafe { Arc::decrement_strong_count(self.raw()) };
        }
    }
}

impl Deref for Name {
    type Target = str;

    #[inline(always)]
    fn deref(&self) -> &str {
        // SAFETY: the bytes are a `str`'s (a leaked `Box<str>`, a `&'static str` or an
        // `Arc<str>`), live as long as this name.
        unsafe { &*self.raw() }
    }
}

impl AsRef<str> for Name {
    #[inline]
    fn as_ref(&self) -> &str {
        self
    }
}

impl Borrow<str> for Name {
    #[inline]
    fn borrow(&self) -> &str {
        self
    }
}

impl PartialEq for Name {
    #[inline]
    fn eq(&self, other: &Name) -> bool {
        Name::ptr_eq(self, other) || **self == **other
    }
}

impl Eq for Name {}

impl PartialEq<str> for Name {
    #[inline]
    fn eq(&self, other: &str) -> bool {
        **self == *other
    }
}

impl Hash for Name {
    #[inline]
    fn hash<H: Hasher>(&self, state: &mut H) {
        (**self).hash(state)
    }
}

impl PartialOrd for Name {
    fn partial_cmp(&self, other: &Name) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Name {
    /// By text; one name (interned names of one text are one) without reading it.
    fn cmp(&self, other: &Name) -> std::cmp::Ordering {
        if Name::ptr_eq(self, other) {
            return std::cmp::Ordering::Equal;
        }
        (**self).cmp(&**other)
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}

// A name, and a name or nothing, are two words.
const _: () = assert!(std::mem::size_of::<Name>() == 16 && std::mem::size_of::<Option<Name>>() == 16);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lasting_names_of_one_text_are_one_name() {
        let a = Name::lasting("name-test-field");
        let b = Name::lasting(&String::from("name-test-field"));
        assert!(Name::ptr_eq(&a, &b));
        assert_eq!(&*a, "name-test-field");
        assert!(!a.is_counted());
        let c = Name::lasting("name-test-other");
        assert!(!Name::ptr_eq(&a, &c));
        assert_ne!(a, c);
    }

    #[test]
    fn counted_names_share_their_allocation_and_free_it() {
        let text: Arc<str> = Arc::from("counted-name");
        let name = Name::from_arc(Arc::clone(&text));
        assert_eq!(Arc::strong_count(&text), 2);
        let copy = name.clone();
        assert_eq!(Arc::strong_count(&text), 3);
        assert!(Name::ptr_eq(&name, &copy));
        assert_eq!(&*copy, "counted-name");
        drop(name);
        drop(copy);
        assert_eq!(Arc::strong_count(&text), 1);
        // A counted name and a lasting one of the same text are equal by text, not by address.
        let counted = Name::counted("name-test-both");
        let lasting = Name::lasting("name-test-both");
        assert_eq!(counted, lasting);
        assert!(!Name::ptr_eq(&counted, &lasting));
    }

    #[test]
    fn a_full_table_gives_counted_names() {
        let mut table = Lasting::default();
        let max = 2 * (LASTING_OVERHEAD + 4);
        let a = table.intern("aaaa", max);
        let b = table.intern("bbbb", max);
        assert!(!a.is_counted() && !b.is_counted());
        assert!(table.intern("cccc", max).is_counted());
        // Names already held are still found, the same ones.
        assert!(Name::ptr_eq(&table.intern("aaaa", max), &a));
        assert_eq!(table.bytes, max);
    }

    #[test]
    fn empty_and_non_ascii_names_read_back() {
        for text in ["", "é", "\u{FFFD}", "a\u{1F600}b"] {
            assert_eq!(&*Name::lasting(text), text);
            assert_eq!(&*Name::counted(text), text);
        }
    }
}
