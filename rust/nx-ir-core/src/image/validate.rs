//! The prepare-time pass over a whole image, in the reference order (§3.3): header and
//! directory, string table, the four cell tables, module section, every entry of every table,
//! debug section, runtime ABI and features, then the module-level rules. It also builds what
//! linking needs: the declarations by name and the names referenced through each module slot.
//!
//! The node rules are reported after the runtime ABI and the features, as both reference
//! runtimes check them, and a schema 6 image takes the rules NX 0.10 adds where 0.10 checks them
//! (see [`super::rules`]): standard operations' arities with their entries, their features
//! after the tables, and the node and type rules after the runtime ABI and features.

use super::decode::{decode_constant, decode_declaration, decode_node, decode_type, Bounds, Checks, Table};
use super::rules::{self, Findings};
use super::layout::{
    read_cell_table, read_debug, read_directory, read_module, read_strings, ImageLayout, ModuleBounds, OffsetTable,
};
use super::malformed;
use crate::error::{codes, IrError, IrResult, Report};
use crate::model::kinds::{self, section};
use crate::model::{Decl, Node, Ref, Type};
use std::cmp::Ordering;

/// A validated image's layout and indexes.
pub(crate) struct Validated {
    pub layout: ImageLayout,
    /// `(name string, declaration index)`, sorted by name.
    pub by_name: Box<[(u32, u32)]>,
    /// Every reference the image makes, sorted by slot then name, one per distinct name.
    pub references: Box<[Ref]>,
}

pub(crate) fn validate(bytes: &[u8]) -> IrResult<Validated> {
    let directory = read_directory(bytes)?;
    let strings = read_strings(bytes, directory.required[section::STRINGS as usize])?;
    let mut tables = [OffsetTable::default(); 4];
    for table in Table::ALL {
        tables[table as usize] = read_cell_table(bytes, directory.required[table.section() as usize], table.name())?;
    }
    let module = read_module(
        bytes,
        directory.required[section::MODULE as usize],
        &ModuleBounds { strings: strings.count, declarations: tables[Table::Declarations as usize].count },
    )?;
    let mut layout = ImageLayout { schema: directory.schema, strings, module, tables, debug: None };

    let entries = check_entries(bytes, &layout)?;
    entries.findings.check_features(bytes, &layout)?;
    if let Some(debug) = directory.debug {
        let declarations = layout.table(Table::Declarations).count;
        layout.debug = Some(read_debug(bytes, debug, declarations, layout.table(Table::Nodes).count)?);
    }
    check_runtime(bytes, &layout)?;
    rules::check_constrained_types(bytes, &layout)?;
    let derived_names = entries.derived_names;
    let validated = check_module(bytes, layout, entries)?;
    check_derived_names(derived_names, bytes.len())?;
    Ok(validated)
}

/// What the names a program makes of an image's names may take in all, per byte of the image,
/// beyond [`DERIVED_NAMES_BASE`]: each union case's type name (`Union.case`, one per distinct
/// case name of each union, made when the program is compiled) and each declaration's qualified
/// name (`identity::name`, made when a diagnostic or a component's key first needs it). Each
/// joins two of the image's names, so an image can imply far more text than it holds: 20,000
/// cases of a 20,000-byte union name are 400 MB of names in a 450 kB image. Such an image is
/// refused before any is made.
pub const DERIVED_NAMES_PER_BYTE: u64 = 16;
pub const DERIVED_NAMES_BASE: u64 = 1 << 20;

fn check_derived_names(total: u64, size: usize) -> IrResult<()> {
    let most = DERIVED_NAMES_BASE.saturating_add(DERIVED_NAMES_PER_BYTE.saturating_mul(size as u64));
    if total > most {
        return Err(IrError::new(
            codes::RESOURCE_LIMIT,
            format!(
                "NX IR image is too large to load: the names made of its names (its union cases' type names and its \
                 declarations' qualified names) would take {total} bytes, more than {most} for an image of {size} bytes."
            ),
        ));
    }
    Ok(())
}

/// What the pass over the entries collects for the module-level rules.
struct Entries {
    /// `(name string, declaration index)`, in declaration order.
    names: Vec<(u32, u32)>,
    /// Every reference, in image order, repeats included.
    references: Vec<Ref>,
    /// What the node rules found, reported after the runtime ABI and the features.
    findings: Findings,
    /// The bytes of the names made of the image's names ([`check_derived_names`]).
    derived_names: u64,
}

