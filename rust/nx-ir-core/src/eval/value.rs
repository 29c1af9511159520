//! The runtime value model: a two-word enum whose heap parts are shared (`Rc` for what the
//! evaluation builds, a thin atomically counted [`Text`] for strings so literals from the
//! compiled program are shared without copying). Values never leave one evaluation: the host
//! sees [`HostValue`]s.
//!
//! [`HostValue`]: super::host::HostValue

use std::cell::OnceCell;
use std::fmt;
use std::ops::Deref;
use std::rc::Rc;

use std::alloc::{alloc, dealloc, handle_alloc_error, Layout};
use std::ptr::NonNull;
use std::sync::atomic::{fence, AtomicUsize, Ordering};

pub(crate) use super::wide::{Iter as WideIter, Wide};

pub(crate) use super::name::Name;
pub(crate) use super::seq::Items;

/// One runtime value.
///
/// The tag is a whole word (`repr(u64)`, the size unchanged): a value moved through a
/// `Result` is then copied word by word, where a one-byte tag left the compiler copying the
/// seven bytes after it with overlapping narrower loads that could not be forwarded from the
/// stores just made (a stall per move, seen in `perf` on a small call).
#[derive(Debug)]
#[repr(u64)]
pub(crate) enum Value {
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(Text),
    /// A list; the empty list is the empty value (absence, `null`).
    Seq(Rc<Items>),
    Record(Rc<Record>),
    /// A constant union case: behaves as its case name wherever text is wanted.
    Case(Rc<CaseValue>),
    /// A function value: the declaration it names (module index, declaration index).
    Function(FunctionRef),
    Handler(Rc<Handler>),
}

impl Clone for Value {
    #[inline(always)]
    fn clone(&self) -> Value {
        match self {
            // A value that owns nothing is copied whole, two words: cloned variant by variant,
            // a boolean's copy is one byte stored, and the next whole-word read of the copy (a
            // move through a `Result`) cannot be forwarded from it and stalls.
            // SAFETY: these variants own nothing, so a bitwise copy is a clone.
            Value::Bool(_) | Value::Int(_) | Value::Float(_) | Value::Function(_) => unsafe { std::ptr::read(self) },
            Value::Str(text) => Value::Str(text.clone()),
            Value::Seq(items) => Value::Seq(Rc::clone(items)),
            Value::Record(record) => Value::Record(Rc::clone(record)),
            Value::Case(case) => Value::Case(Rc::clone(case)),
            Value::Handler(handler) => Value::Handler(Rc::clone(handler)),
        }
    }
}

#[derive(Debug)]
pub(crate) struct Record {
    pub type_name: Option<Name>,
    /// Each name at most once, in the order they were stored.
    pub fields: Fields,
    /// For a record of many fields (a host object), the field positions sorted by name, built
    /// on the first lookup, so a lookup costs O(log n) however large the record is.
    index: OnceCell<Box<[u32]>>,
    /// The record declaration (module, declaration) whose full normalization produced exactly
    /// these fields, when one did: checking the record against it again yields it unchanged.
    /// For a union case's record, the union (the case is the one its `$type` names).
    pub normal_of: Option<(u32, u32)>,
    /// Normal at `normal_of` all the way down: every declared field present and an exact
    /// primitive, or such a record again (as a host record read in its declared layout is).
    /// Checking it again then costs its declaration's `deep_recheck`.
    pub deep: bool,
}

/// Records of more fields than this are looked up through a sorted index.
pub(crate) const INDEXED_FIELDS: usize = 16;

/// Records of more fields than this keep them in a [`Wide`] (persistent, shared by copies),
/// the others in a flat vector. 64 is the work bound's K: copying a flat record whole costs at
/// most K units, what the one charge of the `apply` or `merge` node pays for, and below it the
/// flat copy is cheaper than a path through the trees.
pub(crate) const WIDE_FIELDS: usize = 64;

/// A record's fields: flat up to [`WIDE_FIELDS`], a [`Wide`] past it.
#[derive(Debug, Clone)]
pub(crate) enum Fields {
    Flat(Vec<(Name, Value)>),
    Wide(Box<Wide>),
}

