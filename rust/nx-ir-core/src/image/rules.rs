//! The node rules both schemas report after the runtime ABI and features, and the rules a
//! schema 6 image keeps beyond its layouts, each checked where the reference release checks it
//! (NX 0.7 for schema 5, 0.10 for schema 6):
//!
//! 1. Schema 6, with each node entry: a standard math or colour operation is one the schema
//!    assigns and has exactly its arity ([`check_arity`]).
//! 2. Schema 6, after every table: a module holding a colour node lists `standard-color-v1`,
//!    then one holding a math node lists `standard-math-v1` ([`Findings::check_features`]).
//! 3. After the runtime ABI and the features, all reported together and before the module-level
//!    rules' findings: per node, a spread (a `$spread` property, schema 6) needs
//!    `conditional-properties-v1`, then the `text` and `occurrence-v1` rules; then (schema 6) a
//!    `check` or `interval` node names a constrained type, and an `interval` node is a pattern of
//!    some `ifIs` arm ([`Findings::into_diagnostics`]).
//! 4. Schema 6, before those are reported and alone if it fails: a constrained type's base is a
//!    numeric primitive and its bounds are numbers that fit 64 bits
//!    ([`check_constrained_types`]).
//!
//! No reference release refuses a constrained type, `check` or interval pattern in a module that
//! does not list `constraints-v1`, so neither does this reader.

use super::decode::{decode_constant, decode_type, Table};
use super::layout::ImageLayout;
use super::malformed;
use crate::error::{IrResult, Report};
use crate::model::{kinds, Constant, Node, Type};
use std::collections::HashSet;

/// A standard operation's code and argument count, checked against the schema's tables.
pub(crate) fn check_arity(node: &Node) -> Result<(), String> {
    let (what, names, arities, op, args): (_, &[&str], &[u32], _, _) = match node {
        Node::StandardMath { op, args } => {
            ("math", &kinds::STANDARD_MATH_OPERATIONS, &kinds::STANDARD_MATH_ARITIES, *op, args)
        }
        Node::StandardColor { op, args } => {
            ("colour", &kinds::STANDARD_COLOR_OPERATIONS, &kinds::STANDARD_COLOR_ARITIES, *op, args)
        }
        _ => return Ok(()),
    };
    let (Some(name), Some(&arity)) = (names.get(op as usize), arities.get(op as usize)) else {
        return Err(format!("standard {what} operation {op} is not one the schema assigns"));
    };
    if args.len() as u64 != u64::from(arity) {
        return Err(format!("standard {what} operation '{name}' takes {arity} argument(s), not {}", args.len()));
    }
    Ok(())
}

/// What the pass over the node table found for the rules checked after it.
pub(crate) struct Findings {
    schema_6: bool,
    lists_spreads: bool,
    /// The first math and colour nodes.
    math: Option<usize>,
    color: Option<usize>,
    /// Per node, in node order: spreads, `text` names and `occurrence-v1`.
    nodes: Report,
    /// `check` and `interval` nodes that name a type that is not constrained, in node order.
    constraints: Report,
    /// Every `interval` node, and every node some `ifIs` arm lists as a pattern.
    intervals: Vec<usize>,
    patterns: HashSet<u32>,
}

fn lists(bytes: &[u8], layout: &ImageLayout, feature: &str) -> bool {
    layout.module.features.iter(bytes).any(|index| layout.string_bytes(bytes, index) == Some(feature.as_bytes()))
}

impl Findings {
    pub fn new(bytes: &[u8], layout: &ImageLayout) -> Findings {
        Findings {
            schema_6: layout.schema >= kinds::SCHEMA_6,
            // Schema 5 has no spreads: a `$spread` property is a property like any other.
            lists_spreads: layout.schema < kinds::SCHEMA_6
                || lists(bytes, layout, kinds::CONDITIONAL_PROPERTIES_FEATURE),
            math: None,
            color: None,
            nodes: Report::new(),
            constraints: Report::new(),
            intervals: Vec::new(),
            patterns: HashSet::new(),
        }
    }