/// Decodes every entry of every table with its operands checked, plus the rules the layouts do
/// not express: seq occurrences and schema 6's standard operation arities, failing at once; and
/// `text` type names, the `occurrence-v1` cross-check and schema 6's node rules, noted to be
/// reported later.
fn check_entries(bytes: &[u8], layout: &ImageLayout) -> IrResult<Entries> {
    let schema = layout.schema;
    let mut findings = Findings::new(bytes, layout);
    let lists_occurrence = layout
        .module
        .features
        .iter(bytes)
        .any(|feature| layout.string_bytes(bytes, feature) == Some(kinds::OCCURRENCE_FEATURE.as_bytes()));
    let count = |table: Table| layout.table(table).count;
    let bounds = Bounds::new(
        layout.strings.count,
        count(Table::Types),
        count(Table::Constants),
        count(Table::Nodes),
        layout.module.module_count(),
    );
    let mut checks = Checks::default();
    let mut names = Vec::with_capacity(count(Table::Declarations));
    let identity =
        layout.module.modules.get(bytes, 0).and_then(|name| layout.string_bytes(bytes, name)).map_or(0, <[u8]>::len);
    let mut derived_names = 0u64;
    for table in Table::ALL {
        for index in 0..count(table) {
            checks.bounds = bounds.for_entry(table, index);
            let fail = |detail: String| malformed(format_args!("{} {index}: {detail}", table.name()));
            let cells = layout
                .entry(bytes, table, index as u32)
                .ok_or_else(|| fail("the entry lies outside its pool".to_string()))?;
            let checks = Some(&mut checks);
            match table {
                Table::Types => {
                    check_seq(bytes, layout, &decode_type(cells, schema, checks).map_err(fail)?).map_err(fail)?
                }
                Table::Constants => {
                    decode_constant(cells, schema, checks).map_err(fail)?;
                }
                Table::Nodes => {
                    let node = decode_node(cells, schema, checks).map_err(fail)?;
                    rules::check_arity(&node).map_err(fail)?;
                    // Past the report's budget a rule's failure would be left out unmade.
                    let rule = match findings.is_full() {
                        true => Ok(()),
                        false => check_node(bytes, layout, index, &node, lists_occurrence),
                    };
                    findings.note(bytes, layout, index, &node, rule);
                }
                Table::Declarations => {
                    let declaration = decode_declaration(cells, schema, checks).map_err(fail)?;
                    let length = |index: u32| layout.string_bytes(bytes, index).map_or(0, |text| text.len() as u64);
                    let name = declaration.name();
                    derived_names = derived_names.saturating_add(identity as u64 + 2 + length(name));
                    if let Decl::Union { cases, .. } = &declaration {
                        let mut distinct: Vec<u32> = cases.iter().map(|case| case.name).collect();
                        distinct.sort_unstable();
                        distinct.dedup();
                        for case in distinct {
                            derived_names = derived_names.saturating_add(length(name)).saturating_add(1 + length(case));
                        }
                    }
                    names.push((name, index as u32));
                }
            }
        }
    }
    Ok(Entries { names, references: checks.references, findings, derived_names })
}

/// A seq type's occurrence spells `?`, `+` or `*`, and its item is not itself a seq.
fn check_seq(bytes: &[u8], layout: &ImageLayout, ty: &Type) -> Result<(), String> {
    let Type::Seq { item, occurrence } = *ty else { return Ok(()) };
    if !(1..=3).contains(&occurrence) {
        return Err(format!("occurrence cell {occurrence} spells no suffix (1, 2 or 3 expected)"));
    }
    if layout.entry_cell(bytes, Table::Types, item, 0) == Some(kinds::ty::SEQ) {
        return Err(format!("item type {item} is itself a seq type"));
    }
    Ok(())
}

/// A `text` node names a type with a text form; presence operators and the `{}` pattern need
/// the module to list `occurrence-v1`.
fn check_node(bytes: &[u8], layout: &ImageLayout, index: usize, node: &Node, lists_occurrence: bool) -> IrResult<()> {
    let operator = match node {
        Node::Text { type_name, .. } => {
            // Compared as bytes (each name with a text form is short), read as text to say so.
            let text = layout.string_bytes(bytes, *type_name).unwrap_or(&[]);
            if kinds::TEXT_TYPE_NAMES.iter().any(|name| name.as_bytes() == text) {
                return Ok(());
            }
            let name = layout.string(bytes, *type_name).unwrap_or("");
            return Err(malformed(format_args!("node {index}: '{name}' is not a type with a text form")));
        }
        _ if lists_occurrence => return Ok(()),
        Node::Exists { .. } => "is an 'exists' node",
        Node::OptionalMember { .. } => "is an 'optionalMember' node",
        Node::Coalesce { .. } => "is a 'coalesce' node",
        Node::IfIs { arms, .. }
            if arms.iter().flat_map(|arm| &arm.patterns).any(|p| is_empty_pattern(bytes, layout, *p)) =>
        {
            "matches the '{}' pattern"
        }
        _ => return Ok(()),
    };
    Err(malformed(format_args!(
        "node {index} {operator}, which requires the feature '{}' the module does not list",
        kinds::OCCURRENCE_FEATURE
    )))
}

/// The `{}` pattern: an `array` node with no items, exactly the cells `[12, 0]`.
fn is_empty_pattern(bytes: &[u8], layout: &ImageLayout, node: u32) -> bool {
    let mut empty_array = [0u8; 8];
    empty_array[..4].copy_from_slice(&kinds::node::ARRAY.to_le_bytes());
    layout.entry(bytes, Table::Nodes, node) == Some(&empty_array[..])
}