impl Fields {
    /// The fields of `fields` (each name at most once), laid out by their count.
    #[inline]
    pub fn new(fields: Vec<(Name, Value)>) -> Fields {
        if fields.len() > WIDE_FIELDS {
            return Fields::Wide(Box::new(Wide::from_fields(fields)));
        }
        Fields::Flat(fields)
    }

    /// A wide record's fields, flat again when few are left.
    pub fn settled(wide: Wide) -> Fields {
        if wide.len() > WIDE_FIELDS {
            Fields::Wide(Box::new(wide))
        } else {
            Fields::Flat(wide.iter().cloned().collect())
        }
    }

    #[inline]
    pub fn len(&self) -> usize {
        match self {
            Fields::Flat(fields) => fields.len(),
            Fields::Wide(wide) => wide.len(),
        }
    }

    #[inline]
    pub fn iter(&self) -> FieldsIter<'_> {
        match self {
            Fields::Flat(fields) => FieldsIter::Flat(fields.iter()),
            Fields::Wide(wide) => FieldsIter::Wide(wide.iter()),
        }
    }

    /// A flat copy of the fields.
    pub fn to_vec(&self) -> Vec<(Name, Value)> {
        match self {
            Fields::Flat(fields) => fields.clone(),
            Fields::Wide(wide) => wide.iter().cloned().collect(),
        }
    }

    /// The fields as a slice, for access by position: borrowed when flat, else copied (one
    /// scan of the wide record).
    #[inline]
    pub fn as_slice(&self) -> std::borrow::Cow<'_, [(Name, Value)]> {
        match self {
            Fields::Flat(fields) => std::borrow::Cow::Borrowed(fields),
            Fields::Wide(wide) => std::borrow::Cow::Owned(wide.iter().cloned().collect()),
        }
    }
}

impl From<Vec<(Name, Value)>> for Fields {
    #[inline]
    fn from(fields: Vec<(Name, Value)>) -> Fields {
        Fields::new(fields)
    }
}

impl<'a> IntoIterator for &'a Fields {
    type Item = &'a (Name, Value);
    type IntoIter = FieldsIter<'a>;

    #[inline]
    fn into_iter(self) -> FieldsIter<'a> {
        self.iter()
    }
}

/// The fields of a record in their order.
pub(crate) enum FieldsIter<'a> {
    Flat(std::slice::Iter<'a, (Name, Value)>),
    Wide(WideIter<'a>),
}

impl<'a> Iterator for FieldsIter<'a> {
    type Item = &'a (Name, Value);

    #[inline]
    fn next(&mut self) -> Option<&'a (Name, Value)> {
        match self {
            FieldsIter::Flat(iter) => iter.next(),
            FieldsIter::Wide(iter) => iter.next(),
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            FieldsIter::Flat(iter) => iter.size_hint(),
            FieldsIter::Wide(iter) => iter.size_hint(),
        }
    }
}

impl ExactSizeIterator for FieldsIter<'_> {}

#[derive(Debug)]
pub(crate) struct CaseValue {
    pub case: Name,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FunctionRef {
    pub module: u32,
    pub decl: u32,
}

/// An action handler: where its body is and the frame it captured.
#[derive(Debug)]
pub(crate) struct Handler {
    pub module: u32,
    pub decl: u32,
    pub node: u32,
    /// `identity::Name` of the component the handler is written for.
    pub component_key: Name,
    pub emit: Name,
    pub action: Name,
    pub capture: Vec<Option<Value>>,
}

/// A string value: one allocation holding a count, a length word and the UTF-8 bytes, behind a
/// one-word pointer (an `Arc<str>` is two), so a [`Value`] is two words. Cloning shares it
/// (the count is atomic: a program's literals are shared by calls on any thread).
///
/// The length word's top bits are flags, known when the text is made: [`ASCII`] when every
/// byte is ASCII (a scan of what `new` copies anyway, digits and number forms by construction,
/// a concat from its parts' flags), so a text's UTF-16 length is O(1) for ASCII text and a
/// binding may build its own string without decoding; [`SHARED`] for a program's literal (see
/// `CompiledProgram::shared_texts`), which a binding may keep one string for.
pub(crate) struct Text(NonNull<TextHeader>);

#[repr(C)]
struct TextHeader {
    count: AtomicUsize,
    /// The byte length, and the flags in its top bits.
    len: usize,
}

/// The flag of a [`Text`] whose bytes are all ASCII.
const ASCII: usize = 1 << (usize::BITS - 1);
/// The flag of a [`Text`] that is one of the program's literals.
const SHARED: usize = 1 << (usize::BITS - 2);
/// The length bits of a text's length word.
const LEN_BITS: usize = !(ASCII | SHARED);

// SAFETY: a text's bytes never change once made, and its count is atomic: it may be shared and
// sent between threads as an `Arc<str>` may.
unsafe impl Send for Text {}
// SAFETY: as above.
unsafe impl Sync for Text {}

impl Text {
    pub fn new(text: &str) -> Text {
        Text::from_parts(text, "", if text.is_ascii() { ASCII } else { 0 })
    }