    /// Notes node `index` (decoded, its operands checked) and what the `text` and
    /// `occurrence-v1` rules said of it (`rule`).
    pub fn note(&mut self, bytes: &[u8], layout: &ImageLayout, index: usize, node: &Node, rule: IrResult<()>) {
        let props = match node {
            Node::Record { props, .. }
            | Node::Component { props, .. }
            | Node::Element { props, .. }
            | Node::UnionCase { props, .. }
            | Node::NamedCall { args: props, .. } => props.as_slice(),
            _ => &[],
        };
        let spreads =
            || props.iter().any(|prop| layout.string_bytes(bytes, prop.name) == Some(kinds::SPREAD_PROPERTY.as_bytes()));
        if !self.lists_spreads && spreads() {
            self.nodes.extend(
                malformed(format_args!(
                    "node {index} spreads a record into its properties, which requires the feature '{}' the module \
                     does not list",
                    kinds::CONDITIONAL_PROPERTIES_FEATURE
                ))
                .into_diagnostics(),
            );
        }
        if let Err(error) = rule {
            self.nodes.extend(error.into_diagnostics());
        }
        let named_type = match node {
            Node::StandardMath { .. } => {
                self.math.get_or_insert(index);
                None
            }
            Node::StandardColor { .. } => {
                self.color.get_or_insert(index);
                None
            }
            // Only an interval node needs them, and only schema 6 has those.
            Node::IfIs { arms, .. } if self.schema_6 => {
                self.patterns.extend(arms.iter().flat_map(|arm| arm.patterns.iter().copied()));
                None
            }
            Node::Check { ty, .. } => Some(*ty),
            Node::Interval { ty } => {
                self.intervals.push(index);
                Some(*ty)
            }
            _ => None,
        };
        if let Some(ty) = named_type {
            if layout.entry_cell(bytes, Table::Types, ty, 0) != Some(kinds::ty::CONSTRAINED) {
                self.constraints.extend(
                    malformed(format_args!("node {index} names type {ty}, which is not a constrained type")).into_diagnostics(),
                );
            }
        }
    }

    /// A module holding a colour node lists `standard-color-v1`, then one holding a math node
    /// lists `standard-math-v1`.
    pub fn check_features(&self, bytes: &[u8], layout: &ImageLayout) -> IrResult<()> {
        for (first, what, feature) in [
            (self.color, "standardColor", kinds::STANDARD_COLOR_FEATURE),
            (self.math, "standardMath", kinds::STANDARD_MATH_FEATURE),
        ] {
            if let Some(index) = first {
                if !lists(bytes, layout, feature) {
                    return Err(malformed(format_args!(
                        "node {index} is a '{what}' node, which requires the feature '{feature}' the module does \
                         not list"
                    )));
                }
            }
        }
        Ok(())
    }

    /// Everything found, in the order it is reported.
    pub fn into_report(self) -> Report {
        let mut report = Report::new();
        report.extend(self.nodes.into_diagnostics());
        report.extend(self.constraints.into_diagnostics());
        for index in self.intervals {
            if !self.patterns.contains(&(index as u32)) {
                report.extend(
                    malformed(format_args!("node {index} is an 'interval' node outside an 'ifIs' pattern list"))
                        .into_diagnostics(),
                );
            }
        }
        report
    }

    /// Whether the node diagnostics are full: a later node's rule need not be checked.
    pub fn is_full(&self) -> bool {
        self.nodes.is_full()
    }
}

/// Every constrained type narrows a numeric primitive (`int`, `int32`, `int64`, `float32`,
/// `float64`), and each of its bounds is a number that fits 64 bits. The first failure, in type
/// order, is the error.
pub(crate) fn check_constrained_types(bytes: &[u8], layout: &ImageLayout) -> IrResult<()> {
    let schema = layout.schema;
    if schema < kinds::SCHEMA_6 {
        return Ok(());
    }
    let decoded_type = |index: u32| layout.entry(bytes, Table::Types, index).and_then(|cells| decode_type(cells, schema, None).ok());
    // Each constant checked once, however many types bound by it: a long string of digits with
    // leading zeros fits 64 bits, and reading it for each type would take their number times its
    // length.
    let mut checked = vec![false; layout.table(Table::Constants).count];
    for index in 0..layout.table(Table::Types).count as u32 {
        let Some(Type::Constrained { base, low, high, .. }) = decoded_type(index) else { continue };
        let base_name = match decoded_type(base) {
            Some(Type::Primitive { name }) => layout
                .string_bytes(bytes, name)
                .filter(|name| kinds::ty::CONSTRAINABLE.iter().any(|known| known.as_bytes() == *name)),
            _ => None,
        };
        if base_name.is_none() {
            return Err(malformed(format_args!(
                "type {index}: a constrained type's base (type {base}) must be int, int32, int64, float32 or float64"
            )));
        }
        for bound in [low, high].into_iter().flatten() {
            match checked.get_mut(bound as usize) {
                Some(done) if *done => continue,
                Some(done) => *done = true,
                None => {}
            }
            let constant =
                layout.entry(bytes, Table::Constants, bound).and_then(|cells| decode_constant(cells, schema, None).ok());
            if let Some(Constant::BigInt { digits }) = constant {
                let digits = layout.string(bytes, digits).unwrap_or("");
                if digits.parse::<i64>().is_err() {
                    return Err(malformed(format_args!(
                        "type {index}: the bound {digits} (constant {bound}) does not fit 64 bits"
                    )));
                }
            }
        }
    }
    Ok(())
}
