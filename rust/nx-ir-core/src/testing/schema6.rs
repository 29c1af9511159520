//! Schema 6 test material shared by this crate's tests and the oracle: the sample texts of
//! `tests/schema6/` (our own NX, written as explain text) and reader cases built from them, each
//! with the diagnostic codes a reference runtime gives it. `tests/schema6.rs` holds nx-ir-core to
//! those codes; `oracle/tests/reader_agreement.rs` holds the reference runtimes to them.

use crate::assemble::{assemble, AssembleOptions};
use crate::error::codes;
use crate::model::{kinds, Constant, Decl, Module, Node, Type};
use crate::writer::encode;

/// `(name, explain text)` of every schema 6 sample: together they use every schema 6 node, type,
/// feature, a spread and a component's state record.
pub const SAMPLES: [(&str, &str); 4] = [
    ("booking", include_str!("../../tests/schema6/booking.nxir.txt")),
    ("geometry", include_str!("../../tests/schema6/geometry.nxir.txt")),
    ("palette", include_str!("../../tests/schema6/palette.nxir.txt")),
    ("settings", include_str!("../../tests/schema6/settings.nxir.txt")),
];

/// A module text whose one declaration is the value `v: ty = body` (with `requires features`
/// when there are any).
pub fn value_text(features: &str, ty: &str, body: &str) -> String {
    let requires = if features.is_empty() { String::new() } else { format!("requires {features}\n") };
    format!("module m.nx fingerprint 7\n{requires}entrypoints functions [] components []\n\nvalue v: {ty} =\n  {body}\n")
}

/// Small texts, each showing a schema 6 construct in one of the forms the explainer writes it
/// in (the samples show them in realistic programs).
pub fn construct_texts() -> Vec<String> {
    let mut texts: Vec<String> = [
        "in 1..=10",
        "in 0..10",
        "> 0 && <= 5",
        "> 0 && < 5",
        ">= -3",
        "< 100",
        "<= 7",
        "",
    ]
    .iter()
    .map(|interval| value_text("constraints-v1", &format!("int where {interval}"), "1"))
    .collect();
    texts.extend([
        value_text("", "float64 where > 0.0 && < 1.0", "0.5"),
        value_text("", "float32 where in -1.5..=inf", "0.5"),
        value_text("", "int64 where in -9007199254740993..=9007199254740993", "0"),
        value_text("", "(int64 where >= 0)*", "[1, 2]"),
        value_text("", "(float64 where <= 2.5)?", "{}"),
        value_text("constraints-v1", "int where in 1..=3", "(check value v: 2 as int where in 1..=3)"),
        value_text(
            "constraints-v1",
            "int",
            "(\n    check a site with spaces:\n    if true then\n      1\n    else\n      2\n    as int where >= 0\n  )",
        ),
        value_text(
            "constraints-v1",
            "string",
            "if 4 is\n    in 1..=3 | > 10 =>\n      \"a\"\n    < 0.5 =>\n      \"b\"\n    else =>\n      \"c\"",
        ),
        value_text("standard-math-v1", "float64", "math.clamp(math.sqrt(2.0), 0.0, 1.0)"),
        value_text(
            "standard-color-v1",
            "string",
            "color.toHex(color.mix(color.parse(\"#fff\"), color.rgb(0, 0, 0), 0.5, \"oklab\"))",
        ),
        "module m.nx fingerprint 7\nrequires conditional-properties-v1\nentrypoints functions [] components []\n\n\
         record R\n  a: int = 1\n  b: int = 2\n\nvalue base: R =\n  <R a=3 />\n\nvalue v: R =\n  <R b=5 ...=base a=4 />\n"
            .to_string(),
        "module m.nx fingerprint 7\nentrypoints functions [] components [C]\n\n\
         record C.State\n  n: int required\n\ncomponent C state C.State\n  state\n    n: int = 0\n"
            .to_string(),
        "module m.nx fingerprint 7\nentrypoints functions [f] components []\n\n\
         function f(n?: (int where > 0), m?: (int where < 0)+, g: <function k?:(int where >= 1) />: int): int where >= 0 (optional result) =\n  n\n"
            .to_string(),
    ]);
    texts
}

