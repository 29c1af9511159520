//! Schema 6 in the format layer: the reader's rules (codes from `nx-ir-runtime` 0.10.0, and
//! 0.7.0 for schema 5; `oracle/tests/reader_agreement.rs` runs the same cases through them),
//! round trips of the samples in `tests/schema6/`, the text of every new construct, the assembler
//! refusing schema 6 text as schema 5, the built-in preludes, linking and the declarations view.
//! (`schema6_programs.rs` holds the evaluation of schema 6 to the reference runtime's outcomes.)

use nx_ir_core::assemble::{assemble, assemble_image, AssembleOptions};
use nx_ir_core::codes;
use nx_ir_core::declarations::{BoundView, DeclarationKind, Number, QualifiedName, TypeView};
use nx_ir_core::explain::{explain_image, explain_module};
use nx_ir_core::image::PreparedModule;
use nx_ir_core::link::{LinkOptions, Program};
use nx_ir_core::model::{kinds, Node, Type};
use nx_ir_core::prelude::{builtin, prelude_model, PRELUDE_IDENTITY, PRELUDE_TEXT_6};
use nx_ir_core::testing::schema6::{construct_texts, reader_cases, sample, value_text, SAMPLES};
use nx_ir_core::writer::encode;
use sha2::{Digest, Sha256};
use std::sync::Arc;

fn schema(schema: u32) -> AssembleOptions {
    AssembleOptions { schema, ..AssembleOptions::default() }
}

fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|byte| format!("{byte:02x}")).collect()
}

#[test]
fn the_reader_gives_each_case_the_reference_codes() {
    let cases = reader_cases();
    assert!(cases.len() > 25);
    for case in cases {
        let codes: Vec<&str> = match PreparedModule::from_slice(&case.image) {
            Ok(module) => {
                assert_eq!(module.schema(), case.schema, "{}", case.name);
                Vec::new()
            }
            Err(error) => error.diagnostics.iter().map(|d| d.code).collect(),
        };
        assert_eq!(codes, case.codes, "{}", case.name);
    }
}

#[test]
fn refusals_name_what_is_wrong() {
    let message = |name: &str| {
        let case = reader_cases().into_iter().find(|case| case.name == name).expect("a case");
        PreparedModule::from_slice(&case.image).expect_err("refused").message().to_string()
    };
    assert!(message("a math operation with one argument too many").contains("'hypot' takes 2 argument(s), not 3"));
    assert!(message("a colour operation the schema does not assign").contains("standard colour operation 37"));
    assert!(message("math without standard-math-v1").contains("'standard-math-v1'"));
    assert!(message("a spread without conditional-properties-v1").contains("'conditional-properties-v1'"));
    assert!(message("a constrained string").contains("must be int, int32, int64, float32 or float64"));
    assert!(message("a bound wider than 64 bits").contains("99999999999999999999"));
    assert!(message("an interval node outside a pattern list").contains("outside an 'ifIs' pattern list"));
    assert!(message("a check against a type that is not constrained").contains("not a constrained type"));
    assert!(message("schema 5 with a math node").contains("kind 26 is not one the schema assigns"));
}

