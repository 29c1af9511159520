//! The host boundary: the canonical host value ([`HostValue`]), the traits a binding implements
//! to hand its own values in ([`HostValueSource`]) and take results out ([`HostValueSink`])
//! without an intermediate copy, and the input size of ir-format §6.2.

use std::borrow::Cow;
use std::collections::HashSet;

use crate::error::{codes, IrError, IrResult, LimitInfo};

use super::value::len16;

/// A canonical host value (ir-format §5). Integers are 64-bit; the canonical JSON spelling of
/// one outside ±(2^53−1) (`{"$type":"nx.int","value":"…"}`) is produced by
/// [`super::json::to_json`], not stored here.
#[derive(Debug, Clone, PartialEq)]
pub enum HostValue {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    List(Vec<HostValue>),
    Record(HostRecord),
}

/// An object: an optional `$type` and its members in order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HostRecord {
    pub type_name: Option<String>,
    pub fields: Vec<(String, HostValue)>,
}

impl HostRecord {
    pub fn new(type_name: Option<&str>) -> Self {
        HostRecord { type_name: type_name.map(str::to_string), fields: Vec::new() }
    }

    pub fn with(mut self, name: &str, value: HostValue) -> Self {
        self.fields.push((name.to_string(), value));
        self
    }

    pub fn get(&self, name: &str) -> Option<&HostValue> {
        self.fields.iter().find(|(key, _)| key == name).map(|(_, value)| value)
    }
}

impl HostValue {
    pub fn str(text: impl Into<String>) -> Self {
        HostValue::Str(text.into())
    }
}

/// What one host value is, as a binding reads it. Containers hand out their children as handles
/// of the binding's own type (for Python, borrowed objects), so nothing is copied wholesale.
pub enum HostRead<'a, T> {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(Cow<'a, str>),
    List(Vec<T>),
    /// An object: the `$type` when it is a string, and the other members.
    Record { type_name: Option<Cow<'a, str>>, fields: Vec<(Cow<'a, str>, T)> },
}

/// A host value the runtime can read. A failure to read (a value the binding cannot represent)
/// should be an `nx-ir-boundary-type` error.
pub trait HostValueSource {
    type Child: HostValueSource;
    fn read(&self) -> IrResult<HostRead<'_, Self::Child>>;

    /// Where the host's containers may be shared or hold themselves, an identity for this one
    /// while it is read (its address, say), so that measuring it stops where a value contains
    /// itself instead of walking round the cycle. Asked only of a value `read` gives as a list
    /// or a record. `None`, the default, for a value that is a tree.
    #[inline(always)]
    fn identity(&self) -> Option<usize> {
        None
    }

