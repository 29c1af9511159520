//! The validating, zero-copy reader of schema 5 and schema 6 images, each held to the rules of
//! the NX release that writes it (0.7 for schema 5, 0.10 for schema 6).
//!
//! [`PreparedModule::prepare`] checks the whole image before it answers anything (the order and
//! the rules are those of §3.3 of the format), then keeps the caller's bytes and only the
//! positions of its sections and tables. Strings are read in place; table entries are decoded
//! into [`crate::model`] values when asked for. The only things built at prepare time are what
//! linking needs: the declarations sorted by name, and the names the image references through
//! each module-table slot.
//!
//! No input makes the reader panic or read outside the buffer: every read is bounds-checked,
//! no count is trusted before it is checked against the bytes that must hold it, and nothing
//! recurses on a depth the image controls.

mod decode;
mod layout;
mod rules;
mod validate;

use crate::error::{IrError, IrResult};
use crate::model::{self, Constant, Decl, Module, ModuleEntry, Node, Ref, Type};
use decode::Table;
use layout::ImageLayout;
use std::fmt;
use std::sync::{Arc, OnceLock};

/// What holds an image's bytes: a `Vec<u8>`, an `Arc<[u8]>`, a memory map, a Python `bytes`...
/// It must give back the same bytes every time it is asked.
pub type ImageOwner = Arc<dyn AsRef<[u8]> + Send + Sync>;

/// `nx-ir-malformed` with the reference's message shape: "NX IR image is malformed: {detail}."
pub(crate) fn malformed(detail: impl fmt::Display) -> IrError {
    IrError::malformed(format_args!("{detail}."))
}

/// One module-table entry, read in place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkEntry<'a> {
    pub identity: &'a str,
    pub version: &'a str,
    pub fingerprint: u64,
}

/// A validated image. Immutable, `Send + Sync`; share it with `Arc`.
pub struct PreparedModule {
    owner: ImageOwner,
    layout: ImageLayout,
    /// `(name string, declaration index)`, sorted by name.
    by_name: Box<[(u32, u32)]>,
    /// `(slot, name string)` of every reference, sorted by slot then name, names distinct.
    references: Box<[Ref]>,
    /// The declarations as typed data, read on first request ([`PreparedModule::declarations`]).
    declarations: OnceLock<Arc<[crate::declarations::DeclarationView]>>,
}

impl PreparedModule {
    /// Validates the image `owner` holds and keeps it.
    pub fn prepare(owner: ImageOwner) -> IrResult<PreparedModule> {
        let validated = validate::validate((*owner).as_ref())?;
        Ok(PreparedModule {
            owner,
            layout: validated.layout,
            by_name: validated.by_name,
            references: validated.references,
            declarations: OnceLock::new(),
        })
    }

    /// Validates and keeps `bytes`.
    pub fn from_vec(bytes: Vec<u8>) -> IrResult<PreparedModule> {
        PreparedModule::prepare(Arc::new(bytes))
    }

    /// Copies `bytes`, then validates and keeps the copy.
    pub fn from_slice(bytes: &[u8]) -> IrResult<PreparedModule> {
        PreparedModule::from_vec(bytes.to_vec())
    }

    /// The schema the image is written in: 5 or 6.
    pub fn schema(&self) -> u32 {
        self.layout.schema
    }

    /// The whole image.
    pub fn bytes(&self) -> &[u8] {
        (*self.owner).as_ref()
    }

    /// String `index`, borrowed from the image.
    pub fn string(&self, index: u32) -> Option<&str> {
        self.layout.string(self.bytes(), index)
    }

    pub fn string_count(&self) -> usize {
        self.layout.strings.count
    }

    pub fn type_count(&self) -> usize {
        self.layout.table(Table::Types).count
    }

    pub fn constant_count(&self) -> usize {
        self.layout.table(Table::Constants).count
    }

    pub fn node_count(&self) -> usize {
        self.layout.table(Table::Nodes).count
    }

    pub fn declaration_count(&self) -> usize {
        self.layout.table(Table::Declarations).count
    }

    /// Entries in the module table, this module's own included.
    pub fn module_count(&self) -> usize {
        self.layout.module.module_count()
    }