    /// A program literal's text (flagged [`SHARED`]).
    pub fn literal(text: &str) -> Text {
        Text::from_parts(text, "", SHARED | if text.is_ascii() { ASCII } else { 0 })
    }

    /// A text known to be ASCII (digits, a number's form): no scan.
    #[inline]
    pub fn ascii(text: &str) -> Text {
        debug_assert!(text.is_ascii());
        Text::from_parts(text, "", ASCII)
    }

    /// The decimal text of `value`, formatted on the stack and copied once.
    pub fn int(value: i64) -> Text {
        let mut digits = [0u8; 20];
        Text::ascii(int_digits(value, &mut digits))
    }

    /// `left` then `right`, written straight into the one allocation; `ascii` tells whether
    /// both are ASCII (the caller knows it from their flags or forms).
    #[inline]
    pub fn concat(left: &str, right: &str, ascii: bool) -> Text {
        debug_assert_eq!(ascii, left.is_ascii() && right.is_ascii());
        Text::from_parts(left, right, if ascii { ASCII } else { 0 })
    }

    /// The allocation of a text of `len` bytes.
    #[inline]
    fn layout(len: usize) -> Layout {
        match Layout::new::<TextHeader>().extend(Layout::array::<u8>(len).unwrap_or_else(|_| capacity_overflow())) {
            Ok((layout, _)) if len <= LEN_BITS => layout,
            _ => capacity_overflow(),
        }
    }

    /// `left` then `right` after the header (`flags` in its length word), in one allocation.
    fn from_parts(left: &str, right: &str, flags: usize) -> Text {
        let len = left.len() + right.len();
        let layout = Text::layout(len);
        // SAFETY: the layout is of a header and `len` bytes (not zero-sized). Once the header
        // and both parts are written, every byte is, and the bytes are UTF-8 (two strings one
        // after the other).
        unsafe {
            let header = alloc(layout).cast::<TextHeader>();
            let Some(header) = NonNull::new(header) else { handle_alloc_error(layout) };
            header.as_ptr().write(TextHeader { count: AtomicUsize::new(1), len: len | flags });
            let bytes = header.as_ptr().add(1).cast::<u8>();
            std::ptr::copy_nonoverlapping(left.as_ptr(), bytes, left.len());
            std::ptr::copy_nonoverlapping(right.as_ptr(), bytes.add(left.len()), right.len());
            Text(header)
        }
    }

    #[inline(always)]
    fn header(&self) -> &TextHeader {
        // SAFETY: the header lives as long as any `Text` that points at it.
        unsafe { self.0.as_ref() }
    }

    /// Whether every byte of the text is ASCII.
    #[inline]
    pub fn is_ascii(&self) -> bool {
        self.header().len & ASCII != 0
    }

    /// Whether the text is one of the program's literals.
    #[inline]
    pub fn is_shared(&self) -> bool {
        self.header().len & SHARED != 0
    }

