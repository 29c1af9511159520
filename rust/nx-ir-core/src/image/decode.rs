//! One entry of a cell table, decoded from its cells into the [`crate::model`] enums. This is the
//! only code that knows the per-kind layouts (§2 of the format).
//!
//! Validation and the decode accessors run the same functions. During validation the reader
//! carries [`Checks`]: every index operand is checked against its bound as it is read, and every
//! reference is recorded for linking. After validation it carries none, and reads the same
//! cells without checking them again.

use crate::model::{
    kinds, Arm, Constant, Decl, Emit, Field, Loop, Node, Prop, Ref, Type, TypeParam, UnionCaseDecl, NONE,
};

use super::layout::cell;

/// A failure inside one entry, as the detail of a malformed-image message.
pub(crate) type EntryError = String;
type Result<T> = std::result::Result<T, EntryError>;

/// The four cell tables, in the order the reader validates them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Table {
    Types,
    Constants,
    Nodes,
    Declarations,
}

impl Table {
    pub const ALL: [Table; 4] = [Table::Types, Table::Constants, Table::Nodes, Table::Declarations];

    /// The entry's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Table::Types => "type",
            Table::Constants => "constant",
            Table::Nodes => "node",
            Table::Declarations => "declaration",
        }
    }

    /// The section kind the directory lists the table under.
    pub fn section(self) -> u32 {
        use kinds::section;
        match self {
            Table::Types => section::TYPES,
            Table::Constants => section::CONSTANTS,
            Table::Nodes => section::NODES,
            Table::Declarations => section::DECLARATIONS,
        }
    }
}

/// What an index operand indexes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Index {
    String,
    Type,
    Constant,
    Node,
}

impl Index {
    fn name(self) -> &'static str {
        match self {
            Index::String => "string",
            Index::Type => "type",
            Index::Constant => "constant",
            Index::Node => "node",
        }
    }
}

/// The bounds index operands are checked against. A type entry may only name earlier types and
/// a node entry only earlier nodes, so for those two the bound is the entry's own index.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Bounds {
    pub strings: usize,
    pub types: usize,
    pub constants: usize,
    pub nodes: usize,
    pub modules: usize,
    /// Which bound (if any) is the entry's own index rather than a table's count.
    own: Option<Table>,
}

impl Bounds {
    pub fn new(strings: usize, types: usize, constants: usize, nodes: usize, modules: usize) -> Self {
        Bounds { strings, types, constants, nodes, modules, own: None }
    }

    /// The bounds for entry `index` of `table`.
    pub fn for_entry(&self, table: Table, index: usize) -> Self {
        let mut bounds = Bounds { own: None, ..*self };
        match table {
            Table::Types => (bounds.types, bounds.own) = (index, Some(table)),
            Table::Nodes => (bounds.nodes, bounds.own) = (index, Some(table)),
            Table::Constants | Table::Declarations => {}
        }
        bounds
    }

    fn check(&self, what: Index, value: u32) -> Result<()> {
        let (bound, own) = match what {
            Index::String => (self.strings, false),
            Index::Type => (self.types, self.own == Some(Table::Types)),
            Index::Constant => (self.constants, false),
            Index::Node => (self.nodes, self.own == Some(Table::Nodes)),
        };
        if (value as usize) < bound {
            Ok(())
        } else if own {
            Err(format!("{} index {value} is out of range (an entry may only name the {bound} before it)", what.name()))
        } else {
            Err(format!("{} index {value} is out of range (the table has {bound})", what.name()))
        }
    }
}

/// What validation checks while decoding, and what it collects.
#[derive(Debug, Default)]
pub(crate) struct Checks {
    pub bounds: Bounds,
    /// Every reference read so far (absent optional ones excepted).
    pub references: Vec<Ref>,
}

/// A cursor over one entry's cells.
pub(crate) struct Reader<'a, 'c> {
    cells: &'a [u8],
    at: usize,
    /// The image's schema, which says which kinds and operands exist.
    schema: u32,
    checks: Option<&'c mut Checks>,
}

impl<'a, 'c> Reader<'a, 'c> {
    fn new(cells: &'a [u8], schema: u32, checks: Option<&'c mut Checks>) -> Self {
        Reader { cells, at: 0, schema, checks }
    }