    /// Module-table slot `slot`; slot 0 is this module.
    pub fn module_entry(&self, slot: usize) -> Option<LinkEntry<'_>> {
        self.entry_with(slot, &mut |index| self.string(index))
    }

    fn entry_with<'a>(&'a self, slot: usize, string: &mut dyn FnMut(u32) -> Option<&'a str>) -> Option<LinkEntry<'a>> {
        let bytes = self.bytes();
        let modules = &self.layout.module.modules;
        let at = |offset: usize| modules.get(bytes, slot.checked_mul(4)? + offset);
        Some(LinkEntry {
            identity: string(at(0)?)?,
            version: string(at(1)?)?,
            fingerprint: u64::from(at(2)?) | (u64::from(at(3)?) << 32),
        })
    }

    /// Slots `slots` of the module table, each string read once however many slots name it (a
    /// table could name one long identity in every slot).
    fn entries(&self, slots: std::ops::Range<usize>) -> Vec<LinkEntry<'_>> {
        let mut read: std::collections::HashMap<u32, Option<&str>> = std::collections::HashMap::new();
        let mut string = |index: u32| *read.entry(index).or_insert_with(|| self.string(index));
        slots.filter_map(|slot| self.entry_with(slot, &mut string)).collect()
    }

    /// The whole module table, this module first.
    pub fn module_table(&self) -> Vec<LinkEntry<'_>> {
        self.entries(0..self.module_count())
    }

    /// The modules this image links against: the module table after slot 0.
    pub fn links(&self) -> Vec<LinkEntry<'_>> {
        self.entries(1..self.module_count())
    }

    /// This module's identity (slot 0 of its table).
    pub fn identity(&self) -> &str {
        self.module_entry(0).map_or("", |own| own.identity)
    }

    /// This module's version (slot 0 of its table).
    pub fn version(&self) -> &str {
        self.module_entry(0).map_or("", |own| own.version)
    }

    /// This module's fingerprint (slot 0 of its table).
    pub fn fingerprint(&self) -> u64 {
        self.module_entry(0).map_or(0, |own| own.fingerprint)
    }

    /// The runtime ABI the image was built for (always `nx-ir-runtime-v2` once prepared).
    pub fn abi(&self) -> &str {
        self.string(self.layout.module.abi).unwrap_or("")
    }

    /// The required features the image lists.
    pub fn required_features(&self) -> Vec<&str> {
        self.layout.module.features.iter(self.bytes()).filter_map(|index| self.string(index)).collect()
    }

    /// The names of the function entrypoints, in declaration order.
    pub fn function_entrypoints(&self) -> Vec<&str> {
        self.layout.module.function_entrypoints.iter(self.bytes()).filter_map(|d| self.declaration_name(d)).collect()
    }

    /// The names of the component entrypoints, in declaration order.
    pub fn component_entrypoints(&self) -> Vec<&str> {
        self.layout.module.component_entrypoints.iter(self.bytes()).filter_map(|d| self.declaration_name(d)).collect()
    }

    /// The name of declaration `index`.
    pub fn declaration_name(&self, index: u32) -> Option<&str> {
        self.string(self.layout.entry_cell(self.bytes(), Table::Declarations, index, 1)?)
    }

    /// The kind cell of declaration `index` (see [`crate::model::kinds::declaration`]).
    pub fn declaration_kind(&self, index: u32) -> Option<u32> {
        self.layout.entry_cell(self.bytes(), Table::Declarations, index, 0)
    }

    /// The declaration this module declares under `name`.
    pub fn declaration_index(&self, name: &str) -> Option<u32> {
        let bytes = self.bytes();
        let found = self.by_name.binary_search_by(|(n, _)| validate::compare_name(bytes, &self.layout, *n, name));
        found.ok().map(|at| self.by_name[at].1)
    }

    /// The distinct declaration names this image references through module-table `slot`, in
    /// byte order. Slot 0 names this module's own declarations.
    pub fn referenced_names(&self, slot: usize) -> impl Iterator<Item = &str> + '_ {
        let start = self.references.partition_point(|r| (r.slot as usize) < slot);
        let end = self.references.partition_point(|r| (r.slot as usize) <= slot);
        self.references.get(start..end).unwrap_or(&[]).iter().filter_map(|r| self.string(r.name))
    }

    /// Type `index`, decoded.
    pub fn decode_type(&self, index: u32) -> Option<Type> {
        decode::decode_type(self.layout.entry(self.bytes(), Table::Types, index)?, self.layout.schema, None).ok()
    }

    /// Constant `index`, decoded.
    pub fn decode_constant(&self, index: u32) -> Option<Constant> {
        decode::decode_constant(self.layout.entry(self.bytes(), Table::Constants, index)?, self.layout.schema, None).ok()
    }

    /// Node `index`, decoded.
    pub fn decode_node(&self, index: u32) -> Option<Node> {
        decode::decode_node(self.layout.entry(self.bytes(), Table::Nodes, index)?, self.layout.schema, None).ok()
    }

    /// Declaration `index`, decoded.
    pub fn decode_declaration(&self, index: u32) -> Option<Decl> {
        decode::decode_declaration(self.layout.entry(self.bytes(), Table::Declarations, index)?, self.layout.schema, None).ok()
    }

    /// Every declaration as typed data ([`crate::declarations`]), read once and then shared.
    pub fn declarations(&self) -> Arc<[crate::declarations::DeclarationView]> {
        Arc::clone(self.declarations.get_or_init(|| crate::declarations::read(self).into()))
    }

    /// Whether the image carries its debug section.
    pub fn has_debug_info(&self) -> bool {
        self.layout.debug.is_some()
    }

    /// The source span of node `index`, if the debug section is present and knows it.
    pub fn node_span(&self, index: u32) -> Option<(u32, u32)> {
        self.layout.debug?.node_span(self.bytes(), index as usize)
    }

    /// The source span of declaration `index`, if the debug section is present and knows it.
    pub fn declaration_span(&self, index: u32) -> Option<(u32, u32)> {
        self.layout.debug?.declaration_span(self.bytes(), index as usize)
    }

    /// The module's source text, if the debug section is present.
    pub fn source(&self) -> Option<&str> {
        self.layout.debug?.source(self.bytes())
    }

    /// The whole image decoded into the owned model (what the explainer renders). The image was
    /// validated, so every entry decodes.
    pub fn to_model(&self) -> Module {
        let bytes = self.bytes();
        let module = &self.layout.module;
        let indices = |count: usize| 0..count as u32;
        let debug = self.layout.debug.map(|debug| model::Debug {
            declaration_spans: (0..self.declaration_count()).map(|i| debug.declaration_span(bytes, i)).collect(),
            node_spans: (0..self.node_count()).map(|i| debug.node_span(bytes, i)).collect(),
            source: debug.source(bytes).unwrap_or("").to_string(),
        });
        Module {
            schema: self.layout.schema,
            strings: indices(self.string_count()).map(|i| self.string(i).unwrap_or("").to_string()).collect(),
            abi: module.abi,
            features: module.features.iter(bytes).collect(),
            modules: (0..self.module_count())
                .filter_map(|slot| {
                    let at = |offset: usize| module.modules.get(bytes, slot * 4 + offset);
                    Some(ModuleEntry {
                        identity: at(0)?,
                        version: at(1)?,
                        fingerprint: u64::from(at(2)?) | (u64::from(at(3)?) << 32),
                    })
                })
                .collect(),
            function_entrypoints: module.function_entrypoints.iter(bytes).collect(),
            component_entrypoints: module.component_entrypoints.iter(bytes).collect(),
            types: indices(self.type_count()).filter_map(|i| self.decode_type(i)).collect(),
            constants: indices(self.constant_count()).filter_map(|i| self.decode_constant(i)).collect(),
            nodes: indices(self.node_count()).filter_map(|i| self.decode_node(i)).collect(),
            declarations: indices(self.declaration_count()).filter_map(|i| self.decode_declaration(i)).collect(),
            debug,
        }
    }
}

impl fmt::Debug for PreparedModule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PreparedModule")
            .field("schema", &self.schema())
            .field("identity", &self.identity())
            .field("version", &self.version())
            .field("fingerprint", &self.fingerprint())
            .field("bytes", &self.bytes().len())
            .field("links", &self.links())
            .field("declarations", &self.declaration_count())
            .field("nodes", &self.node_count())
            .field("debug", &self.has_debug_info())
            .finish()
    }
}