#[test]
fn samples_round_trip_text_model_bytes_model_text() {
    for (name, text) in SAMPLES {
        let model = assemble(text, &AssembleOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(model.schema, 6);
        assert_eq!(explain_module(&model).expect("explains"), text, "{name}");
        let image = encode(&model);
        assert_eq!(&image[..8], b"NXIR\x06\0\0\0", "{name}: magic and schema");
        let module = PreparedModule::from_slice(&image).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(module.schema(), 6);
        assert_eq!(module.to_model(), model, "{name}: bytes decode to the model they were written from");
        assert_eq!(encode(&module.to_model()), image);
        assert_eq!(explain_image(&image).expect("explains"), text, "{name}");
    }
}

#[test]
fn the_samples_hold_every_schema_6_construct() {
    let models: Vec<_> = SAMPLES.iter().map(|(name, _)| sample(name)).collect();
    let nodes: Vec<&Node> = models.iter().flat_map(|m| &m.nodes).collect();
    for kind in [kinds::node::STANDARD_MATH, kinds::node::STANDARD_COLOR, kinds::node::CHECK, kinds::node::INTERVAL] {
        assert!(nodes.iter().any(|n| n.kind() == kind), "node kind {kind}");
    }
    let math: Vec<u32> = nodes.iter().filter_map(|n| match n { Node::StandardMath { op, .. } => Some(*op), _ => None }).collect();
    assert!((0..22).all(|op| math.contains(&op)), "every math operation");
    let color: Vec<u32> = nodes.iter().filter_map(|n| match n { Node::StandardColor { op, .. } => Some(*op), _ => None }).collect();
    assert!((0..37).all(|op| color.contains(&op)), "every colour operation");
    assert!(models.iter().flat_map(|m| &m.types).any(|t| t.kind() == kinds::ty::CONSTRAINED));
    let features: Vec<&str> = models.iter().flat_map(|m| m.features.iter().map(|f| m.string(*f))).collect();
    for feature in &kinds::KNOWN_FEATURES_6[8..] {
        assert!(features.contains(feature), "{feature}");
    }
    let settings = sample("settings");
    assert!(settings.strings.iter().any(|s| s == kinds::SPREAD_PROPERTY));
    assert!(settings.declarations.iter().any(|d| matches!(d, nx_ir_core::model::Decl::Component { state_record: Some(_), .. })));
}

fn value(features: &str, ty: &str, body: &str) -> String {
    value_text(features, ty, body)
}

fn round_trip(text: &str) -> nx_ir_core::model::Module {
    let model = assemble(text, &AssembleOptions::default()).unwrap_or_else(|e| panic!("{text}\n{e}"));
    let image = encode(&model);
    PreparedModule::from_slice(&image).unwrap_or_else(|e| panic!("{text}\n{e}"));
    assert_eq!(explain_image(&image).expect("explains"), text);
    model
}

#[test]
fn constrained_types_are_written_as_their_constraint() {
    // (text of the interval, low, high, flags): every shape the explainer writes.
    let cases: [(&str, Option<i64>, Option<i64>, u32); 7] = [
        ("in 1..=10", Some(1), Some(10), 0),
        ("in 0..10", Some(0), Some(10), 2),
        ("> 0 && <= 5", Some(0), Some(5), 1),
        ("> 0 && < 5", Some(0), Some(5), 3),
        (">= -3", Some(-3), None, 0),
        ("< 100", None, Some(100), 2),
        ("<= 7", None, Some(7), 0),
    ];
    for (interval, low, high, flags) in cases {
        let model = round_trip(&value("constraints-v1", &format!("int where {interval}"), "1"));
        let Some(Type::Constrained { base, low: l, high: h, flags: f }) = model.types.last() else { panic!("{interval}") };
        assert_eq!(model.types[*base as usize], Type::Primitive { name: model.strings.iter().position(|s| s == "int").unwrap() as u32 });
        let constant = |index: &Option<u32>| index.map(|i| match model.constants[i as usize] {
            nx_ir_core::model::Constant::Int(v) => v,
            other => panic!("{other:?}"),
        });
        assert_eq!((constant(l), constant(h), *f), (low, high, flags), "{interval}");
    }
    for text in construct_texts() {
        round_trip(&text);
    }
    // Both ends open: nothing after `where`.
    let model = round_trip(&value("", "int where ", "1"));
    assert!(matches!(model.types.last(), Some(Type::Constrained { low: None, high: None, flags: 0, .. })));
}

#[test]
fn checks_intervals_math_colour_spreads_and_state_records_are_written_as_explained() {
    let model = round_trip(&value(
        "constraints-v1",
        "string",
        "if 4 is\n    in 1..=3 | > 10 =>\n      \"a\"\n    < 0.5 =>\n      \"b\"\n    else =>\n      \"c\"",
    ));
    let bases: Vec<String> = model
        .nodes
        .iter()
        .filter_map(|n| match n {
            Node::Interval { ty } => match model.types[*ty as usize] {
                Type::Constrained { base, .. } => match model.types[base as usize] {
                    Type::Primitive { name } => Some(model.string(name).to_string()),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(bases, ["int", "int", "float64"], "an interval pattern's base follows its bounds");
    let text = "module m.nx fingerprint 7\nrequires conditional-properties-v1\nentrypoints functions [] components []\n\n\
                record R\n  a: int = 1\n  b: int = 2\n\nvalue base: R =\n  <R a=3 />\n\nvalue v: R =\n  <R b=5 ...=base a=4 />\n";
    let model = round_trip(text);
    let Some(Node::Record { props, .. }) = model.nodes.last() else { panic!() };
    let names: Vec<&str> = props.iter().map(|p| model.string(p.name)).collect();
    assert_eq!(names, ["b", "$spread", "a"], "a list with a spread keeps its written order");
    let text = "module m.nx fingerprint 7\nentrypoints functions [] components [C]\n\n\
                record C.State\n  n: int required\n\ncomponent C state C.State\n  state\n    n: int = 0\n";
    let model = round_trip(text);
    let Some(nx_ir_core::model::Decl::Component { state_record: Some(record), .. }) = model.declarations.last() else { panic!() };
    assert_eq!((record.slot, model.string(record.name)), (0, "C.State"));
}

#[test]
fn a_binary_operation_on_a_local_named_check_is_not_a_check() {
    let text = "module m.nx fingerprint 7\nentrypoints functions [f] components []\n\n\
                function f(check: int) =\n  (check add 1)\n";
    let model = round_trip(text);
    assert!(matches!(model.nodes.last(), Some(Node::Binary { .. })));
}

#[test]
fn math_and_colour_are_calls_where_a_local_or_declaration_has_the_name() {
    let text = "module m.nx fingerprint 7\nentrypoints functions [f] components []\n\n\
                function f(math: object) =\n  math.sin(1)\n";
    let model = assemble(text, &schema(5)).expect("a call of a member, in schema 5 too");
    assert!(matches!(model.nodes.last(), Some(Node::Call { .. })));
    let unknown = value("standard-math-v1", "float64", "math.sine(1.0)");
    let error = assemble(&unknown, &AssembleOptions::default()).expect_err("refused");
    assert_eq!(error.code(), codes::ASSEMBLE);
    assert!(error.message().contains("`math.sine` is not a standard math operation"), "{}", error.message());
}

#[test]
fn schema_5_text_is_refused_what_schema_6_added_naming_it_and_its_line() {
    let cases = [
        (value("", "int where >= 0", "1"), "line 4, column 14: a constrained type (`where`) is schema 6 (feature constraints-v1)"),
        (value("", "int", "(check v: 1 as int)"), "line 5, column 3: a `check` is schema 6 (feature constraints-v1)"),
        (value("", "string", "if 1 is\n    in 0..=1 =>\n      \"a\""), "line 6, column 5: an interval pattern is schema 6"),
        (value("", "float64", "math.sqrt(2.0)"), "line 5, column 3: `math.sqrt(...)` (a standard math operation) is schema 6 (feature standard-math-v1)"),
        (value("", "string", "color.toHex(1)"), "line 5, column 3: `color.toHex(...)` (a standard colour operation) is schema 6 (feature standard-color-v1)"),
        (value("", "R", "<R ...=w />").replace("value v", "record R\n  a: int\n\nvalue w: R =\n  <R />\n\nvalue v"), "line 11, column 10: a spread (`...=`) is schema 6 (feature conditional-properties-v1)"),
        (
            "module m.nx fingerprint 7\nentrypoints functions [] components []\n\nrecord C.State\n  n: int\n\ncomponent C state C.State\n".to_string(),
            "line 7, column 19: a component's state record is schema 6",
        ),
    ];
    for (text, expected) in cases {
        assemble(&text, &schema(6)).unwrap_or_else(|e| panic!("as schema 6: {e}\n{text}"));
        let error = assemble(&text, &schema(5)).expect_err("refused as schema 5");
        assert_eq!(error.code(), codes::ASSEMBLE);
        assert!(error.message().contains(expected), "{}\nexpected: {expected}", error.message());
        assert!(error.message().ends_with("but the text is assembled as schema 5"), "{}", error.message());
    }
    let error = assemble(&value("", "int", "1"), &schema(7)).expect_err("no schema 7");
    assert_eq!(error.code(), codes::ASSEMBLE);
}

#[test]
fn the_default_schema_is_6_and_5_writes_what_it_wrote() {
    let text = value("", "int", "1");
    assert_eq!(AssembleOptions::default().schema, 6);
    let six = assemble_image(&text, &AssembleOptions::default()).expect("assembles");
    let five = assemble_image(&text, &schema(5)).expect("assembles");
    assert_eq!((six[4], five[4]), (6, 5));
    assert_eq!(six[5..], five[5..], "nothing else differs without a component");
}

#[test]
fn each_schema_has_its_built_in_prelude() {
    let five = builtin(5).expect("schema 5 prelude");
    let six = builtin(6).expect("schema 6 prelude");
    assert_eq!((five.schema(), six.schema()), (5, 6));
    assert_eq!(five.bytes().len(), 604);
    assert_eq!(sha256(five.bytes()), "4d9bb57822e960bff2be8ecd34cb08dbd4f81104be4fa2cd8ded4b990ead2369");
    // nx-ir-runtime 0.10.0's src/prelude.nxir.
    assert_eq!(six.bytes().len(), 604);
    assert_eq!(sha256(six.bytes()), "12831c0b5f969c41b09337b0ced69812482fef1d623b20c311300562d71982ed");
    assert_eq!(six.fingerprint(), 3805895034114390176);
    assert_eq!(six.version(), "1");
    assert_eq!(explain_image(six.bytes()).expect("explains"), PRELUDE_TEXT_6);
    assert!(Arc::ptr_eq(&builtin(6).unwrap(), &six), "prepared once, shared");
    assert_eq!(builtin(4).expect_err("none").code(), codes::PRELUDE_IMAGE);
}

/// A module `identity` of `schema` with a function `f` returning a `Range` of the prelude.
fn range_user(identity: &str, schema: u32, links: &str) -> Arc<PreparedModule> {
    let text = format!(
        "module {identity} fingerprint 1\nlinks @nx/prelude.nx version \"1\" fingerprint 1\n{links}\
         entrypoints functions [f] components []\n\nfunction f() =\n  <@nx/prelude.nx:Range end=3 endInclusive=false start=0 />\n"
    );
    let options = AssembleOptions { schema, ..AssembleOptions::default() };
    Arc::new(PreparedModule::from_vec(assemble_image(&text, &options).expect("assembles")).expect("prepares"))
}

#[test]
fn a_program_gets_the_prelude_of_its_entry_schema() {
    for schema in [5, 6] {
        let program = Program::prepare_self_contained(range_user("main.nx", schema, "")).expect("links");
        let prelude = program.module(PRELUDE_IDENTITY).expect("the prelude");
        assert!(Arc::ptr_eq(prelude, &builtin(schema).unwrap()));
    }
}

#[test]
fn a_program_mixing_schemas_is_refused_naming_each_module() {
    let catalog = range_user("plans/catalog.nx", 5, "");
    let main = range_user("main.nx", 6, "links plans/catalog.nx version \"\" fingerprint 1\n");
    let resolver = |id: &str| Ok((id == "plans/catalog.nx").then(|| Arc::clone(&catalog)));
    let error = Program::link(Arc::clone(&main), &mut { resolver }, LinkOptions::default()).expect_err("refused");
    assert_eq!(error.diagnostics.len(), 1);
    assert_eq!(error.code(), codes::LINK_SCHEMA);
    assert_eq!(
        error.message(),
        "Module 'main.nx' is schema 6, but 'plans/catalog.nx' is schema 5: every module of a program must be one schema."
    );
    // A host's prelude of the other schema is refused the same way.
    let host_prelude = Arc::new(PreparedModule::from_vec(encode(&prelude_model(5).unwrap())).unwrap());
    let entry = range_user("main.nx", 6, "");
    let error = Program::link(entry, &mut |_| Ok(Some(Arc::clone(&host_prelude))), LinkOptions::default()).expect_err("refused");
    assert_eq!(error.code(), codes::LINK_SCHEMA);
    assert!(error.message().contains("'@nx/prelude.nx' is schema 5"), "{}", error.message());
}

#[test]
fn the_declarations_view_shows_constraints_and_state_records() {
    let module = PreparedModule::from_vec(encode(&sample("booking"))).expect("prepares");
    let declarations = module.declarations();
    let booking = declarations.iter().find(|d| &*d.name == "Booking").expect("Booking");
    let DeclarationKind::Record { fields, .. } = &booking.kind else { panic!() };
    let int = Box::new(TypeView::Primitive("int".into()));
    let bound = |value, exclusive| Some(BoundView { value, exclusive });
    assert_eq!(fields[0].ty, TypeView::Constrained { base: int.clone(), low: bound(Number::Int(1), false), high: bound(Number::Int(10), false) });
    assert_eq!(fields[1].ty, TypeView::Constrained { base: int, low: bound(Number::Int(1), false), high: None });
    let budget = TypeView::Constrained {
        base: Box::new(TypeView::Primitive("float64".into())),
        low: bound(Number::Float(0.0), true),
        high: bound(Number::Float(10000.0), false),
    };
    assert_eq!(fields[2].ty, TypeView::Seq { item: Box::new(budget), occurrence: 1 });
    // An end's text is the constant as explain spells it.
    let texts = [Number::Int(-1), Number::Float(0.0), Number::Float(10000.0), Number::Float(0.1), Number::Float(f64::NEG_INFINITY)].map(Number::text);
    assert_eq!(texts, ["-1", "0.0", "10000.0", "0.1", "-inf"]);

    let module = PreparedModule::from_vec(encode(&sample("settings"))).expect("prepares");
    let declarations = module.declarations();
    let counter = declarations.iter().find(|d| &*d.name == "Counter").expect("Counter");
    let DeclarationKind::Component { state_record, .. } = &counter.kind else { panic!() };
    assert_eq!(state_record, &Some(QualifiedName { module: "settings.nx".into(), name: "Counter.State".into() }));
}