    /// Whether the image is schema 6, whose kinds and operands schema 5 does not have.
    fn schema_6(&self) -> bool {
        self.schema >= kinds::SCHEMA_6
    }

    fn remaining(&self) -> usize {
        (self.cells.len() / 4).saturating_sub(self.at)
    }

    /// The next cell, unchecked (a flag, flags word, slot or element id).
    fn cell(&mut self) -> Result<u32> {
        let value = self
            .at
            .checked_mul(4)
            .and_then(|at| cell(self.cells, at))
            .ok_or_else(|| "the entry ends before its layout does".to_string())?;
        self.at += 1;
        Ok(value)
    }

    /// A cell that is `none` when absent, unchecked.
    fn optional_cell(&mut self) -> Result<Option<u32>> {
        Ok(Some(self.cell()?).filter(|value| *value != NONE))
    }

    /// An operator or intrinsic code, which must be one the schema assigns.
    fn code(&mut self, names: &[&str], what: &str) -> Result<u32> {
        let code = self.cell()?;
        if (code as usize) < names.len() {
            Ok(code)
        } else {
            Err(format!("{what} code {code} is not one the schema assigns"))
        }
    }

    fn index(&mut self, what: Index) -> Result<u32> {
        let value = self.cell()?;
        if let Some(checks) = self.checks.as_deref() {
            checks.bounds.check(what, value)?;
        }
        Ok(value)
    }

    fn optional(&mut self, what: Index) -> Result<Option<u32>> {
        let value = self.cell()?;
        if value == NONE {
            return Ok(None);
        }
        if let Some(checks) = self.checks.as_deref() {
            checks.bounds.check(what, value)?;
        }
        Ok(Some(value))
    }

    fn string(&mut self) -> Result<u32> {
        self.index(Index::String)
    }

    fn ty(&mut self) -> Result<u32> {
        self.index(Index::Type)
    }

    fn node(&mut self) -> Result<u32> {
        self.index(Index::Node)
    }

    fn reference(&mut self) -> Result<Ref> {
        let slot = self.cell()?;
        let name = self.cell()?;
        self.checked_reference(slot, name)
    }

    /// An optional reference: absent when the slot cell is `none`, whatever the name cell holds.
    fn optional_reference(&mut self) -> Result<Option<Ref>> {
        let slot = self.cell()?;
        let name = self.cell()?;
        if slot == NONE {
            return Ok(None);
        }
        self.checked_reference(slot, name).map(Some)
    }

    fn checked_reference(&mut self, slot: u32, name: u32) -> Result<Ref> {
        if let Some(checks) = self.checks.as_deref_mut() {
            if slot as usize >= checks.bounds.modules {
                return Err(format!(
                    "module slot {slot} is out of range (the module table has {})",
                    checks.bounds.modules
                ));
            }
            checks.bounds.check(Index::String, name)?;
            checks.references.push(Ref { slot, name });
        }
        Ok(Ref { slot, name })
    }

    /// A count cell and that many elements. A count the rest of the entry cannot hold is refused
    /// before anything is allocated for it: every element takes at least one cell.
    fn list<T>(&mut self, mut element: impl FnMut(&mut Self) -> Result<T>) -> Result<Vec<T>> {
        let count = self.cell()? as usize;
        if count > self.remaining() {
            return Err(format!("a list of {count} element(s) does not fit in the entry"));
        }
        let mut elements = Vec::with_capacity(count);
        for _ in 0..count {
            elements.push(element(self)?);
        }
        Ok(elements)
    }

    fn nodes(&mut self) -> Result<Vec<u32>> {
        self.list(Self::node)
    }

    fn props(&mut self) -> Result<Vec<Prop>> {
        self.list(|r| Ok(Prop { name: r.string()?, value: r.node()? }))
    }

    fn field(&mut self) -> Result<Field> {
        Ok(Field { name: self.string()?, ty: self.ty()?, default: self.optional(Index::Node)?, flags: self.cell()? })
    }

    fn fields(&mut self) -> Result<Vec<Field>> {
        self.list(Self::field)
    }

    fn references(&mut self) -> Result<Vec<Ref>> {
        self.list(Self::reference)
    }

