//! The compiled form of a linked program, built once: per module a node arena whose references
//! are resolved to (program module, declaration), decoded constants, interned names, typed
//! declarations with frame sizes, and a program-wide table of shapes by `$type`. Evaluation
//! reads only this: no name lookups, hashing or string decoding on the hot path.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::error::IrResult;
use crate::model::{self, kinds, Constant, Decl, Node, Type};

use super::interval::Interval;
use super::source::ProgramSource;
use super::stdlib::MathOp;
use super::value::{text_cost, Name, Text};

/// A resolved reference: (program module, declaration index), or the resolution failure.
#[derive(Debug, Clone)]
pub(crate) enum Target {
    Decl { module: u32, decl: u32 },
    Missing(Arc<str>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BinOp {
    Add, Sub, Mul, Div, IDiv, Mod, IMod, Concat, Eq, Ne, Lt, Le, Gt, Ge, And, Or, FAdd32, FSub32, FMul32, FDiv32,
}

const BIN_OPS: [BinOp; 20] = [
    BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div, BinOp::IDiv, BinOp::Mod, BinOp::IMod, BinOp::Concat,
    BinOp::Eq, BinOp::Ne, BinOp::Lt, BinOp::Le, BinOp::Gt, BinOp::Ge, BinOp::And, BinOp::Or,
    BinOp::FAdd32, BinOp::FSub32, BinOp::FMul32, BinOp::FDiv32,
];

impl BinOp {
    pub fn name(self) -> &'static str {
        kinds::BINARY_OPERATORS[self as usize]
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TextForm {
    Int,
    Float64,
    Float32,
    Boolean,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Intrinsic {
    Apply,
    Merge,
    Diff,
    Changed,
}

#[derive(Debug)]
pub(crate) enum CNode {
    Bool(bool),
    Str(Text),
    Int(i64),
    Float(f64),
    /// A literal that cannot be represented (a bigint outside i64).
    BadLiteral(Arc<str>),
    Slot { slot: u32, name: Name },
    Reference(Target),
    Binary { op: BinOp, lhs: u32, rhs: u32 },
    Neg(u32),
    Not(u32),
    Call { callee: u32, args: Box<[Option<u32>]> },
    /// `spread`: some argument is a spread ([`Spreads`]).
    NamedCall { callee: u32, args: Box<[(Name, u32)]>, spread: bool },
    /// `order_at`: `changed`'s declared order, as (name address, position) sorted by address.
    Intrinsic { op: Intrinsic, args: Box<[u32]>, order_at: Box<[(usize, u32)]> },
    If { cond: u32, then: u32, otherwise: Option<u32> },
    IfIs { scrutinee: u32, arms: Box<[(Box<[u32]>, u32)]>, otherwise: Option<u32> },
    Array(Box<[u32]>),
    For { item: u32, index: Option<u32>, iterable: u32, body: u32, range: bool },
    Member { base: u32, name: Name, optional: bool },
    // `props` of a construction (and the arguments of a named call) are written properties;
    // `spread` says that some of them are spreads, named by the program's spread marker (see
    // `CompiledProgram::spread`), so only such a node takes the spreading path.
    Record { target: Target, name: Name, props: Box<[(Name, u32)]>, content: Box<[u32]>, spread: bool },
    /// `found`: where the target is a union that declares the name, its entry in the union's
    /// [`CaseIndex`] (found once the program is compiled, [`union_case_sites`]); else
    /// [`NO_CASE`], and the name is searched for when evaluated.
    UnionCase {
        target: Target,
        name: Name,
        case: Name,
        props: Box<[(Name, u32)]>,
        content: Box<[u32]>,
        spread: bool,
        found: u32,
    },
    Element { tag: Name, props: Box<[(Name, u32)]>, content: Box<[u32]>, spread: bool },
    Component { target: Target, name: Name, props: Box<[(Name, u32)]>, content: Box<[u32]>, spread: bool },
    ActionHandler {
        component: Target,
        emit: Name,
        action: Target,
        binding: u32,
        owner: Option<Target>,
        /// The handler's body, which a dispatch evaluates; evaluating the node only builds the
        /// handler (capturing the frame).
        body: u32,
    },
    Text { operand: u32, form: TextForm },
    Exists(u32),
    Coalesce { left: u32, right: u32 },
    /// Schema 6: a standard math operation of its arguments (as many as the operation takes).
    StandardMath { op: MathOp, args: Box<[u32]> },
    /// Schema 6: a standard colour operation (by code) of its arguments.
    StandardColor { op: u32, args: Box<[u32]> },
    /// Schema 6: the operand, once each of its items lies in `interval` (`None`: the node
    /// names a type that is not constrained, which the reader refuses); `site` names where.
    Check { operand: u32, interval: Option<Interval>, site: Name },
    /// Schema 6: an `ifIs` pattern matching a number in the interval. Anywhere else it fails.
    Interval(Option<Interval>),
}

#[derive(Debug, Clone)]
pub(crate) enum Prim {
    Int,
    Int32,
    Float64,
    Float32,
    String,
    Boolean,
    Object,
    Unknown(Name),
}

#[derive(Debug, Clone)]
pub(crate) enum CType {
    Prim(Prim),
    /// Schema 6: a numeric primitive narrowed to an interval, checked after the primitive
    /// (boxed, so that the types of a schema 5 program stay as small as they were).
    Constrained(Box<CConstrained>),
    Nominal(Target),
    /// Schema 6: a component declaration named as a type. A value naming it (or naming no
    /// `$type`) has its props checked against it; schema 5 compiles such a type to
    /// [`CType::Nominal`], which passes any value.
    Component { module: u32, decl: u32 },
    Function,
    Seq { item: u32, may_be_empty: bool, may_be_many: bool },
}

/// A constrained type: its base primitive and its interval.
#[derive(Debug, Clone)]
pub(crate) struct CConstrained {
    pub prim: Prim,
    pub interval: Interval,
}

#[derive(Debug, Clone)]
pub(crate) struct CField {
    pub name: Name,
    pub ty: u32,
    pub default: Option<u32>,
    pub content: bool,
    pub required: bool,
    pub optional: bool,
}

#[derive(Debug)]
pub(crate) struct CCase {
    pub name: Name,
    /// `Union.case`.
    pub type_name: Name,
    pub fields: Box<[CField]>,
    pub is_constant: bool,
}

/// A union's cases by name, so that finding one takes a binary search however many cases the
/// union declares (an image may declare thousands, with long names that share a prefix): one
/// entry per distinct name, in byte order of the names.
#[derive(Debug)]
pub(crate) struct CaseIndex {
    entries: Box<[CaseEntry]>,
}

/// The cases of one name (an image may declare a name more than once), as positions in the
/// union's declaration order: the first, the first constant one and the first with fields
/// ([`NO_CASE`] where there is none).
#[derive(Debug, Clone, Copy)]
pub(crate) struct CaseEntry {
    pub first: u32,
    pub constant: u32,
    pub with_fields: u32,
}

/// Why a `$type` stands for no subtype ([`CompiledProgram::subtype_of`]): no shape of the name
/// extends the record, more than one does (how many), or the one that does is abstract.
#[derive(Debug, Clone, Copy)]
pub(crate) enum NoSubtype {
    None,
    Ambiguous(usize),
    Abstract,
}

/// No case of the name.
pub(crate) const NO_CASE: u32 = u32::MAX;

impl CaseIndex {
    fn new(cases: &[CCase]) -> CaseIndex {
        let mut order: Vec<u32> = (0..cases.len() as u32).collect();
        // Names compare by address first (a program's are interned), so a name repeated is
        // compared without its text.
        order.sort_by(|&a, &b| cases[a as usize].name.cmp(&cases[b as usize].name).then(a.cmp(&b)));
        let mut entries: Vec<CaseEntry> = Vec::new();
        for at in order {
            let case = &cases[at as usize];
            if !matches!(entries.last(), Some(entry) if cases[entry.first as usize].name == case.name) {
                entries.push(CaseEntry { first: at, constant: NO_CASE, with_fields: NO_CASE });
            }
            let entry = entries.last_mut().expect("an entry was pushed");
            let slot = if case.is_constant { &mut entry.constant } else { &mut entry.with_fields };
            if *slot == NO_CASE {
                *slot = at;
            }
        }
        CaseIndex { entries: entries.into_boxed_slice() }
    }

    /// The cases named `name` of the union whose `cases` these are, and the work of finding
    /// them: each comparison of the search one unit, and one more per 64 bytes of the name.
    pub fn find(&self, cases: &[CCase], name: &str) -> (Option<CaseEntry>, u64) {
        let (at, steps) = self.search(cases, name);
        (at.map(|at| self.entries[at]), steps * (1 + name.len() as u64 / 64))
    }

    /// The position of the entry of `name` (for [`CaseIndex::entry`]), found without a tally
    /// (when the program is compiled).
    fn position(&self, cases: &[CCase], name: &str) -> Option<u32> {
        self.search(cases, name).0.map(|at| at as u32)
    }

    /// The entry at `position` ([`CaseIndex::position`] of this union's index).
    #[inline(always)]
    pub fn entry(&self, position: u32) -> Option<CaseEntry> {
        self.entries.get(position as usize).copied()
    }

    /// The binary search for `name`: its entry's position, and the comparisons made plus one.
    fn search(&self, cases: &[CCase], name: &str) -> (Option<usize>, u64) {
        let (mut low, mut high, mut steps) = (0, self.entries.len(), 1u64);
        while low < high {
            let middle = low + (high - low) / 2;
            steps += 1;
            match cases[self.entries[middle].first as usize].name.as_bytes().cmp(name.as_bytes()) {
                std::cmp::Ordering::Less => low = middle + 1,
                std::cmp::Ordering::Greater => high = middle,
                std::cmp::Ordering::Equal => return (Some(middle), steps),
            }
        }
        (None, steps)
    }
}

#[derive(Debug)]
pub(crate) enum CDeclKind {
    Function { params: Box<[CField]>, body: u32, result: Option<u32>, result_optional: bool },
    /// `slot`: where evaluations keep its value (see [`super::constants`]).
    Value { init: u32, ty: Option<u32>, slot: u32 },
    Record { fields: Box<[CField]>, bases: Box<[Target]>, is_abstract: bool, update_target: Option<Target> },
    Component {
        props: Box<[CField]>,
        /// The state fields: their slots follow the props' in the body's frame.
        state: Box<[CField]>,
        body: Option<u32>,
        is_abstract: bool,
        emits: Box<[(Name, Target)]>,
        /// What a handler's result must update to patch this component's state: schema 5's
        /// `<C>.Update` names the component itself; schema 6's `<C>.State.Update` names the
        /// `<C>.State` record (`None` when the image names none: nothing patches the state).
        state_target: Option<(u32, u32)>,
    },
    /// `bases` are the abstract records the union extends: each non-constant case is a shape
    /// acceptable wherever one of them is expected.
    Union { cases: Box<[CCase]>, bases: Box<[Target]>, index: CaseIndex },
    TypeAlias,
}

#[derive(Debug)]
pub(crate) struct CDecl {
    pub name: Name,
    /// `identity::name` (diagnostics, a component's key), made when first asked for
    /// ([`CompiledProgram::qualified`]): made for every declaration up front, an image's long
    /// identity would be copied once per declaration.
    qualified: std::sync::OnceLock<Name>,
    pub kind: CDeclKind,
    /// Slots a frame of this declaration is created with (a hint; frames grow as needed).
    pub frame_size: u32,
    /// A record's fields in the order a result writes them (byte order of their names), as
    /// positions in declaration order; empty for any other declaration.
    pub output_order: Box<[u32]>,
    /// What writing a record of this declaration with every field present costs beyond its
    /// one operation: the text cost of its type name and of each field name (0 for a record
    /// whose names are all short, and for any other declaration).
    pub written_names_cost: u64,
    /// A record whose every field is a primitive (or an optional one): checking a value
    /// already normalized against it charges exactly one operation per field and cannot fail
    /// but on the budget.
    pub unit_checked: bool,
    /// For a record: the charges and work of checking again a value of it that is normal at it
    /// all the way down (every field present and an exact primitive, or such a record of the
    /// field's own declaration; see `Record::deep`), the same for every such value. `None`
    /// where a field's type admits other values (an optional, a list, a union), a declaration
    /// nests past [`DEEP_NESTING`] or in a cycle, or for any other declaration.
    pub deep_recheck: Option<(u64, u64)>,
}

/// How many record levels [`CDecl::deep_recheck`] follows.
const DEEP_NESTING: u32 = 32;

/// A multiply-rotate hasher for the program's own names (declaration, field and type names).
/// The tables it keys are built from the program alone, so a host choosing the looked-up text
/// cannot crowd them; it costs a fraction of SipHash on the short names a call looks up.
#[derive(Default, Clone, Copy)]
pub(crate) struct NameHasher(u64);

const NAME_SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl NameHasher {
    #[inline]
    fn mix(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(NAME_SEED);
    }
}

impl Hasher for NameHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            self.mix(u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8])));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.mix(u64::from_le_bytes(word));
        }
    }

    #[inline]
    fn write_u8(&mut self, byte: u8) {
        self.mix(u64::from(byte));
    }

    #[inline]
    fn write_usize(&mut self, value: usize) {
        self.mix(value as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// A map keyed by names, hashed with [`NameHasher`].
pub(crate) type NameMap<K, V> = HashMap<K, V, BuildHasherDefault<NameHasher>>;

#[derive(Debug)]
pub(crate) struct CModule {
    pub identity: Arc<str>,
    pub nodes: Vec<CNode>,
    pub decls: Vec<CDecl>,
    pub types: Vec<CType>,
    pub node_spans: Vec<Option<(u32, u32)>>,
    pub function_entrypoints: Vec<u32>,
    pub component_entrypoints: Vec<u32>,
    pub decl_by_name: NameMap<Arc<str>, u32>,
}

/// A shape a `$type` may name: a record declaration or a union case with fields.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Shape {
    pub module: u32,
    pub decl: u32,
    pub case: Option<u32>,
}

/// A compiled program, shareable between threads.
#[derive(Debug)]
pub struct CompiledProgram {
    /// Unique among the programs compiled in this process (keys kept values).
    pub(crate) id: u64,
    /// Value declarations, numbered across modules.
    pub(crate) value_slots: u32,
    pub(crate) modules: Vec<CModule>,
    pub(crate) shapes: NameMap<Name, Vec<Shape>>,
    /// The same shapes keyed by the address of their interned name, and each record shape's
    /// `<Type>.Update` name: an evaluation looks a record's type up without hashing or
    /// formatting its text, however long (see [`CompiledProgram::shapes_of`]).
    pub(crate) shapes_at: NameMap<usize, Box<[Shape]>>,
    pub(crate) update_names: NameMap<usize, Name>,
    pub(crate) names: Names,
    /// The name a spread property is compiled to in a schema 6 module: not interned, so no
    /// written property name (not even a schema 5 property called `$spread`) is this `Arc`.
    pub(crate) spread: Name,
    /// Whether evaluation takes its shortcuts: a record's recheck by charges alone, a single
    /// result written as a one-item list without building it, a whole construction checked in
    /// place, a record's scalar fields written in place. Each makes the same charges, with the
    /// same failures, as the general path.
    pub(crate) shortcuts: bool,
    /// Each module's identity and the hash of its image bytes, sorted: what a component
    /// instance records of the program that rendered it (its handlers name nodes and slots by
    /// index, so only the very same images can run it).
    pub(crate) images: Arc<[(Arc<str>, u64)]>,
    /// Whether the modules are schema 6 (a program's modules are all of one schema).
    pub(crate) schema6: bool,
}

#[derive(Debug, Default)]
pub(crate) struct Names {
    /// Each name, and the string value of the same text once a string literal has it.
    map: NameMap<Name, Option<Text>>,
    /// The bytes of text hashed so far (see [`CompiledProgram::compile_work`]).
    hashed: u64,
}

impl Names {
    pub fn intern(&mut self, text: &str) -> Name {
        self.hashed += text.len() as u64 + 1;
        if let Some((key, _)) = self.map.get_key_value(text) {
            return key.clone();
        }
        let name = Name::lasting(text);
        self.map.insert(name.clone(), None);
        name
    }

    /// The string value of a literal: one per text in the program, so every literal of the
    /// same text shares it (and its address: see [`CompiledProgram::shared_texts`]).
    pub fn literal(&mut self, text: &str) -> Text {
        self.hashed += text.len() as u64 + 1;
        match self.map.get_mut(text) {
            Some(Some(literal)) => literal.clone(),
            Some(slot) => slot.insert(Text::literal(text)).clone(),
            None => {
                let literal = Text::literal(text);
                self.map.insert(Name::lasting(text), Some(literal.clone()));
                literal
            }
        }
    }

    pub fn get(&self, text: &str) -> Option<Name> {
        self.map.get_key_value(text).map(|(k, _)| k.clone())
    }
}

/// The key of an interned name in the address-keyed tables.
#[inline]
pub(crate) fn name_key(name: &Name) -> usize {
    name.addr()
}

impl CompiledProgram {
    /// The shapes a record's type names. The program's own names are found by address; any other
    /// (a name interned for one evaluation, which the program does not hold) by its text.
    #[inline]
    pub(crate) fn shapes_of(&self, type_name: &Name) -> &[Shape] {
        match self.shapes_at.get(&name_key(type_name)) {
            Some(shapes) => shapes,
            None => self.shapes.get(type_name).map_or(&[], Vec::as_slice),
        }
    }

    /// The one shape of `shapes` (those of one name) that a `$type` of that name stands for
    /// where a value of the abstract record `decl` of `module` is asked for: a concrete record
    /// declaration, or a non-constant case of a union declaration, that names the record among
    /// its bases. Else why there is none.
    pub(crate) fn subtype_of(&self, shapes: &[Shape], module: u32, decl: u32) -> Result<Shape, NoSubtype> {
        let extends = |bases: &[Target]| bases.iter().any(|b| matches!(b, Target::Decl { module: m, decl: d } if (*m, *d) == (module, decl)));
        let mut extending = shapes.iter().copied().filter(|s| match &self.decl(s.module, s.decl).kind {
            CDeclKind::Record { bases, .. } => s.case.is_none() && extends(bases),
            CDeclKind::Union { bases, .. } => s.case.is_some() && extends(bases),
            _ => false,
        });
        let shape = extending.next().ok_or(NoSubtype::None)?;
        let more = extending.count();
        if more > 0 {
            return Err(NoSubtype::Ambiguous(more + 1));
        }
        if shape.case.is_none() && matches!(self.decl(shape.module, shape.decl).kind, CDeclKind::Record { is_abstract: true, .. }) {
            return Err(NoSubtype::Abstract);
        }
        Ok(shape)
    }

    /// The same program evaluated without the shortcuts (see `shortcuts`): every check and
    /// construction takes the general path. For tests that hold the two to the same charges.
    #[doc(hidden)]
    pub fn without_shortcuts(mut self) -> CompiledProgram {
        self.shortcuts = false;
        for decl in self.modules.iter_mut().flat_map(|m| m.decls.iter_mut()) {
            decl.unit_checked = false;
            decl.deep_recheck = None;
        }
        self
    }

    /// Compiles every module of a linked program.
    pub fn compile(source: &dyn ProgramSource) -> IrResult<CompiledProgram> {
        let count = source.module_count();
        let mut decoded = Vec::with_capacity(count);
        for index in 0..count {
            decoded.push(source.decoded_module(index)?);
        }
        let mut names = Names::default();
        let spread = Name::lasting(kinds::SPREAD_PROPERTY);
        let identities: Vec<Arc<str>> = decoded
            .iter()
            .map(|m| Arc::from(m.modules.first().map(|e| m.string(e.identity)).unwrap_or("")))
            .collect();
        // Declarations by name, per module.
        let by_name: Vec<NameMap<Arc<str>, u32>> = decoded
            .iter()
            .map(|m| {
                let mut map = NameMap::default();
                for (i, d) in m.declarations.iter().enumerate() {
                    map.entry(Arc::from(m.string(d.name()))).or_insert(i as u32);
                }
                map
            })
            .collect();
        let mut modules = Vec::with_capacity(count);
        for (index, module) in decoded.iter().enumerate() {
            let mut cx = ModuleCompiler {
                source,
                index,
                module,
                identities: &identities,
                by_name: &by_name,
                names: &mut names,
                spread: &spread,
                strings: vec![None; module.strings.len()],
                literals: vec![None; module.strings.len()],
                numbers: vec![None; module.constants.len()],
                wide: vec![None; module.strings.len()],
                targets: HashMap::new(),
            };
            modules.push(cx.compile()?);
        }
        // The names of a Function record a host passes to `call_function`, so reading one
        // finds them here rather than interning them per call.
        for text in ["Function", "module", "name"] {
            names.intern(text);
        }
        component_sites(&decoded, &mut modules);
        union_case_sites(&mut modules);
        deep_rechecks(&mut modules);
        let mut shapes: NameMap<Name, Vec<Shape>> = NameMap::default();
        for (m, module) in modules.iter().enumerate() {
            for (d, decl) in module.decls.iter().enumerate() {
                match &decl.kind {
                    CDeclKind::Record { .. } => shapes
                        .entry(Name::clone(&decl.name))
                        .or_default()
                        .push(Shape { module: m as u32, decl: d as u32, case: None }),
                    CDeclKind::Union { cases, .. } => {
                        for (c, case) in cases.iter().enumerate() {
                            if !case.is_constant {
                                shapes.entry(Name::clone(&case.type_name)).or_default().push(Shape {
                                    module: m as u32,
                                    decl: d as u32,
                                    case: Some(c as u32),
                                });
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        let mut shapes_at: NameMap<usize, Box<[Shape]>> = NameMap::default();
        let mut update_names: NameMap<usize, Name> = NameMap::default();
        for (key, list) in &shapes {
            let name = names.intern(key);
            if list.iter().any(|shape| shape.case.is_none()) {
                // The program's own name when it declares the update record; else a name of its
                // own, kept out of the table (which bindings turn into host strings up front).
                let update = format!("{key}.Update");
                update_names.insert(name_key(&name), names.get(&update).unwrap_or_else(|| Name::lasting(&update)));
            }
            shapes_at.insert(name_key(&name), list.clone().into_boxed_slice());
        }
        let mut value_slots = 0u32;
        for module in &mut modules {
            for decl in &mut module.decls {
                if let CDeclKind::Value { slot, .. } = &mut decl.kind {
                    *slot = value_slots;
                    value_slots += 1;
                }
            }
        }
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let mut images: Vec<(Arc<str>, u64)> = modules
            .iter()
            .enumerate()
            .map(|(index, module)| (Arc::clone(&module.identity), source.image_hash(index).unwrap_or_else(|| image_hash(&crate::writer::encode(&decoded[index])))))
            .collect();
        images.sort();
        let schema6 = decoded.first().is_some_and(|m| m.schema >= kinds::SCHEMA_6);
        Ok(CompiledProgram { id, value_slots, modules, shapes, shapes_at, update_names, names, spread, shortcuts: true, images: images.into(), schema6 })
    }

    /// Every text the compiled program holds once and hands to a [`HostValueSink`] by
    /// reference (field, type and case names, string literals, module identities): a binding
    /// may key a cache of its own string objects on their addresses, which stay fixed while the
    /// program lives.
    ///
    /// [`HostValueSink`]: super::HostValueSink
    pub fn shared_texts(&self) -> impl Iterator<Item = &str> {
        let literals = self.names.map.values().flatten().map(|text| &**text);
        self.names.map.keys().map(|k| &**k).chain(literals).chain(self.modules.iter().map(|m| &*m.identity))
    }

    /// Every record declaration that is not an update record, as a result writes a record of it
    /// with every field present: its place (module, declaration), its name, and its field names
    /// in the order written. A binding can prepare each such result's shape once.
    pub fn record_shapes(&self) -> impl Iterator<Item = ((u32, u32), &str, Vec<&str>)> {
        self.modules.iter().enumerate().flat_map(|(m, module)| {
            module.decls.iter().enumerate().filter_map(move |(d, decl)| match &decl.kind {
                CDeclKind::Record { fields, update_target: None, .. } => {
                    let names = decl.output_order.iter().map(|&at| &*fields[at as usize].name).collect();
                    Some(((m as u32, d as u32), &*decl.name, names))
                }
                _ => None,
            })
        })
    }

    /// The work compiling the program did on names: each text interned, made a literal or
    /// looked up as a declaration's name, a unit per byte and one more (each string of an image
    /// once, however many nodes, types or fields name it). Tests hold it in proportion to the
    /// images' size.
    pub fn compile_work(&self) -> u64 {
        self.names.hashed
    }

    /// `identity::name` of the declaration `decl` of `module`: what diagnostics name it by, and
    /// a component's key (components of one name in two modules differ by it).
    pub(crate) fn qualified(&self, module: u32, decl: u32) -> &Name {
        let module = &self.modules[module as usize];
        let declaration = &module.decls[decl as usize];
        declaration.qualified.get_or_init(|| Name::lasting(&format!("{}::{}", module.identity, declaration.name)))
    }

    pub(crate) fn decl(&self, module: u32, decl: u32) -> &CDecl {
        &self.modules[module as usize].decls[decl as usize]
    }

    /// A module by identity.
    pub(crate) fn module_by_identity(&self, identity: &str) -> Option<u32> {
        self.modules.iter().position(|m| &*m.identity == identity).map(|i| i as u32)
    }
}

struct ModuleCompiler<'a> {
    source: &'a dyn ProgramSource,
    index: usize,
    module: &'a model::Module,
    identities: &'a [Arc<str>],
    by_name: &'a [NameMap<Arc<str>, u32>],
    names: &'a mut Names,
    spread: &'a Name,
    /// Each of the module's strings interned ([`ModuleCompiler::s`]), as a literal
    /// ([`ModuleCompiler::literal`]), and each reference resolved ([`ModuleCompiler::target`]),
    /// once: an image's nodes, types and fields could all name one long string, and hashing it
    /// for each would make compiling take the number of them times its length.
    strings: Vec<Option<Name>>,
    literals: Vec<Option<Text>>,
    numbers: Vec<Option<Number>>,
    /// Each string of digits as a wide constant names it.
    wide: Vec<Option<Number>>,
    targets: HashMap<(u32, u32), Target>,
}

/// A constant as a number node takes it ([`ModuleCompiler::number`]).
#[derive(Clone)]
enum Number {
    Int(i64),
    Float(f64),
    /// Why the constant is no number this runtime can hold.
    Bad(Arc<str>),
}

impl ModuleCompiler<'_> {
    fn s(&mut self, index: u32) -> Name {
        let (module, names) = (self.module, &mut *self.names);
        once(&mut self.strings, index, || names.intern(module.string(index)))
    }

    fn literal(&mut self, index: u32) -> Text {
        let (module, names) = (self.module, &mut *self.names);
        once(&mut self.literals, index, || names.literal(module.string(index)))
    }

    /// Constant `index` as a number node takes it, read once: an image's number nodes (or its
    /// constants) could all name one long string of digits, which reading (and spelling in its
    /// failure) for each would make compiling take the number of them times its length.
    fn number(&mut self, index: u32) -> Number {
        if let Some(Some(number)) = self.numbers.get(index as usize) {
            return number.clone();
        }
        let module = self.module;
        let number = match module.constants.get(index as usize) {
            Some(Constant::Int(i)) => Number::Int(*i),
            Some(Constant::Float(f)) => Number::Float(*f),
            Some(Constant::BigInt { digits }) => once(&mut self.wide, *digits, || match module.string(*digits).parse() {
                Ok(i) => Number::Int(i),
                Err(_) => Number::Bad(
                    format!("NX IR image is malformed: the integer {} does not fit 64 bits.", module.string(*digits)).into(),
                ),
            }),
            None => Number::Bad("NX IR image is malformed: no such constant.".into()),
        };
        if let Some(slot) = self.numbers.get_mut(index as usize) {
            *slot = Some(number.clone());
        }
        number
    }

    fn target(&mut self, reference: model::Ref) -> Target {
        if let Some(target) = self.targets.get(&(reference.slot, reference.name)) {
            return target.clone();
        }
        let target = self.resolve_target(reference);
        self.targets.insert((reference.slot, reference.name), target.clone());
        target
    }

    fn resolve_target(&mut self, reference: model::Ref) -> Target {
        let name = self.module.string(reference.name);
        self.names.hashed += name.len() as u64 + 1;
        let own = self.identities[self.index].clone();
        let Some(linked) = self.source.resolve_slot(self.index, reference.slot) else {
            return Target::Missing(format!("Module '{own}' has no module at slot {}.", reference.slot).into());
        };
        match self.by_name.get(linked).and_then(|map| map.get(name)) {
            Some(decl) => Target::Decl { module: linked as u32, decl: *decl },
            None => Target::Missing(
                format!("Module '{}' does not declare '{name}'.", self.identities.get(linked).cloned().unwrap_or_default()).into(),
            ),
        }
    }

    /// A property list, and whether it spreads a record: in a schema 6 module a property
    /// named `$spread` is one, named by the program's spread marker.
    fn props(&mut self, props: &[model::Prop]) -> (Box<[(Name, u32)]>, bool) {
        let schema_6 = self.module.schema >= kinds::SCHEMA_6;
        let mut spread = false;
        let props = props
            .iter()
            .map(|p| {
                let name = self.module.string(p.name);
                if schema_6 && name == kinds::SPREAD_PROPERTY {
                    spread = true;
                    return (Name::clone(self.spread), p.value);
                }
                (self.s(p.name), p.value)
            })
            .collect();
        (props, spread)
    }

    fn field(&mut self, field: &model::Field, param: bool) -> CField {
        use kinds::flags;
        CField {
            name: self.s(field.name),
            ty: field.ty,
            default: field.default,
            content: field.flags & flags::FIELD_CONTENT != 0,
            required: !param && field.flags & flags::FIELD_REQUIRED != 0,
            optional: param && field.flags & flags::PARAM_OPTIONAL != 0,
        }
    }

    fn compile(&mut self) -> IrResult<CModule> {
        let module = self.module;
        let identity = self.identities[self.index].clone();
        let mut types = Vec::with_capacity(module.types.len());
        for ty in &module.types {
            types.push(match ty {
                Type::Primitive { name } => CType::Prim(match module.string(*name) {
                    "int" | "int64" => Prim::Int,
                    "int32" => Prim::Int32,
                    "float64" => Prim::Float64,
                    "float32" => Prim::Float32,
                    "string" => Prim::String,
                    "boolean" => Prim::Boolean,
                    "object" => Prim::Object,
                    _ => Prim::Unknown(self.s(*name)),
                }),
                Type::Nominal(r) => CType::Nominal(self.target(*r)),
                Type::Function { .. } | Type::AnyFunction { .. } => CType::Function,
                Type::Seq { item, occurrence } => CType::Seq {
                    item: *item,
                    may_be_empty: occurrence & kinds::ty::MAY_BE_EMPTY != 0,
                    may_be_many: occurrence & kinds::ty::MAY_HOLD_MANY != 0,
                },
                // The reader checked that the base is an earlier numeric primitive and that the
                // bounds are numbers of 64 bits.
                Type::Constrained { base, low, high, flags } => {
                    let interval = match module.types.get(*base as usize) {
                        Some(Type::Primitive { name }) => Interval::compile(module, module.string(*name), *low, *high, *flags),
                        _ => None,
                    };
                    match (types.get(*base as usize), interval) {
                        (Some(CType::Prim(prim)), Some(interval)) => {
                            CType::Constrained(Box::new(CConstrained { prim: prim.clone(), interval }))
                        }
                        _ => CType::Prim(Prim::Unknown(self.names.intern("constrained"))),
                    }
                }
            });
        }
        let mut nodes = Vec::with_capacity(module.nodes.len());
        for node in &module.nodes {
            nodes.push(self.node(node, &types));
        }
        let mut decls = Vec::with_capacity(module.declarations.len());
        for (at, decl) in module.declarations.iter().enumerate() {
            let name = self.s(decl.name());
            let kind = match decl {
                Decl::Function { params, body, result, result_flags, .. } => CDeclKind::Function {
                    params: params.iter().map(|p| self.field(p, true)).collect(),
                    body: *body,
                    result: *result,
                    result_optional: result_flags & kinds::flags::RESULT_OPTIONAL != 0,
                },
                Decl::Value { init, ty, .. } => CDeclKind::Value { init: *init, ty: *ty, slot: 0 },
                Decl::Record { fields, bases, is_abstract, update_target, .. } => CDeclKind::Record {
                    fields: fields.iter().map(|f| self.field(f, false)).collect(),
                    bases: bases.iter().map(|b| self.target(*b)).collect(),
                    is_abstract: *is_abstract != 0,
                    update_target: update_target.map(|t| self.target(t)),
                },
                Decl::Component { props, state, body, emits, flags, state_record, .. } => CDeclKind::Component {
                    props: props.iter().map(|f| self.field(f, false)).collect(),
                    state: state.iter().map(|f| self.field(f, false)).collect(),
                    body: *body,
                    is_abstract: flags & kinds::flags::COMPONENT_ABSTRACT != 0,
                    emits: emits.iter().map(|e| (self.s(e.name), self.target(e.action))).collect(),
                    state_target: if module.schema >= kinds::SCHEMA_6 {
                        match state_record.map(|r| self.target(r)) {
                            Some(Target::Decl { module, decl }) => Some((module, decl)),
                            _ => None,
                        }
                    } else {
                        Some((self.index as u32, at as u32))
                    },
                },
                Decl::Union { cases, bases, .. } => {
                    // Each case name's type name made once (a union may name one case many times).
                    let mut type_names: HashMap<u32, Name> = HashMap::new();
                    let cases: Box<[CCase]> = cases
                        .iter()
                        .map(|c| {
                            let case = self.s(c.name);
                            let type_name = match type_names.get(&c.name) {
                                Some(type_name) => Name::clone(type_name),
                                None => {
                                    let type_name = self.names.intern(&format!("{name}.{case}"));
                                    type_names.insert(c.name, Name::clone(&type_name));
                                    type_name
                                }
                            };
                            CCase {
                                type_name,
                                name: case,
                                fields: c.fields.iter().map(|f| self.field(f, false)).collect(),
                                is_constant: c.is_constant != 0,
                            }
                        })
                        .collect();
                    CDeclKind::Union { bases: bases.iter().map(|b| self.target(*b)).collect(), index: CaseIndex::new(&cases), cases }
                }
                Decl::TypeAlias { .. } => CDeclKind::TypeAlias,
            };
            let output_order = match &kind {
                CDeclKind::Record { fields, .. } => {
                    let mut order: Vec<u32> = (0..fields.len() as u32).collect();
                    order.sort_by(|a, b| fields[*a as usize].name.cmp(&fields[*b as usize].name));
                    order.into_boxed_slice()
                }
                _ => Box::default(),
            };
            let unit_checked = match &kind {
                CDeclKind::Record { fields, update_target: None, .. } => fields.iter().all(|f| unit_check(&types, f.ty)),
                _ => false,
            };
            let written_names_cost = match &kind {
                CDeclKind::Record { fields, .. } => {
                    fields.iter().map(|f| text_cost(&f.name)).fold(text_cost(&name), u64::saturating_add)
                }
                _ => 0,
            };
            decls.push(CDecl { name, qualified: std::sync::OnceLock::new(), kind, frame_size: 0, output_order, written_names_cost, unit_checked, deep_recheck: None });
        }
        // Frame sizes: the highest slot any node of the module binds or reads, plus the fields.
        let mut max_slot = 0u32;
        for node in &nodes {
            match node {
                CNode::Slot { slot, .. } => max_slot = max_slot.max(slot.saturating_add(1)),
                CNode::For { item, index, .. } => {
                    max_slot = max_slot.max(item.saturating_add(1));
                    if let Some(index) = index {
                        max_slot = max_slot.max(index.saturating_add(1));
                    }
                }
                CNode::ActionHandler { binding, .. } => max_slot = max_slot.max(binding.saturating_add(1)),
                _ => {}
            }
        }
        // A function's frame also holds every parameter, read or not, so binding the last one
        // never grows it.
        for decl in &mut decls {
            let params = match &decl.kind {
                CDeclKind::Function { params, .. } => u32::try_from(params.len()).unwrap_or(u32::MAX),
                _ => 0,
            };
            decl.frame_size = max_slot.max(params).min(256);
        }
        let node_spans = module.debug.as_ref().map(|d| d.node_spans.clone()).unwrap_or_default();
        Ok(CModule {
            identity,
            nodes,
            decls,
            types,
            node_spans,
            function_entrypoints: module.function_entrypoints.clone(),
            component_entrypoints: module.component_entrypoints.clone(),
            decl_by_name: self.by_name[self.index].clone(),
        })
    }

    /// The interval of type `ty` when it is a constrained type.
    fn interval(&self, types: &[CType], ty: u32) -> Option<Interval> {
        match types.get(ty as usize) {
            Some(CType::Constrained(constrained)) => Some(constrained.interval),
            _ => None,
        }
    }

    fn node(&mut self, node: &Node, types: &[CType]) -> CNode {
        let module = self.module;
        match node {
            Node::Bool { value } => CNode::Bool(*value != 0),
            Node::String { value } => CNode::Str(self.literal(*value)),
            Node::Number { constant } => match self.number(*constant) {
                Number::Int(i) => CNode::Int(i),
                Number::Float(f) => CNode::Float(f),
                Number::Bad(message) => CNode::BadLiteral(message),
            },
            Node::Slot { slot, name } => CNode::Slot { slot: *slot, name: self.s(*name) },
            Node::Reference(r) => CNode::Reference(self.target(*r)),
            Node::Binary { op, lhs, rhs } => CNode::Binary {
                op: BIN_OPS.get(*op as usize).copied().unwrap_or(BinOp::Add),
                lhs: *lhs,
                rhs: *rhs,
            },
            Node::Unary { op, operand } => {
                if *op == 0 {
                    CNode::Neg(*operand)
                } else {
                    CNode::Not(*operand)
                }
            }
            Node::Call { callee, args } => CNode::Call { callee: *callee, args: args.clone().into_boxed_slice() },
            Node::Intrinsic { op, args, order } => CNode::Intrinsic {
                op: match op {
                    0 => Intrinsic::Apply,
                    1 => Intrinsic::Merge,
                    2 => Intrinsic::Diff,
                    _ => Intrinsic::Changed,
                },
                args: args.clone().into_boxed_slice(),
                order_at: {
                    // (name address, first position), sorted by address: `changed` finds each
                    // field's place by a binary search. The names live in the program's table.
                    let mut at: Vec<(usize, u32)> =
                        order.iter().enumerate().map(|(position, s)| (name_key(&self.s(*s)), position as u32)).collect();
                    at.sort_unstable();
                    at.dedup_by_key(|(key, _)| *key);
                    at.into_boxed_slice()
                },
            },
            Node::If { cond, then, otherwise } => CNode::If { cond: *cond, then: *then, otherwise: *otherwise },
            Node::IfIs { scrutinee, arms, otherwise } => CNode::IfIs {
                scrutinee: *scrutinee,
                arms: arms.iter().map(|a| (a.patterns.clone().into_boxed_slice(), a.body)).collect(),
                otherwise: *otherwise,
            },
            Node::Array { items } => CNode::Array(items.clone().into_boxed_slice()),
            Node::For(l) | Node::ForRange(l) => CNode::For {
                item: l.item_slot,
                index: l.index_slot,
                iterable: l.iterable,
                body: l.body,
                range: matches!(node, Node::ForRange(_)),
            },
            Node::Member { base, member } => CNode::Member { base: *base, name: self.s(*member), optional: false },
            Node::OptionalMember { base, member } => CNode::Member { base: *base, name: self.s(*member), optional: true },
            Node::Record { target, props, content } => {
                let (props, spread) = self.props(props);
                CNode::Record {
                    name: self.s(target.name),
                    target: self.target(*target),
                    props,
                    content: content.clone().into_boxed_slice(),
                    spread,
                }
            }
            Node::UnionCase { union, case, props, content } => {
                let (props, spread) = self.props(props);
                CNode::UnionCase {
                    name: self.s(union.name),
                    target: self.target(*union),
                    case: self.s(*case),
                    props,
                    content: content.clone().into_boxed_slice(),
                    spread,
                    found: NO_CASE,
                }
            }
            Node::Element { tag, props, content, .. } => {
                let (props, spread) = self.props(props);
                CNode::Element { tag: self.s(*tag), props, content: content.clone().into_boxed_slice(), spread }
            }
            Node::Component { target, props, content } => {
                let (props, spread) = self.props(props);
                CNode::Component {
                    name: self.s(target.name),
                    target: self.target(*target),
                    props,
                    content: content.clone().into_boxed_slice(),
                    spread,
                }
            }
            Node::ActionHandler { component, emit, action, binding, owner, body } => CNode::ActionHandler {
                component: self.target(*component),
                emit: self.s(*emit),
                action: self.target(*action),
                binding: *binding,
                owner: owner.map(|o| self.target(o)),
                body: *body,
            },
            Node::Text { operand, type_name } => CNode::Text {
                operand: *operand,
                form: match module.string(*type_name) {
                    "float64" => TextForm::Float64,
                    "float32" => TextForm::Float32,
                    "boolean" => TextForm::Boolean,
                    _ => TextForm::Int,
                },
            },
            Node::NamedCall { callee, args } => {
                let (args, spread) = self.props(args);
                CNode::NamedCall { callee: *callee, args, spread }
            }
            Node::Exists { operand } => CNode::Exists(*operand),
            Node::Coalesce { left, right } => CNode::Coalesce { left: *left, right: *right },
            // The reader checked the operation and its argument count.
            Node::StandardMath { op, args } => match MathOp::from_code(*op) {
                Some(op) if op.arity() == args.len() => CNode::StandardMath { op, args: args.clone().into_boxed_slice() },
                _ => CNode::BadLiteral("NX IR image is malformed: an unknown standard math operation or arity.".into()),
            },
            Node::StandardColor { op, args } => CNode::StandardColor { op: *op, args: args.clone().into_boxed_slice() },
            Node::Check { operand, ty, site } => {
                CNode::Check { operand: *operand, interval: self.interval(types, *ty), site: self.s(*site) }
            }
            Node::Interval { ty } => CNode::Interval(self.interval(types, *ty)),
        }
    }
}

/// The 64-bit FNV-1a hash of an image's bytes: ties a stored component instance to the images
/// that rendered it.
pub(crate) fn image_hash(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |hash, byte| (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3))
}

/// Schema 6 checks a value at a component-typed site against the component's props: in each
/// schema 6 module, a nominal type naming a component becomes [`CType::Component`]. (A program's
/// modules are all of one schema; the linker refuses a mix.)
fn component_sites(decoded: &[model::Module], modules: &mut [CModule]) {
    let is_component: Vec<Vec<bool>> =
        modules.iter().map(|m| m.decls.iter().map(|d| matches!(d.kind, CDeclKind::Component { .. })).collect()).collect();
    for (module, decoded) in modules.iter_mut().zip(decoded) {
        if decoded.schema < kinds::SCHEMA_6 {
            continue;
        }
        for ty in &mut module.types {
            if let CType::Nominal(Target::Decl { module, decl }) = *ty {
                if is_component.get(module as usize).and_then(|m| m.get(decl as usize)).copied().unwrap_or(false) {
                    *ty = CType::Component { module, decl };
                }
            }
        }
    }
}

/// The value of string `index` kept in `cache`, made by `make` the first time (an index past
/// the cache is made each time: the image's strings are all in it).
fn once<T: Clone>(cache: &mut [Option<T>], index: u32, make: impl FnOnce() -> T) -> T {
    match cache.get_mut(index as usize) {
        Some(Some(value)) => value.clone(),
        Some(slot) => slot.insert(make()).clone(),
        None => make(),
    }
}

/// Finds the cases each union case node names, where its target is a union that declares the
/// name (a construction or pattern then takes them without a search; see `CNode::UnionCase`).
/// Each union and name is searched for once, however many nodes name it: an image's nodes could
/// all name one long case name that a search compares many times.
fn union_case_sites(modules: &mut [CModule]) {
    let mut found: Vec<(usize, usize, u32)> = Vec::new();
    let mut searched: HashMap<(u32, u32, usize), Option<u32>> = HashMap::new();
    for (m, module) in modules.iter().enumerate() {
        for (at, node) in module.nodes.iter().enumerate() {
            let CNode::UnionCase { target: Target::Decl { module, decl }, case, .. } = node else { continue };
            let Some(declaration) = modules.get(*module as usize).and_then(|target| target.decls.get(*decl as usize)) else {
                continue;
            };
            let CDeclKind::Union { cases, index, .. } = &declaration.kind else { continue };
            // The program's names are interned: one address per text.
            let entry = *searched.entry((*module, *decl, name_key(case))).or_insert_with(|| index.position(cases, case));
            if let Some(entry) = entry {
                found.push((m, at, entry));
            }
        }
    }
    for (m, at, entry) in found {
        if let CNode::UnionCase { found, .. } = &mut modules[m].nodes[at] {
            *found = entry;
        }
    }
}

/// The work the evaluator's recheck of a record normal at a declaration of `count` fields
/// counts before it checks each field (its fields matched to the declaration's, as normalizing
/// matched them).
#[inline]
pub(crate) fn recheck_work(count: usize) -> u64 {
    (count as u64 + 1) * (count as u64 + 1)
}

/// Sets every declaration's [`CDecl::deep_recheck`].
fn deep_rechecks(modules: &mut [CModule]) {
    let mut known: Vec<Vec<Deep>> = modules.iter().map(|m| vec![Deep::Unknown; m.decls.len()]).collect();
    for (m, module) in modules.iter().enumerate() {
        for d in 0..module.decls.len() {
            deep_recheck(modules, &mut known, m, d, 0);
        }
    }
    for (module, known) in modules.iter_mut().zip(known) {
        for (decl, known) in module.decls.iter_mut().zip(known) {
            decl.deep_recheck = match known {
                Deep::Known(cost) => Some(cost),
                _ => None,
            };
        }
    }
}

/// A declaration's deep recheck while they are worked out.
#[derive(Clone, Copy)]
enum Deep {
    Unknown,
    Visiting,
    None,
    Known((u64, u64)),
}

/// The deep recheck of declaration `d` of module `m` (see [`CDecl::deep_recheck`]): as
/// `recheck_cost` in the evaluator measures a value normal all the way down, the nested
/// records' costs from their declarations.
fn deep_recheck(modules: &[CModule], known: &mut [Vec<Deep>], m: usize, d: usize, depth: u32) -> Option<(u64, u64)> {
    match known[m][d] {
        Deep::Known(cost) => return Some(cost),
        Deep::Visiting | Deep::None => return None,
        Deep::Unknown if depth >= DEEP_NESTING => return None,
        Deep::Unknown => {}
    }
    known[m][d] = Deep::Visiting;
    let module = &modules[m];
    let decl = &module.decls[d];
    let cost = (|| {
        let CDeclKind::Record { fields, is_abstract: false, update_target: None, .. } = &decl.kind else { return None };
        let count = fields.len() as u64;
        // The recheck's own tally, then one unit per field checked.
        let work = recheck_work(fields.len());
        if decl.unit_checked {
            return Some((count, work + count));
        }
        let (mut charges, mut work) = (0u64, work);
        for field in fields.iter() {
            let (field_charges, field_work) = match module.types.get(field.ty as usize) {
                // The primitives whose values a check keeps for its one charge (as the
                // evaluator's `exact_primitive`).
                Some(CType::Prim(Prim::Int | Prim::Float64 | Prim::String | Prim::Boolean | Prim::Object)) => (1, 1),
                Some(CType::Nominal(Target::Decl { module: inner_m, decl: inner_d })) => {
                    let (inner_charges, inner_work) = deep_recheck(modules, known, *inner_m as usize, *inner_d as usize, depth + 1)?;
                    (inner_charges.checked_add(1)?, inner_work.checked_add(1)?)
                }
                _ => return None,
            };
            charges = charges.checked_add(field_charges)?;
            work = work.checked_add(field_work)?;
        }
        Some((charges, work))
    })();
    known[m][d] = match cost {
        Some(cost) => Deep::Known(cost),
        None => Deep::None,
    };
    cost
}

/// Whether checking a value already normalized to type `ty` charges exactly one operation: a
/// primitive (each takes one check), or an optional primitive holding its value.
fn unit_check(types: &[CType], ty: u32) -> bool {
    let primitive = |ty: u32| matches!(types.get(ty as usize), Some(CType::Prim(prim)) if !matches!(prim, Prim::Unknown(_)));
    match types.get(ty as usize) {
        Some(CType::Seq { item, may_be_many: false, .. }) => primitive(*item),
        _ => primitive(ty),
    }
}

#[cfg(test)]
mod tests {
    use super::{CCase, CaseIndex, NO_CASE};
    use crate::eval::name::Name;

    fn case(name: &str, is_constant: bool) -> CCase {
        CCase { name: Name::counted(name), type_name: Name::counted(&format!("U.{name}")), fields: Box::new([]), is_constant }
    }

    #[test]
    fn a_case_is_found_by_name_with_the_first_of_each_kind_when_a_name_is_declared_twice() {
        let cases = [case("b", false), case("a", true), case("b", true), case("a", false), case("c", true), case("b", false)];
        let index = CaseIndex::new(&cases);
        let (b, _) = index.find(&cases, "b");
        let b = b.expect("b is a case");
        assert_eq!((b.first, b.constant, b.with_fields), (0, 2, 0));
        let a = index.find(&cases, "a").0.expect("a is a case");
        assert_eq!((a.first, a.constant, a.with_fields), (1, 1, 3));
        let c = index.find(&cases, "c").0.expect("c is a case");
        assert_eq!((c.first, c.constant, c.with_fields), (4, 4, NO_CASE));
        for missing in ["", "aa", "d", "B"] {
            assert!(index.find(&cases, missing).0.is_none(), "{missing}");
        }
        assert!(CaseIndex::new(&[]).find(&[], "a").0.is_none());
    }

    #[test]
    fn finding_a_case_among_thousands_takes_a_search_tallied_by_the_names_length() {
        // 4,096 names of 1,000 bytes that differ only at their end: a scan would compare
        // 4,096 of them to the end; the search compares at most 13.
        let prefix = "n".repeat(995);
        let cases: Vec<CCase> = (0..4096).map(|i| case(&format!("{prefix}{i:05}"), i % 2 == 0)).collect();
        let index = CaseIndex::new(&cases);
        for at in [0usize, 1, 2047, 4094, 4095] {
            let (found, work) = index.find(&cases, &cases[at].name);
            assert_eq!(found.expect("found").first as usize, at);
            // One unit and one per 64 bytes (15) for each comparison, 12 or 13 of them, and the
            // search's own unit.
            assert!(work <= 14 * 16, "{work}");
        }
        let (missing, work) = index.find(&cases, &format!("{prefix}99999"));
        assert!(missing.is_none());
        assert!(work <= 14 * 16, "{work}");
    }
}