    /// The text's length in UTF-16 code units: its byte length when it is ASCII (as writing a
    /// text measures it, from the same flag; tests check the flag by it).
    #[cfg(test)]
    pub fn len16(&self) -> u64 {
        if self.is_ascii() {
            return self.len() as u64;
        }
        len16(self)
    }
}

#[cold]
#[inline(never)]
fn capacity_overflow() -> ! {
    panic!("text length overflow")
}

impl Clone for Text {
    #[inline]
    fn clone(&self) -> Text {
        // Relaxed, as `Arc` does: a new reference is made from an existing one.
        let before = self.header().count.fetch_add(1, Ordering::Relaxed);
        if before > isize::MAX as usize {
            // As `Arc`: so many clones (leaked) that the count could wrap.
            std::process::abort();
        }
        Text(self.0)
    }
}

impl Drop for Text {
    #[inline]
    fn drop(&mut self) {
        let header = self.header();
        // The only reference (a count of 1 seen by this holder: no other can raise it) is freed
        // without the atomic decrement, the common case of a text the evaluation made.
        if header.count.load(Ordering::Acquire) != 1 {
            if header.count.fetch_sub(1, Ordering::Release) != 1 {
                return;
            }
            fence(Ordering::Acquire);
        }
        let layout = Text::layout(header.len & LEN_BITS);
        // SAFETY: this was the last reference; the block was allocated with this layout.
        unsafe { dealloc(self.0.as_ptr().cast::<u8>(), layout) };
    }
}

/// Pairs of decimal digits, "00" to "99".
const DIGIT_PAIRS: &[u8; 200] = b"\
0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// The decimal text of `value`, written at the end of `digits` (19 digits and a sign at most,
/// for i64::MIN), two digits per division.
pub(crate) fn int_digits(value: i64, digits: &mut [u8; 20]) -> &str {
    let mut at = digits.len();
    let mut rest = value.unsigned_abs();
    while rest >= 100 {
        let pair = (rest % 100) as usize * 2;
        rest /= 100;
        at -= 2;
        digits[at] = DIGIT_PAIRS[pair];
        digits[at + 1] = DIGIT_PAIRS[pair + 1];
    }
    if rest >= 10 {
        let pair = rest as usize * 2;
        at -= 2;
        digits[at] = DIGIT_PAIRS[pair];
        digits[at + 1] = DIGIT_PAIRS[pair + 1];
    } else {
        at -= 1;
        digits[at] = b'0' + rest as u8;
    }
    if value < 0 {
        at -= 1;
        digits[at] = b'-';
    }
    // SAFETY: only ASCII digits and a sign were written from `at` on.
    unsafe { std::str::from_utf8_unchecked(&digits[at..]) }
}

impl Deref for Text {
    type Target = str;