/// The runtime ABI and the required features, all reported together.
fn check_runtime(bytes: &[u8], layout: &ImageLayout) -> IrResult<()> {
    let mut report = Report::new();
    let abi = layout.string(bytes, layout.module.abi).unwrap_or("");
    if abi != kinds::RUNTIME_ABI {
        report.add(codes::RUNTIME_ABI, &[abi], || {
            format!("NX IR runtime ABI '{abi}' is not supported; this runtime implements '{}'.", kinds::RUNTIME_ABI)
        });
    }
    let known = kinds::known_features(layout.schema);
    for feature in layout.module.features.iter(bytes) {
        // Compared as bytes (a known feature is short), read as text only for a message.
        let text = layout.string_bytes(bytes, feature).unwrap_or(&[]);
        if !known.iter().any(|known| known.as_bytes() == text) {
            if report.is_full() {
                break;
            }
            let feature = layout.string(bytes, feature).unwrap_or("");
            report.add(codes::REQUIRED_FEATURE, &[feature], || format!("Unsupported NX IR required feature '{feature}'."));
        }
    }
    if report.is_empty() {
        Ok(())
    } else {
        Err(IrError::from_diagnostics(report.into_diagnostics()))
    }
}

/// Duplicate declarations, undeclared self references and entrypoints of the wrong kind, all
/// reported together after what the node rules found; on success, the declaration index and the
/// references for linking.
fn check_module(bytes: &[u8], layout: ImageLayout, entries: Entries) -> IrResult<Validated> {
    let Entries { mut names, mut references, findings, .. } = entries;
    let mut report = findings.into_report();
    let text = |index: u32| layout.string_bytes(bytes, index).unwrap_or(&[]);
    let identity = layout.module.modules.get(bytes, 0).and_then(|name| layout.string(bytes, name)).unwrap_or("");

    // Names are compared by their strings' indices first and by text only once per distinct
    // index: many declarations (or references) could name one long string, and comparing its
    // text for each would take their number times its length. Among equal names the first
    // declared is the declaration, the later ones are the duplicates.
    names.sort_unstable();
    let mut duplicates: Vec<(u32, u32)> = Vec::new();
    names.dedup_by(|later, first| {
        let same = later.0 == first.0;
        if same {
            duplicates.push((later.1, later.0));
        }
        same
    });
    names.sort_by(|a, b| text(a.0).cmp(text(b.0)).then(a.1.cmp(&b.1)));
    duplicates.extend(names.windows(2).filter(|pair| text(pair[0].0) == text(pair[1].0)).map(|pair| (pair[1].1, pair[1].0)));
    duplicates.sort_unstable();
    for (_, name) in duplicates {
        if report.is_full() {
            break; // every later diagnostic is left out
        }
        let name = layout.string(bytes, name).unwrap_or("");
        report.add(codes::DUPLICATE_DECLARATION, &[identity, name], || {
            format!("Module '{identity}' declares '{name}' twice.")
        });
    }

    references.sort_unstable_by_key(|reference| (reference.slot, reference.name));
    references.dedup_by_key(|reference| (reference.slot, reference.name));
    references.sort_by(|a, b| a.slot.cmp(&b.slot).then_with(|| text(a.name).cmp(text(b.name))));
    references.dedup_by(|a, b| a.slot == b.slot && text(a.name) == text(b.name));
    for reference in references.iter().take_while(|reference| reference.slot == 0) {
        let wanted = text(reference.name);
        if names.binary_search_by(|(name, _)| text(*name).cmp(wanted)).is_err() {
            if report.is_full() {
                break; // every later diagnostic is left out
            }
            let name = layout.string(bytes, reference.name).unwrap_or("");
            report.add(codes::REFERENCE, &[identity, name], || {
                format!("Module '{identity}' references its own declaration '{name}', which it does not declare.")
            });
        }
    }

    let module = &layout.module;
    for (run, kind, what) in [
        (module.function_entrypoints, kinds::declaration::FUNCTION, "function"),
        (module.component_entrypoints, kinds::declaration::COMPONENT, "component"),
    ] {
        for index in run.iter(bytes) {
            if layout.entry_cell(bytes, Table::Declarations, index, 0) != Some(kind) {
                report.add(codes::ENTRYPOINT, &[], || format!("{what} entrypoint {index} is invalid."));
            }
        }
    }

    if !report.is_empty() {
        return Err(IrError::from_diagnostics(report.into_diagnostics()));
    }
    Ok(Validated { layout, by_name: names.into_boxed_slice(), references: references.into_boxed_slice() })
}

/// Compares string `index` of a validated image with `wanted`, byte by byte (which for UTF-8 is
/// code point order).
pub(crate) fn compare_name(bytes: &[u8], layout: &ImageLayout, index: u32, wanted: &str) -> Ordering {
    layout.string_bytes(bytes, index).unwrap_or(&[]).cmp(wanted.as_bytes())
}