/// Sample `name` assembled as schema 6.
pub fn sample(name: &str) -> Module {
    let (_, text) = SAMPLES.iter().find(|(sample, _)| *sample == name).expect("a sample of that name");
    assemble(text, &AssembleOptions::default()).expect("the sample assembles")
}

/// An image and the diagnostic codes its prepare gives, in order (none: it is accepted).
pub struct ReaderCase {
    pub name: &'static str,
    /// The schema the reference release that judges it reads.
    pub schema: u32,
    pub image: Vec<u8>,
    pub codes: Vec<&'static str>,
}

fn string(module: &mut Module, text: &str) -> u32 {
    match module.strings.iter().position(|s| s == text) {
        Some(at) => at as u32,
        None => {
            module.strings.push(text.to_string());
            module.strings.len() as u32 - 1
        }
    }
}

fn first_node(module: &Module, wanted: impl Fn(&Node) -> bool) -> usize {
    module.nodes.iter().position(wanted).expect("the sample holds such a node")
}

fn first_type(module: &Module, wanted: impl Fn(&Type) -> bool) -> usize {
    module.types.iter().position(wanted).expect("the sample holds such a type")
}

/// A type inserted first in the table, so that every other type may name it.
fn first(module: &mut Module, ty: Type) -> u32 {
    module.types.insert(0, ty);
    shift_types(module);
    0
}

fn primitive(module: &mut Module, name: &str) -> u32 {
    let name = string(module, name);
    first(module, Type::Primitive { name })
}

/// After a type is inserted at index 0: every type operand names the type it named before.
fn shift_types(module: &mut Module) {
    let up = |ty: &mut u32| *ty += 1;
    for ty in module.types.iter_mut().skip(1) {
        match ty {
            Type::Seq { item, .. } => up(item),
            Type::Function { result, params } => {
                up(result);
                params.iter_mut().for_each(|p| up(&mut p.ty));
            }
            Type::AnyFunction { result } => up(result),
            Type::Constrained { base, .. } => up(base),
            Type::Primitive { .. } | Type::Nominal(_) => {}
        }
    }
    for node in &mut module.nodes {
        match node {
            Node::Check { ty, .. } | Node::Interval { ty } => up(ty),
            _ => {}
        }
    }
    for decl in &mut module.declarations {
        let fields = match decl {
            Decl::Function { params, result, .. } => {
                if let Some(result) = result {
                    up(result);
                }
                params
            }
            Decl::Value { ty, .. } => {
                if let Some(ty) = ty {
                    up(ty);
                }
                continue;
            }
            Decl::Record { fields, .. } => fields,
            Decl::Component { props, state, .. } => {
                props.iter_mut().chain(state.iter_mut()).for_each(|f| up(&mut f.ty));
                continue;
            }
            Decl::Union { cases, .. } => {
                cases.iter_mut().flat_map(|c| c.fields.iter_mut()).for_each(|f| up(&mut f.ty));
                continue;
            }
            Decl::TypeAlias { .. } => continue,
        };
        fields.iter_mut().for_each(|f| up(&mut f.ty));
    }
}