    #[inline]
    fn deref(&self) -> &str {
        // SAFETY: a `Text`'s `len` bytes follow its header, and are only ever made from UTF-8:
        // `&str`s (`from_parts`) or ASCII digits and a sign (`int`).
        unsafe {
            let len = self.header().len & LEN_BITS;
            std::str::from_utf8_unchecked(std::slice::from_raw_parts(self.0.as_ptr().add(1).cast::<u8>(), len))
        }
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

thread_local! {
    static EMPTY: Rc<Items> = Rc::new(Items::from(Vec::new()));
}

impl Value {
    /// `Value::Bool(b)`, written as two whole words: a boolean stored as its one byte is read
    /// back whole when the value moves (through a `Result`, into a list), and that read cannot
    /// be forwarded from the narrower store (a stall per comparison result).
    #[inline(always)]
    pub fn bool(b: bool) -> Value {
        // SAFETY: `Value` is `repr(u64)`, a union of `repr(C)` structs each led by the `u64`
        // tag, so `Bool`, the first variant (tag 0), is the tag word then its `bool` at offset
        // 8: the second word's first byte, 0 or 1 here; the other bytes are padding.
        unsafe { std::mem::transmute::<[u64; 2], Value>([0, u64::from_ne_bytes([u8::from(b), 0, 0, 0, 0, 0, 0, 0])]) }
    }

    /// Puts `value` in `place` and returns what was there, copying each as two 8-byte words: a
    /// value moved whole is a 16-byte copy, whose load stalls where the value was just stored
    /// in two halves (as a call's result is). The compiler may still merge the two reads of
    /// `place` into one load.
    #[inline(always)]
    pub fn swap_in(place: &mut Value, value: Value) -> Value {
        use std::mem::MaybeUninit;
        let value = std::mem::ManuallyDrop::new(value);
        // SAFETY: `Value` is 16 bytes (asserted below), so both are two words, copied as
        // `MaybeUninit` (a boolean's padding is never read as an integer); `place` gets the
        // new value's bytes and the old bytes move out to the result, so each value has one
        // owner afterwards.
        unsafe {
            let src = (&*value as *const Value).cast::<MaybeUninit<u64>>();
            let dst = (place as *mut Value).cast::<MaybeUninit<u64>>();
            let (a, b) = (src.read(), src.add(1).read());
            let (c, d) = (dst.read(), dst.add(1).read());
            dst.write(a);
            dst.add(1).write(b);
            let mut old = MaybeUninit::<Value>::uninit();
            let out = old.as_mut_ptr().cast::<MaybeUninit<u64>>();
            out.write(c);
            out.add(1).write(d);
            old.assume_init()
        }
    }

    /// Whether `self` is the very value `other` is: the same allocation for what owns one, the
    /// same variant and bits for the others (floats bit for bit). Equal values built apart are
    /// not the same.
    pub fn is(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => a.to_bits() == b.to_bits(),
            (Value::Function(a), Value::Function(b)) => a == b,
            (Value::Str(a), Value::Str(b)) => a.0 == b.0,
            (Value::Seq(a), Value::Seq(b)) => Rc::ptr_eq(a, b),
            (Value::Record(a), Value::Record(b)) => Rc::ptr_eq(a, b),
            (Value::Case(a), Value::Case(b)) => Rc::ptr_eq(a, b),
            (Value::Handler(a), Value::Handler(b)) => Rc::ptr_eq(a, b),
            _ => false,
        }
    }

    /// The empty value (shared, no allocation).
    #[inline]
    pub fn empty() -> Value {
        Value::Seq(EMPTY.with(Rc::clone))
    }

    #[inline]
    pub fn seq(items: Vec<Value>) -> Value {
        if items.is_empty() {
            Value::empty()
        } else {
            Value::Seq(Rc::new(Items::from(items)))
        }
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        matches!(self, Value::Seq(items) if items.is_empty())
    }

    /// Drops the value; a list of scalars only (no item owns anything) without a drop per item
    /// (and packed texts whole).
    pub fn dispose(self) {
        if let Value::Seq(items) = self {
            if let Ok(items) = Rc::try_unwrap(items) {
                if items.texts().is_some() {
                    return;
                }
                let mut items = items.into_values();
                if items.iter().all(|item| matches!(item, Value::Bool(_) | Value::Int(_) | Value::Float(_))) {
                    // SAFETY: every item is a scalar, which owns nothing: forgetting them leaks
                    // nothing, and the vector then frees only its buffer.
                    unsafe { items.set_len(0) };
                }
            }
        }
    }

    /// [`Value::dispose`] of a list known to hold scalars only (any other value is dropped).
    pub fn dispose_scalar_list(self) {
        match self {
            Value::Seq(items) => {
                if let Ok(items) = Rc::try_unwrap(items) {
                    let mut items = items.into_values();
                    debug_assert!(items.iter().all(|item| matches!(item, Value::Bool(_) | Value::Int(_) | Value::Float(_))));
                    // SAFETY: the caller saw every item to be a scalar, which owns nothing.
                    unsafe { items.set_len(0) };
                }
            }
            other => other.dispose(),
        }
    }

    /// Text: a string, or a constant case as its name.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Value::Str(text) => Some(text),
            Value::Case(case) => Some(&case.case),
            _ => None,
        }
    }

    pub fn as_record(&self) -> Option<&Record> {
        match self {
            Value::Record(record) => Some(record),
            _ => None,
        }
    }

    /// A short description for diagnostics.
    pub fn describe(&self) -> &'static str {
        match self {
            Value::Bool(_) => "a boolean",
            Value::Int(_) => "an integer",
            Value::Float(_) => "a float",
            Value::Str(_) => "a string",
            Value::Seq(items) if items.is_empty() => "the empty value",
            Value::Seq(_) => "a list",
            Value::Record(_) => "a record",
            Value::Case(_) => "a union case",
            Value::Function(_) => "a function",
            Value::Handler(_) => "an action handler",
        }
    }
}

impl Record {
    #[inline]
    pub fn new(type_name: Option<Name>, fields: Vec<(Name, Value)>) -> Record {
        Record { type_name, fields: Fields::new(fields), index: OnceCell::new(), normal_of: None, deep: false }
    }

    /// A record of fields already laid out.
    #[inline]
    pub fn with_fields(type_name: Option<Name>, fields: Fields) -> Record {
        Record { type_name, fields, index: OnceCell::new(), normal_of: None, deep: false }
    }