    /// Two cells, low word first.
    fn wide(&mut self) -> Result<u64> {
        let low = self.cell()?;
        let high = self.cell()?;
        Ok(u64::from(low) | (u64::from(high) << 32))
    }

    fn loop_operands(&mut self) -> Result<Loop> {
        Ok(Loop {
            item_slot: self.cell()?,
            item_name: self.string()?,
            index_slot: self.optional_cell()?,
            index_name: self.optional(Index::String)?,
            iterable: self.node()?,
            body: self.node()?,
        })
    }

    /// The entry must end exactly where its layout does.
    fn finish(&self) -> Result<()> {
        match self.remaining() {
            0 => Ok(()),
            extra => Err(format!("the entry has {extra} cell(s) more than its layout")),
        }
    }
}

/// The message for a kind cell no layout answers to.
fn unassigned(kind: u32, retired: &[u32]) -> EntryError {
    if retired.contains(&kind) {
        format!("kind {kind} was retired with schema 5")
    } else {
        format!("kind {kind} is not one the schema assigns")
    }
}

/// Decodes one whole entry of a `schema` image, which must end where its layout does.
fn entry<T>(cells: &[u8], schema: u32, checks: Option<&mut Checks>, decode: fn(&mut Reader) -> Result<T>) -> Result<T> {
    let mut reader = Reader::new(cells, schema, checks);
    let value = decode(&mut reader)?;
    reader.finish()?;
    Ok(value)
}

pub(crate) fn decode_type(cells: &[u8], schema: u32, checks: Option<&mut Checks>) -> Result<Type> {
    entry(cells, schema, checks, |r| {
        use kinds::ty as k;
        Ok(match r.cell()? {
            k::PRIMITIVE => Type::Primitive { name: r.string()? },
            k::NOMINAL => Type::Nominal(r.reference()?),
            k::FUNCTION => Type::Function {
                result: r.ty()?,
                params: r.list(|r| Ok(TypeParam { name: r.string()?, ty: r.ty()?, flags: r.cell()? }))?,
            },
            k::SEQ => Type::Seq { item: r.ty()?, occurrence: r.cell()? },
            k::ANY_FUNCTION => Type::AnyFunction { result: r.ty()? },
            k::CONSTRAINED if r.schema_6() => Type::Constrained {
                base: r.ty()?,
                low: r.optional(Index::Constant)?,
                high: r.optional(Index::Constant)?,
                flags: r.cell()?,
            },
            kind => return Err(unassigned(kind, &[k::ARRAY, k::NULLABLE])),
        })
    })
}

pub(crate) fn decode_constant(cells: &[u8], schema: u32, checks: Option<&mut Checks>) -> Result<Constant> {
    entry(cells, schema, checks, |r| {
        use kinds::constant as k;
        Ok(match r.cell()? {
            k::INT => Constant::Int(r.wide()? as i64),
            k::BIGINT => Constant::BigInt { digits: r.string()? },
            k::FLOAT => Constant::Float(f64::from_bits(r.wide()?)),
            kind => return Err(unassigned(kind, &[])),
        })
    })
}