/// Every reader case: the samples as they are, then one rule broken (or two, to pin the order in
/// which they are reported) per case. The codes are those `nx-ir-runtime` 0.10.0 (schema 6) or
/// 0.7.0 (schema 5) gives each image.
pub fn reader_cases() -> Vec<ReaderCase> {
    let malformed = codes::MALFORMED;
    let mut cases = Vec::new();
    let mut case = |name: &'static str, module: Module, codes: Vec<&'static str>| {
        cases.push(ReaderCase { name, schema: module.schema, image: encode(&module), codes });
    };
    for (name, _) in SAMPLES {
        case(name, sample(name), vec![]);
    }

    // Standard operations: codes and arities, then the features.
    let math = |m: &Module| first_node(m, |n| matches!(n, Node::StandardMath { .. }));
    let color = |m: &Module| first_node(m, |n| matches!(n, Node::StandardColor { .. }));
    let mut m = sample("geometry");
    let at = math(&m);
    if let Node::StandardMath { args, .. } = &mut m.nodes[at] {
        args.push(args[0]);
    }
    case("a math operation with one argument too many", m, vec![malformed]);
    let mut m = sample("geometry");
    let at = math(&m);
    if let Node::StandardMath { op, .. } = &mut m.nodes[at] {
        *op = kinds::STANDARD_MATH_OPERATIONS.len() as u32;
    }
    case("a math operation the schema does not assign", m, vec![malformed]);
    let mut m = sample("palette");
    let at = color(&m);
    if let Node::StandardColor { args, .. } = &mut m.nodes[at] {
        args.pop();
    }
    case("a colour operation with one argument too few", m, vec![malformed]);
    let mut m = sample("palette");
    let at = color(&m);
    if let Node::StandardColor { op, .. } = &mut m.nodes[at] {
        *op = kinds::STANDARD_COLOR_OPERATIONS.len() as u32;
    }
    case("a colour operation the schema does not assign", m, vec![malformed]);
    let mut m = sample("geometry");
    m.features.clear();
    case("math without standard-math-v1", m, vec![malformed]);
    let mut m = sample("palette");
    m.features.clear();
    case("colour without standard-color-v1", m, vec![malformed]);
    let mut m = sample("geometry");
    m.features = vec![string(&mut m, "time-travel-v1")];
    case("math without its feature, before an unknown feature", m, vec![malformed]);

    // Spreads: one finding per property list that spreads.
    let spreads = {
        let m = sample("settings");
        let spread = m.strings.iter().position(|s| s == kinds::SPREAD_PROPERTY).map(|at| at as u32);
        let spreads = |props: &[crate::model::Prop]| props.iter().any(|p| Some(p.name) == spread);
        m.nodes
            .iter()
            .filter(|n| match n {
                Node::Record { props, .. }
                | Node::UnionCase { props, .. }
                | Node::Element { props, .. }
                | Node::Component { props, .. }
                | Node::NamedCall { args: props, .. } => spreads(props),
                _ => false,
            })
            .count()
    };
    let mut m = sample("settings");
    m.features.clear();
    case("a spread without conditional-properties-v1", m, vec![malformed; spreads]);
    let mut m = sample("settings");
    m.features = vec![string(&mut m, "time-travel-v1")];
    case("an unknown feature, before a spread without its feature", m, vec![codes::REQUIRED_FEATURE]);
    let mut m = sample("settings");
    m.features.clear();
    let copy = m.declarations[0].clone();
    m.declarations.push(copy);
    let mut both = vec![malformed; spreads];
    both.push(codes::DUPLICATE_DECLARATION);
    case("a spread without its feature, with a duplicate declaration", m, both);

    // Constrained types, checks and interval patterns.
    let constrained = |m: &Module| first_type(m, |t| matches!(t, Type::Constrained { .. }));
    let mut m = sample("booking");
    m.features.clear();
    case("constraints without constraints-v1 (no reference release refuses them)", m, vec![]);
    let mut m = sample("booking");
    let text = primitive(&mut m, "string");
    let at = constrained(&m);
    if let Type::Constrained { base, .. } = &mut m.types[at] {
        *base = text;
    }
    case("a constrained string", m, vec![malformed]);
    let mut m = sample("booking");
    let name = string(&mut m, "Booking");
    let nominal = first(&mut m, Type::Nominal(crate::model::Ref { slot: 0, name }));
    let at = constrained(&m);
    if let Type::Constrained { base, .. } = &mut m.types[at] {
        *base = nominal;
    }
    case("a constrained record", m, vec![malformed]);
    let mut m = sample("booking");
    let inner = m.types[constrained(&m)].clone();
    first(&mut m, inner);
    primitive(&mut m, "int");
    // Types 0 (`int`) and 1 (constrained, of `int`) come first; the sample's constrained type
    // now narrows type 1.
    if let Type::Constrained { base, .. } = &mut m.types[1] {
        *base = 0;
    }
    let at = 2 + m.types[2..].iter().position(|t| matches!(t, Type::Constrained { .. })).expect("one");
    if let Type::Constrained { base, .. } = &mut m.types[at] {
        *base = 1;
    }
    case("a constrained constrained type", m, vec![malformed]);
    let mut m = sample("booking");
    let digits = string(&mut m, "99999999999999999999");
    m.constants.push(Constant::BigInt { digits });
    let wide = m.constants.len() as u32 - 1;
    let at = constrained(&m);
    if let Type::Constrained { low, .. } = &mut m.types[at] {
        *low = Some(wide);
    }
    case("a bound wider than 64 bits", m, vec![malformed]);
    let mut m = sample("booking");
    let int = primitive(&mut m, "int");
    let at = first_node(&m, |n| matches!(n, Node::Check { .. }));
    if let Node::Check { ty, .. } = &mut m.nodes[at] {
        *ty = int;
    }
    case("a check against a type that is not constrained", m, vec![malformed]);
    let mut m = sample("booking");
    let int = primitive(&mut m, "int");
    let at = first_node(&m, |n| matches!(n, Node::Interval { .. }));
    if let Node::Interval { ty } = &mut m.nodes[at] {
        *ty = int;
    }
    case("an interval pattern of a type that is not constrained", m, vec![malformed]);
    let mut m = sample("booking");
    let ty = constrained(&m) as u32;
    m.nodes.push(Node::Interval { ty });
    case("an interval node outside a pattern list", m, vec![malformed]);
    let mut m = sample("booking");
    let int = primitive(&mut m, "int");
    let ty = constrained(&m) as u32;
    m.nodes.push(Node::Interval { ty });
    let at = first_node(&m, |n| matches!(n, Node::Check { .. }));
    if let Node::Check { ty, .. } = &mut m.nodes[at] {
        *ty = int;
    }
    case("a check and an interval node both astray, reported together", m, vec![malformed, malformed]);
    let mut m = sample("booking");
    let ty = constrained(&m) as u32;
    m.nodes.push(Node::Interval { ty });
    let text = primitive(&mut m, "string");
    let at = constrained(&m);
    if let Type::Constrained { base, .. } = &mut m.types[at] {
        *base = text;
    }
    case("a constrained string is reported alone, before a node astray", m, vec![malformed]);

    // Schema 5 is NX 0.7's: none of it.
    let mut m = sample("geometry");
    m.schema = kinds::SCHEMA_5;
    case("schema 5 with a math node", m, vec![malformed]);
    let mut m = sample("booking");
    m.schema = kinds::SCHEMA_5;
    m.features.clear();
    case("schema 5 with a constrained type", m, vec![malformed]);
    let mut m = sample("settings");
    m.schema = kinds::SCHEMA_5;
    m.features.clear();
    case("schema 5 with a component's state record", m, vec![malformed]);
    let mut m = sample("settings");
    m.schema = kinds::SCHEMA_5;
    m.features.clear();
    if let Some(Decl::Component { state_record, .. }) =
        m.declarations.iter_mut().find(|d| matches!(d, Decl::Component { .. }))
    {
        *state_record = None;
    }
    case("schema 5 with a spread but no schema 6 feature listed", m, vec![]);
    let mut m = crate::prelude::prelude_model(kinds::SCHEMA_5).expect("the prelude assembles");
    let feature = string(&mut m, kinds::CONSTRAINTS_FEATURE);
    m.features.push(feature);
    case("schema 5 listing constraints-v1", m, vec![codes::REQUIRED_FEATURE]);
    cases
}