    /// [`Record::new`], counted. Built in the count's own allocation by a call of its own,
    /// which hands back one pointer: a record returned whole is copied out again by the caller,
    /// and that copy's wide loads of what the callee stored word by word stall.
    #[inline(never)]
    pub fn new_rc(type_name: Option<Name>, fields: Vec<(Name, Value)>) -> Rc<Record> {
        Rc::new(Record::new(type_name, fields))
    }

    /// A record whose fields are the full normalization (defaults filled, every value checked)
    /// of the record declaration `decl` of `module` (or of the case of union `decl` that
    /// `type_name` names), counted, as [`Record::new_rc`] builds it; `deep` as [`Record::deep`].
    #[inline(never)]
    pub fn normalized_rc(type_name: Name, fields: Vec<(Name, Value)>, module: u32, decl: u32, deep: bool) -> Rc<Record> {
        Rc::new(Record { type_name: Some(type_name), fields: Fields::new(fields), index: OnceCell::new(), normal_of: Some((module, decl)), deep })
    }

    /// Whether normalizing against the record declaration (or union case) `decl` of `module`,
    /// with `declared` fields, made exactly these fields (every one of them present): checking the record
    /// against it again gives it back unchanged.
    #[inline]
    pub fn is_normal_at(&self, module: u32, decl: u32, declared: usize) -> bool {
        self.normal_of == Some((module, decl)) && self.fields.len() == declared
    }

    /// The record's `$type` where it names another type than `name` (none, or `name` itself,
    /// give `None`).
    #[inline]
    pub fn other_type_name(&self, name: &Name) -> Option<&Name> {
        self.type_name.as_ref().filter(|t| !Name::ptr_eq(t, name) && ***t != **name)
    }

    pub fn get(&self, name: &str) -> Option<&Value> {
        match &self.fields {
            Fields::Flat(fields) if fields.len() > INDEXED_FIELDS => self.get_indexed(fields, name),
            Fields::Flat(fields) => fields.iter().find(|(key, _)| &**key == name).map(|(_, value)| value),
            Fields::Wide(wide) => wide.get(name),
        }
    }

    /// Lookup by an interned name: pointer comparison first.
    #[inline]
    pub fn get_name(&self, name: &Name) -> Option<&Value> {
        match &self.fields {
            Fields::Flat(fields) if fields.len() <= INDEXED_FIELDS => {
                fields.iter().find(|(key, _)| Name::ptr_eq(key, name)).map(|(_, value)| value)
            }
            Fields::Flat(fields) => self.get_indexed(fields, name),
            Fields::Wide(wide) => wide.get(name),
        }
    }

    #[cold]
    fn get_indexed<'a>(&'a self, fields: &'a [(Name, Value)], name: &str) -> Option<&'a Value> {
        let index = self.index.get_or_init(|| {
            let mut order: Vec<u32> = (0..fields.len() as u32).collect();
            order.sort_unstable_by(|a, b| fields[*a as usize].0.as_bytes().cmp(fields[*b as usize].0.as_bytes()));
            order.into_boxed_slice()
        });
        let found = index.binary_search_by(|i| fields[*i as usize].0.as_bytes().cmp(name.as_bytes())).ok()?;
        Some(&fields[index[found] as usize].1)
    }

    /// What one lookup scans, for the work counter: the fields, or the index's depth (a wide
    /// record's lookups tally what they read themselves: one unit here).
    #[inline]
    pub fn lookup_work(&self) -> u64 {
        match &self.fields {
            Fields::Flat(fields) if fields.len() > INDEXED_FIELDS => u64::from(usize::BITS - fields.len().leading_zeros()),
            Fields::Flat(fields) => fields.len() as u64,
            Fields::Wide(_) => 1,
        }
    }

    pub fn type_name(&self) -> Option<&str> {
        self.type_name.as_deref()
    }
}

/// Sets a field, replacing an earlier one of the same name in place.
pub(crate) fn set_field(fields: &mut Vec<(Name, Value)>, name: Name, value: Value) {
    for entry in fields.iter_mut() {
        if Name::ptr_eq(&entry.0, &name) {
            entry.1 = value;
            return;
        }
    }
    fields.push((name, value));
}