pub(crate) fn decode_node(cells: &[u8], schema: u32, checks: Option<&mut Checks>) -> Result<Node> {
    entry(cells, schema, checks, |r| {
        use kinds::node as k;
        Ok(match r.cell()? {
            k::BOOL => Node::Bool { value: r.cell()? },
            k::STRING => Node::String { value: r.string()? },
            k::NUMBER => Node::Number { constant: r.index(Index::Constant)? },
            k::SLOT => Node::Slot { slot: r.cell()?, name: r.string()? },
            k::REFERENCE => Node::Reference(r.reference()?),
            k::BINARY => Node::Binary {
                op: r.code(&kinds::BINARY_OPERATORS, "binary operator")?,
                lhs: r.node()?,
                rhs: r.node()?,
            },
            k::UNARY => Node::Unary { op: r.code(&kinds::UNARY_OPERATORS, "unary operator")?, operand: r.node()? },
            k::CALL => Node::Call { callee: r.node()?, args: r.list(|r| r.optional(Index::Node))? },
            k::INTRINSIC => Node::Intrinsic {
                op: r.code(&kinds::INTRINSICS, "intrinsic")?,
                args: r.nodes()?,
                order: r.list(Reader::string)?,
            },
            k::IF => Node::If { cond: r.node()?, then: r.node()?, otherwise: r.optional(Index::Node)? },
            k::IF_IS => Node::IfIs {
                scrutinee: r.node()?,
                arms: r.list(|r| Ok(Arm { patterns: r.nodes()?, body: r.node()? }))?,
                otherwise: r.optional(Index::Node)?,
            },
            k::ARRAY => Node::Array { items: r.nodes()? },
            k::FOR => Node::For(r.loop_operands()?),
            k::MEMBER => Node::Member { base: r.node()?, member: r.string()? },
            k::RECORD => Node::Record { target: r.reference()?, props: r.props()?, content: r.nodes()? },
            k::UNION_CASE => {
                Node::UnionCase { union: r.reference()?, case: r.string()?, props: r.props()?, content: r.nodes()? }
            }
            k::ELEMENT => Node::Element { id: r.cell()?, tag: r.string()?, props: r.props()?, content: r.nodes()? },
            k::COMPONENT => Node::Component { target: r.reference()?, props: r.props()?, content: r.nodes()? },
            k::ACTION_HANDLER => Node::ActionHandler {
                component: r.reference()?,
                emit: r.string()?,
                action: r.reference()?,
                binding: r.cell()?,
                owner: r.optional_reference()?,
                body: r.node()?,
            },
            k::TEXT => Node::Text { operand: r.node()?, type_name: r.string()? },
            k::NAMED_CALL => Node::NamedCall { callee: r.node()?, args: r.props()? },
            k::FOR_RANGE => Node::ForRange(r.loop_operands()?),
            k::EXISTS => Node::Exists { operand: r.node()? },
            k::OPTIONAL_MEMBER => Node::OptionalMember { base: r.node()?, member: r.string()? },
            k::COALESCE => Node::Coalesce { left: r.node()?, right: r.node()? },
            k::STANDARD_MATH if r.schema_6() => Node::StandardMath {
                op: r.code(&kinds::STANDARD_MATH_OPERATIONS, "standard math operation")?,
                args: r.nodes()?,
            },
            // The operation is checked with the arity, after the entry (as the reference does).
            k::STANDARD_COLOR if r.schema_6() => Node::StandardColor { op: r.cell()?, args: r.nodes()? },
            k::CHECK if r.schema_6() => Node::Check { operand: r.node()?, ty: r.ty()?, site: r.string()? },
            k::INTERVAL if r.schema_6() => Node::Interval { ty: r.ty()? },
            kind => return Err(unassigned(kind, &[k::NULL])),
        })
    })
}

pub(crate) fn decode_declaration(cells: &[u8], schema: u32, checks: Option<&mut Checks>) -> Result<Decl> {
    entry(cells, schema, checks, |r| {
        use kinds::declaration as k;
        let kind = r.cell()?;
        if kind > k::TYPE_ALIAS {
            return Err(unassigned(kind, &[]));
        }
        let name = r.string()?;
        Ok(match kind {
            k::FUNCTION => Decl::Function {
                name,
                params: r.fields()?,
                body: r.node()?,
                result: r.optional(Index::Type)?,
                result_flags: r.cell()?,
            },
            k::VALUE => Decl::Value { name, init: r.node()?, ty: r.optional(Index::Type)? },
            k::RECORD => Decl::Record {
                name,
                fields: r.fields()?,
                bases: r.references()?,
                is_abstract: r.cell()?,
                update_target: r.optional_reference()?,
            },
            k::COMPONENT => Decl::Component {
                name,
                props: r.fields()?,
                state: r.fields()?,
                body: r.optional(Index::Node)?,
                flags: r.cell()?,
                emits: r.list(|r| Ok(Emit { name: r.string()?, action: r.reference()? }))?,
                state_record: if r.schema_6() { r.optional_reference()? } else { None },
            },
            k::UNION => Decl::Union {
                name,
                cases: r
                    .list(|r| Ok(UnionCaseDecl { name: r.string()?, fields: r.fields()?, is_constant: r.cell()? }))?,
                bases: r.references()?,
                property_target: r.optional_reference()?,
            },
            _ => Decl::TypeAlias { name },
        })
    })
}