    /// When the value is one `read` gives as a [`HostRead::Record`], hands its members to
    /// `visit` one at a time in the host's order (the `$type` as [`Member::TypeName`] where
    /// `read` would take it as the type name), without gathering them first, until `visit`
    /// returns `Ok(false)`: `Some` with the first failure, of reading or of `visit`. `None` when
    /// the value is not a record (`read` then reads it). A reader that stops early and reads the
    /// record again through `read`, or visits it again, finds it unchanged (its members in the
    /// same order). By default, through `read`.
    fn visit_members<F>(&self, mut visit: F) -> Option<IrResult<()>>
    where
        F: FnMut(Member<'_, Self::Child>) -> IrResult<bool>,
    {
        let (type_name, fields) = match self.read() {
            Ok(HostRead::Record { type_name, fields }) => (type_name, fields),
            Ok(_) => return None,
            Err(error) => return Some(Err(error)),
        };
        let members = type_name.iter().map(|name| Member::TypeName(name));
        Some(visit_each(members.chain(fields.into_iter().map(|(key, item)| Member::Field(key, item))), &mut visit))
    }
}

/// Hands `members` to `visit` until it returns `Ok(false)` or fails (its failure returned).
fn visit_each<'m, T>(members: impl Iterator<Item = Member<'m, T>>, visit: &mut impl FnMut(Member<'m, T>) -> IrResult<bool>) -> IrResult<()> {
    for member in members {
        if !visit(member)? {
            break;
        }
    }
    Ok(())
}

/// A member of a host record, as [`HostValueSource::visit_members`] hands it over.
pub enum Member<'a, T> {
    /// The `$type` member, a string.
    TypeName(&'a str),
    /// Any other member: its name and value.
    Field(Cow<'a, str>, T),
}

impl<'v> HostValueSource for &'v HostValue {
    type Child = &'v HostValue;
    #[inline(always)]
    fn read(&self) -> IrResult<HostRead<'_, &'v HostValue>> {
        let value: &'v HostValue = self;
        Ok(match value {
            HostValue::Null => HostRead::Null,
            HostValue::Bool(b) => HostRead::Bool(*b),
            HostValue::Int(i) => HostRead::Int(*i),
            HostValue::Float(f) => HostRead::Float(*f),
            HostValue::Str(s) => HostRead::Str(Cow::Borrowed(s.as_str())),
            HostValue::List(items) => HostRead::List(items.iter().collect()),
            HostValue::Record(record) => HostRead::Record {
                type_name: record.type_name.as_deref().map(Cow::Borrowed),
                fields: record.fields.iter().map(|(k, v)| (Cow::Borrowed(k.as_str()), v)).collect(),
            },
        })
    }

    fn visit_members<F>(&self, mut visit: F) -> Option<IrResult<()>>
    where
        F: FnMut(Member<'_, &'v HostValue>) -> IrResult<bool>,
    {
        let value: &'v HostValue = self;
        let HostValue::Record(record) = value else { return None };
        let members = record.type_name.as_deref().map(Member::TypeName).into_iter();
        Some(visit_each(members.chain(record.fields.iter().map(|(key, item)| Member::Field(Cow::Borrowed(key.as_str()), item))), &mut visit))
    }
}

/// Where results go: a binding builds its own objects (Python dicts and lists) directly.
pub trait HostValueSink {
    type Out;
    fn null(&mut self) -> IrResult<Self::Out>;
    fn bool(&mut self, value: bool) -> IrResult<Self::Out>;
    fn int(&mut self, value: i64) -> IrResult<Self::Out>;
    fn float(&mut self, value: f64) -> IrResult<Self::Out>;
    fn str(&mut self, value: &str) -> IrResult<Self::Out>;
    /// A string whose bytes are all ASCII (the evaluator knows it from how the text was made),
    /// which a binding may build without decoding; never one of the program's shared texts
    /// (`CompiledProgram::shared_texts`: those come through [`HostValueSink::str`]). By default
    /// the same as [`HostValueSink::str`].
    fn ascii_str(&mut self, value: &str) -> IrResult<Self::Out> {
        self.str(value)
    }
    fn list(&mut self, items: Vec<Self::Out>) -> IrResult<Self::Out>;
    /// A list of `len` items, written in order by `item` (given the sink and the position). By
    /// default they are collected and handed to [`HostValueSink::list`]; a binding may build its
    /// own list in place instead.
    fn list_of<F>(&mut self, len: usize, mut item: F) -> IrResult<Self::Out>
    where
        Self: Sized,
        F: FnMut(&mut Self, usize) -> IrResult<Self::Out>,
    {
        let mut items = Vec::with_capacity(len);
        for at in 0..len {
            items.push(item(self, at)?);
        }
        self.list(items)
    }
    /// An object; `type_name` is written as `$type` first, then the fields in the order given
    /// (sorted by name).
    fn record(&mut self, type_name: Option<&str>, fields: Vec<(&str, Self::Out)>) -> IrResult<Self::Out>;
    /// A record of a declared shape, every field present: `shape` (module, declaration) names
    /// the same `$type` and field names, in the same order, on every call of a program (see
    /// `CompiledProgram::record_shapes`); each of the `len` fields is written in order by
    /// `field`. By default the same as [`HostValueSink::record`].
    fn shaped_record<'n, F>(
        &mut self,
        shape: (u32, u32),
        type_name: &str,
        len: usize,
        mut field: F,
    ) -> IrResult<Self::Out>
    where
        Self: Sized,
        F: FnMut(&mut Self, usize) -> IrResult<(&'n str, Self::Out)>,
    {
        let _ = shape;
        let mut fields = Vec::with_capacity(len);
        for at in 0..len {
            fields.push(field(self, at)?);
        }
        self.record(Some(type_name), fields)
    }
}

/// Builds [`HostValue`]s.
pub struct HostValueBuilder;

impl HostValueSink for HostValueBuilder {
    type Out = HostValue;
    fn null(&mut self) -> IrResult<HostValue> {
        Ok(HostValue::Null)
    }
    fn bool(&mut self, value: bool) -> IrResult<HostValue> {
        Ok(HostValue::Bool(value))
    }
    fn int(&mut self, value: i64) -> IrResult<HostValue> {
        Ok(HostValue::Int(value))
    }
    fn float(&mut self, value: f64) -> IrResult<HostValue> {
        Ok(HostValue::Float(value))
    }
    fn str(&mut self, value: &str) -> IrResult<HostValue> {
        Ok(HostValue::Str(value.to_string()))
    }
    fn list(&mut self, items: Vec<HostValue>) -> IrResult<HostValue> {
        Ok(HostValue::List(items))
    }
    fn record(&mut self, type_name: Option<&str>, fields: Vec<(&str, HostValue)>) -> IrResult<HostValue> {
        Ok(HostValue::Record(HostRecord {
            type_name: type_name.map(str::to_string),
            fields: fields.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
        }))
    }
}

/// The `maxInputSize` failure: no declaration, no span.
pub fn input_limit_error(limit: u64) -> IrError {
    let mut error = IrError::new(
        codes::RESOURCE_LIMIT,
        format!("The call's input is larger than its limit of {limit}."),
    );
    error.diagnostics[0].limit = Some(LimitInfo { name: "maxInputSize", value: limit });
    error
}

/// Text cost of a string, refusing to scan one whose byte length alone shows it is too long.
fn text_size(text: &str, left: u64) -> u64 {
    let bytes = text.len() as u64;
    // len16 ≥ bytes / 3, so ⌊len16/64⌋ ≥ ⌊bytes/192⌋.
    if bytes / 192 > left {
        return bytes / 192;
    }
    if text.len() < 64 {
        0
    } else {
        len16(text) / 64
    }
}

/// The containers on the path a depth-first walk has taken to the one it is at, by identity: a
/// container's ancestors are the entries below its depth, since all of a container's items are
/// taken before anything taken after it. A container met again among its own ancestors is a
/// value that contains itself. Nothing is allocated until a container is taken; the path is
/// scanned up to depth [`Around::SCANNED`], and deeper entries are kept in a set as well, so a
/// deep value costs a bounded amount per container.
#[derive(Default)]
pub struct Around {
    path: Vec<usize>,
    deep: Option<HashSet<usize>>,
}

impl Around {
    const SCANNED: usize = 32;

    /// Takes `id` as the container at `depth` (an argument's own value is at 0), unless it is one
    /// of the containers around it: `false` for a value that contains itself.
    #[inline]
    pub fn enter(&mut self, depth: u32, id: usize) -> bool {
        let depth = depth as usize;
        if self.deep.is_none() && depth < Self::SCANNED {
            // No entry is deeper than the scanned path: only the path is kept.
            self.path.truncate(depth);
            if self.path.contains(&id) {
                return false;
            }
            self.path.push(id);
            return true;
        }
        self.enter_deep(depth, id)
    }

    #[cold]
    #[inline(never)]
    fn enter_deep(&mut self, depth: usize, id: usize) -> bool {
        if self.path.len() > depth {
            if let Some(deep) = &mut self.deep {
                for id in self.path.get(depth.max(Self::SCANNED)..).unwrap_or_default() {
                    deep.remove(id);
                }
            }
            self.path.truncate(depth);
        }
        let scanned = &self.path[..self.path.len().min(Self::SCANNED)];
        if scanned.contains(&id) || self.deep.as_ref().is_some_and(|deep| deep.contains(&id)) {
            return false;
        }
        if self.path.len() >= Self::SCANNED {
            self.deep.get_or_insert_with(HashSet::new).insert(id);
        }
        self.path.push(id);
        true
    }
}

/// Accumulates input size with an early stop once `limit` is passed.
pub(crate) struct SizeMeter {
    pub total: u64,
    pub limit: Option<u64>,
    around: Around,
}

impl SizeMeter {
    pub fn new(limit: Option<u64>) -> Self {
        SizeMeter { total: 0, limit, around: Around::default() }
    }

    /// Where a value turns out to contain itself: see [`size_over_a_cycle`].
    #[cold]
    fn contains_itself(&mut self) -> IrResult<()> {
        self.total = self.total.max(size_over_a_cycle(self.limit)?);
        Ok(())
    }

    #[inline]
    fn left(&self) -> u64 {
        match self.limit {
            Some(limit) => limit.saturating_sub(self.total),
            None => u64::MAX,
        }
    }

    #[inline]
    fn add(&mut self, amount: u64) -> bool {
        self.total = self.total.saturating_add(amount);
        self.over()
    }

    #[inline]
    pub fn over(&self) -> bool {
        matches!(self.limit, Some(limit) if self.total > limit)
    }

    /// Adds one value (iteratively: no recursion, so any depth is measured).
    pub fn value<S: HostValueSource<Child = S>>(&mut self, value: &S) -> IrResult<()> {
        let mut stack: Vec<(S, u32)> = Vec::new();
        self.one(value, 0, &mut stack)?;
        while let Some((next, depth)) = stack.pop() {
            if self.over() {
                break;
            }
            self.one(&next, depth, &mut stack)?;
        }
        Ok(())
    }

    fn one<S: HostValueSource<Child = S>>(&mut self, value: &S, depth: u32, stack: &mut Vec<(S, u32)>) -> IrResult<()> {
        let read = value.read()?;
        if self.add(1) {
            return Ok(());
        }
        if matches!(read, HostRead::List(_) | HostRead::Record { .. }) {
            if let Some(id) = value.identity() {
                if !self.around.enter(depth, id) {
                    return self.contains_itself();
                }
            }
        }
        let depth = depth.saturating_add(1);
        match read {
            HostRead::Str(text) => {
                let cost = text_size(&text, self.left());
                self.add(cost);
            }
            HostRead::List(items) => {
                stack.extend(items.into_iter().rev().map(|item| (item, depth)));
            }
            HostRead::Record { type_name, fields } => {
                if let Some(name) = type_name {
                    let cost = text_size(&name, self.left());
                    if self.add(cost) {
                        return Ok(());
                    }
                }
                // Names are measured in order before their values; the total is the same.
                let mut pending = Vec::with_capacity(fields.len());
                for (name, item) in fields {
                    let cost = text_size(&name, self.left());
                    if self.add(cost) {
                        return Ok(());
                    }
                    pending.push((item, depth));
                }
                stack.extend(pending.into_iter().rev());
            }
            _ => {}
        }
        Ok(())
    }

    /// Adds a list of values (positional arguments given as one list): the list counts 1, a
    /// left-out item 1.
    pub fn list<S: HostValueSource<Child = S>>(&mut self, items: &[Option<S>]) -> IrResult<()> {
        if self.add(1) {
            return Ok(());
        }
        for item in items {
            match item {
                Some(item) => self.value(item)?,
                None => {
                    self.add(1);
                }
            }
            if self.over() {
                return Ok(());
            }
        }
        Ok(())
    }

    /// Adds a map of named values passed as one record (props, a state): the record counts 1,
    /// each name its text, and a `$type` member holding a string counts as the record's type
    /// name (its text alone), as a host record spells its type.
    pub fn map(&mut self, fields: &[(&str, &HostValue)]) -> IrResult<()> {
        if self.add(1) {
            return Ok(());
        }
        for (name, value) in fields {
            if let (&"$type", HostValue::Str(type_name)) = (name, value) {
                let cost = text_size(type_name, self.left());
                if self.add(cost) {
                    return Ok(());
                }
                continue;
            }
            let cost = text_size(name, self.left());
            if self.add(cost) {
                return Ok(());
            }
            self.value(value)?;
            if self.over() {
                return Ok(());
            }
        }
        Ok(())
    }

    /// Adds a record of members (named arguments, props): the record itself counts 1.
    pub fn record<S: HostValueSource<Child = S>>(&mut self, fields: &[(&str, S)]) -> IrResult<()> {
        if self.add(1) {
            return Ok(());
        }
        for (name, value) in fields {
            let cost = text_size(name, self.left());
            if self.add(cost) {
                return Ok(());
            }
            self.value(value)?;
            if self.over() {
                return Ok(());
            }
        }
        Ok(())
    }
}

/// What measuring a value that contains itself against `limit` gives: it has no finite size, so
/// it is over any limit (the size returned is one more than the limit), which a walk with no
/// cycle check would find by going round the cycle until its size passed the limit. With no
/// limit, or the largest, nothing can be over it, and the value is refused.
pub fn size_over_a_cycle(limit: Option<u64>) -> IrResult<u64> {
    match limit {
        Some(limit) if limit < u64::MAX => Ok(limit + 1),
        _ => Err(IrError::new(codes::BOUNDARY_TYPE, "The value contains itself; a canonical value has no cycles.")),
    }
}

/// The input size of one host value (ir-format §6.2). With a limit, measuring stops once the
/// size passes it and some number greater than the limit is returned.
pub fn measure_input_size<S: HostValueSource<Child = S>>(value: &S, limit: Option<u64>) -> IrResult<u64> {
    let mut meter = SizeMeter::new(limit);
    meter.value(value)?;
    Ok(meter.total)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A host value in a graph: node `at` of `nodes`, whose containers name their items by
    /// index, so one can be shared or hold itself.
    #[derive(Clone, Copy)]
    struct Node<'g> {
        nodes: &'g [Shape],
        at: usize,
    }

    enum Shape {
        Int,
        List(Vec<usize>),
        Record(Vec<(&'static str, usize)>),
    }

    impl<'g> HostValueSource for Node<'g> {
        type Child = Node<'g>;

        fn read(&self) -> IrResult<HostRead<'_, Node<'g>>> {
            let node = |at| Node { nodes: self.nodes, at };
            Ok(match &self.nodes[self.at] {
                Shape::Int => HostRead::Int(1),
                Shape::List(items) => HostRead::List(items.iter().map(|&at| node(at)).collect()),
                Shape::Record(fields) => HostRead::Record {
                    type_name: None,
                    fields: fields.iter().map(|&(name, at)| (Cow::Borrowed(name), node(at))).collect(),
                },
            })
        }

        fn identity(&self) -> Option<usize> {
            Some(self.at)
        }
    }

    fn measure(nodes: &[Shape], limit: Option<u64>) -> IrResult<u64> {
        measure_input_size(&Node { nodes, at: 0 }, limit)
    }

    #[test]
    fn a_value_shared_but_not_holding_itself_is_measured_as_the_tree_it_reads_as() {
        // [r, r] with r = {a: 1, b: [1]}: §6.2 counts each place, so r twice (4 each) and the
        // list 1.
        let nodes = [Shape::List(vec![1, 1]), Shape::Record(vec![("a", 2), ("b", 3)]), Shape::Int, Shape::List(vec![2])];
        assert_eq!(measure(&nodes, None).unwrap(), 1 + 2 * (1 + 1 + 1 + 1));
        assert_eq!(measure(&nodes, Some(1_000)).unwrap(), 9);
        // [c, c] with c a chain of 100 lists over an int: deeper than the scanned path, so the
        // second c is met after the first's entries have left the set as well.
        let mut nodes = vec![Shape::List(vec![1, 1])];
        nodes.extend((2..=100).map(|next| Shape::List(vec![next])));
        nodes.push(Shape::Int);
        assert_eq!(measure(&nodes, Some(1 << 40)).unwrap(), 1 + 2 * 100);
    }

    #[test]
    fn a_value_that_holds_itself_is_over_any_limit_where_its_cycle_closes() {
        // [1, {a: [1, <the record>]}, <the top list>] with the cycles deep in the first place
        // taken, and 100,000 levels of nesting below SCANNED's reach as a second case.
        let nodes = [Shape::List(vec![3, 1, 0]), Shape::Record(vec![("a", 2)]), Shape::List(vec![3, 1]), Shape::Int];
        for limit in [10, 1 << 40, u64::MAX - 1] {
            assert_eq!(measure(&nodes, Some(limit)).unwrap(), limit + 1);
        }
        for limit in [None, Some(u64::MAX)] {
            let refused = measure(&nodes, limit).unwrap_err();
            assert_eq!(refused.code(), codes::BOUNDARY_TYPE);
            assert!(refused.to_string().contains("contains itself"), "{refused}");
        }
        let deep = 100_000;
        let mut chain: Vec<Shape> = (1..deep).map(|next| Shape::List(vec![next])).collect();
        chain.push(Shape::List(vec![deep / 2]));
        assert_eq!(measure(&chain, Some(1 << 40)).unwrap(), (1 << 40) + 1);
        // The same chain ending in an int instead is measured whole: 100,000 lists and the int.
        *chain.last_mut().unwrap() = Shape::Int;
        assert_eq!(measure(&chain, Some(1 << 40)).unwrap(), deep as u64);
    }
}