/// The length of a text in UTF-16 code units.
#[inline]
pub(crate) fn len16(text: &str) -> u64 {
    if text.is_ascii() {
        return text.len() as u64;
    }
    text.chars().map(|c| c.len_utf16() as u64).sum()
}

/// The smaller of two texts' UTF-16 lengths, and the bytes read to find it: the text of fewer
/// bytes is measured, the other only until it is known to be no shorter, so the walk is
/// O(the smaller length) (a UTF-16 unit takes at most 3 bytes), never the longer text.
pub(crate) fn min_len16(a: &str, b: &str) -> (u64, u64) {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let first = len16(short);
    // `first` ≤ `short.len()` ≤ `long.len()`: when the longer text's first `first` bytes are
    // ASCII, it holds at least `first` units.
    if long.as_bytes()[..first as usize].is_ascii() {
        return (first, short.len() as u64 + first);
    }
    let mut units = 0u64;
    let mut read = 0usize;
    for c in long.chars() {
        if units >= first {
            break;
        }
        units += c.len_utf16() as u64;
        read += c.len_utf8();
    }
    (first.min(units), (short.len() + read) as u64)
}

/// The text cost ⌊len16 / 64⌋.
#[inline]
pub(crate) fn text_cost(text: &str) -> u64 {
    // Cheap exits: fewer than 64 bytes cannot hold 64 code units.
    if text.len() < 64 {
        return 0;
    }
    len16(text) / 64
}

// A value, and a value or nothing (a frame slot, an argument place), are two words.
const _: () = assert!(std::mem::size_of::<Value>() == 16 && std::mem::size_of::<Option<Value>>() == 16);
// `deep` sits in what was padding: a record stays 72 bytes (88 with its count).
const _: () = assert!(std::mem::size_of::<Record>() == 72);
// A result carrying a value is no larger than the value (the error is one word).
const _: () = assert!(std::mem::size_of::<crate::error::IrResult<Value>>() == 16);

// Flat or wide, a record's fields are three words.
const _: () = assert!(std::mem::size_of::<Fields>() == 24);

#[cfg(test)]
mod tests {
    use super::{int_digits, Value};
    use std::rc::Rc;

    #[test]
    fn bool_is_the_boolean_variant() {
        for b in [false, true] {
            assert!(matches!(Value::bool(b), Value::Bool(x) if x == b));
            assert!(matches!(Value::bool(b).clone(), Value::Bool(x) if x == b));
        }
    }

    #[test]
    fn swap_in_moves_both_values_once() {
        let items = Rc::new(super::Items::from(vec![Value::Int(1)]));
        let mut place = Value::Seq(Rc::clone(&items));
        let old = Value::swap_in(&mut place, Value::Float(2.5));
        assert!(matches!(place, Value::Float(f) if f == 2.5));
        assert!(matches!(&old, Value::Seq(held) if Rc::ptr_eq(held, &items)));
        // Neither copied nor dropped: the list is held by `items` and `old` alone.
        assert_eq!(Rc::strong_count(&items), 2);
        let back = Value::swap_in(&mut place, old);
        assert!(matches!(back, Value::Float(f) if f == 2.5));
        assert_eq!(Rc::strong_count(&items), 2);
        drop(place);
        assert_eq!(Rc::strong_count(&items), 1);
        let mut place = Value::bool(true);
        assert!(matches!(Value::swap_in(&mut place, Value::Bool(false)), Value::Bool(true)));
        assert!(matches!(place, Value::Bool(false)));
    }

    #[test]
    fn int_digits_are_the_decimal_text() {
        let mut values = vec![0, 1, -1, 9, 10, 99, 100, 101, 999, 1000, i64::MAX, i64::MIN, i64::MIN + 1];
        for power in 0..19 {
            let p = 10i64.pow(power);
            values.extend([p, p - 1, p + 1, -p, -(p - 1), -(p + 1)]);
        }
        values.extend(-100_000..100_000);
        let mut bits: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..100_000 {
            bits = bits.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            values.push(bits as i64);
            values.push((bits >> (bits % 64)) as i64);
        }
        let mut digits = [0u8; 20];
        for value in values {
            assert_eq!(int_digits(value, &mut digits), value.to_string());
        }
    }
}
