//! An image written by the NX project's own writer: a schema 6 module built with `nx-ir`
//! 0.10.0's model (`NxIrArtifact`, `IrItem`) and laid out by its `write_nx_ir_image`, with the
//! reference's own explain text of it and the values `nx-ir-runtime` 0.10.0 gives for some calls.
//! `examples/write_reference_fixture.rs` writes them to [`FIXTURE_DIR`];
//! `tests/reference_written.rs` checks that the files are what this module writes now, and the
//! Python CLI tests (`tests/test_cli_reference_written.py`) run `nx-agent explain` and
//! `nx-agent run` on the image against them.
//!
//! The module is a small booking helper (`booking.nx`): a record and four functions, with
//! constrained types at a parameter, a field and a result (`constraints-v1`), a `check` node the
//! compiler writes for a constrained result, and a `Range` built through the prelude's module
//! slot. Every body but `checkedNights`'s is made of schema 5 node kinds.

use ref6_ir::{kinds, IrItem, NxIrArtifact, NxIrModuleEntry};
use serde_json::{json, Value as Json};
use std::sync::Arc;

/// Where the fixture lives, from the repository's root.
pub const FIXTURE_DIR: &str = "tests/fixtures/reference-written";
/// The image's file name in [`FIXTURE_DIR`]; the explain text and the runs are beside it.
pub const IMAGE_FILE: &str = "booking.nxir";
pub const EXPLAIN_FILE: &str = "booking.explain.txt";
pub const RUNS_FILE: &str = "booking.runs.json";

/// The budget and input limit the runs are made under: `nx-agent run`'s defaults.
pub const MAX_OPERATIONS: u64 = 1_000_000;
pub const MAX_INPUT_SIZE: u64 = 1_000_000;

/// The NX source the module stands for. No compiler ran on it: the artifact below is built by
/// hand as the 0.10 compiler lays such a module out, and the fingerprint is the compiler's hash
/// (FNV-1a-64 over the identity, a zero byte and the source) of this text.
pub const SOURCE: &str = "\
// Hotel stays of one to fourteen nights.
type Quote = { nights:int where in 1..=14 nightly:float64 total:float64 }

let nights(count:int where in 1..=14): int = { count }
let quote(count:int where in 1..=14, nightly:float64 where >= 0.0): Quote = {
  <Quote nights=count nightly=nightly total={nightly * count} />
}
let stay(count:int where in 1..=14) = { 1..=count }
let checkedNights(count:int): int where in 1..=14 = { count }
";

const IDENTITY: &str = "booking.nx";
const PRELUDE: &str = "@nx/prelude.nx";
/// The prelude contract version and the fingerprint of the prelude `nx-ir-runtime` 0.10.0 ships.
const PRELUDE_VERSION: &str = "1";
const PRELUDE_FINGERPRINT: u64 = 3_805_895_034_114_390_176;

/// FNV-1a-64 over the identity, one zero byte and the source.
pub fn fingerprint(identity: &str, source: &str) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in identity.bytes().chain([0]).chain(source.bytes()) {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// The artifact's string table, built as entries name strings.
#[derive(Default)]
struct Strings(Vec<String>);

impl Strings {
    fn at(&mut self, text: &str) -> i64 {
        let index = match self.0.iter().position(|s| s == text) {
            Some(index) => index,
            None => {
                self.0.push(text.to_string());
                self.0.len() - 1
            }
        };
        index as i64
    }
}

fn int(value: i64) -> IrItem {
    IrItem::Int(value)
}

fn list(items: Vec<IrItem>) -> IrItem {
    IrItem::List(items)
}

/// The booking module as `nx-ir` 0.10.0's model.
pub fn booking_artifact() -> NxIrArtifact {
    use kinds::{binary, constant, declaration, field, node, ty};
    let mut s = Strings::default();
    s.at(ref6_ir::NX_IR_RUNTIME_ABI);
    s.at(ref6_ir::NX_IR_REQUIRED_FEATURE_CONSTRAINTS_V1);
    s.at(IDENTITY);
    s.at("");
    s.at(PRELUDE);
    s.at(PRELUDE_VERSION);

    // Constants: 1, 14, 0.0.
    let constants = vec![
        list(vec![int(constant::INT), int(1)]),
        list(vec![int(constant::INT), int(14)]),
        list(vec![int(constant::FLOAT), IrItem::Float(0.0)]),
    ];
    let (one, fourteen, zero) = (0, 1, 2);

    // Types: int, float64, int where in 1..=14, float64 where >= 0.0, Quote.
    let types = vec![
        list(vec![int(ty::PRIMITIVE), int(s.at("int"))]),
        list(vec![int(ty::PRIMITIVE), int(s.at("float64"))]),
        list(vec![int(ty::CONSTRAINED), int(0), int(one), int(fourteen), int(0)]),
        list(vec![int(ty::CONSTRAINED), int(1), int(zero), int(-1), int(0)]),
        list(vec![int(ty::NOMINAL), int(0), int(s.at("Quote"))]),
    ];
    let (t_int, t_float, t_nights, t_rate, t_quote) = (0, 1, 2, 3, 4);

    let slot = |s: &mut Strings, slot: i64, name: &str| list(vec![int(node::SLOT), int(slot), int(s.at(name))]);
    let property = |s: &mut Strings, name: &str, node: i64| list(vec![int(s.at(name)), int(node)]);
    let mut nodes = Vec::new();
    let add = |nodes: &mut Vec<IrItem>, entry: IrItem| -> i64 {
        nodes.push(entry);
        nodes.len() as i64 - 1
    };

    // nights(count) = count
    let nights_body = add(&mut nodes, slot(&mut s, 0, "count"));

    // quote(count, nightly) = <Quote nightly=nightly nights=count total=(nightly mul count) />
    let nightly = add(&mut nodes, slot(&mut s, 1, "nightly"));
    let count = add(&mut nodes, slot(&mut s, 0, "count"));
    let nightly_again = add(&mut nodes, slot(&mut s, 1, "nightly"));
    let count_again = add(&mut nodes, slot(&mut s, 0, "count"));
    let total = add(&mut nodes, list(vec![int(node::BINARY), int(binary::MUL), int(nightly_again), int(count_again)]));
    // Properties are sorted by name.
    let props = vec![property(&mut s, "nightly", nightly), property(&mut s, "nights", count), property(&mut s, "total", total)];
    let quote_body = add(
        &mut nodes,
        list(vec![int(node::RECORD), int(0), int(s.at("Quote")), list(props), list(vec![])]),
    );

    // stay(count) = <@nx/prelude.nx:Range end=count endInclusive=true start=1 />
    let start = add(&mut nodes, list(vec![int(node::NUMBER), int(one)]));
    let end = add(&mut nodes, slot(&mut s, 0, "count"));
    let inclusive = add(&mut nodes, list(vec![int(node::BOOL), int(1)]));
    let props = vec![property(&mut s, "end", end), property(&mut s, "endInclusive", inclusive), property(&mut s, "start", start)];
    let stay_body =
        add(&mut nodes, list(vec![int(node::RECORD), int(1), int(s.at("Range")), list(props), list(vec![])]));

    // checkedNights(count): int where in 1..=14 = (check result of checkedNights: count as …)
    let checked = add(&mut nodes, slot(&mut s, 0, "count"));
    let checked_body = add(
        &mut nodes,
        list(vec![int(node::CHECK), int(checked), int(t_nights), int(s.at("result of checkedNights"))]),
    );

    let field_of = |s: &mut Strings, name: &str, ty: i64, flags: i64| list(vec![int(s.at(name)), int(ty), int(-1), int(flags)]);
    let mut function = |name: &str, params: &[(&str, i64)], body: i64, result: i64| {
        let name = int(s.at(name));
        let params = params.iter().map(|(param, ty)| field_of(&mut s, param, *ty, 0)).collect();
        list(vec![int(declaration::FUNCTION), name, list(params), int(body), int(result), int(0)])
    };
    let functions = [
        function("nights", &[("count", t_nights)], nights_body, t_int),
        function("quote", &[("count", t_nights), ("nightly", t_rate)], quote_body, t_quote),
        function("stay", &[("count", t_nights)], stay_body, -1),
        function("checkedNights", &[("count", t_int)], checked_body, t_nights),
    ];
    let quote_fields = [("nights", t_nights), ("nightly", t_float), ("total", t_float)]
        .map(|(name, ty)| field_of(&mut s, name, ty, field::REQUIRED));
    let quote = list(vec![
        int(declaration::RECORD),
        int(s.at("Quote")),
        list(quote_fields.to_vec()),
        list(vec![]),
        int(0),
        list(vec![]),
    ]);
    let declarations: Vec<IrItem> = std::iter::once(quote).chain(functions).collect();

    NxIrArtifact {
        schema_version: ref6_ir::NX_IR_SCHEMA_VERSION,
        runtime_abi: ref6_ir::NX_IR_RUNTIME_ABI.to_string(),
        required_features: vec![ref6_ir::NX_IR_REQUIRED_FEATURE_CONSTRAINTS_V1.to_string()],
        modules: vec![
            NxIrModuleEntry { identity: IDENTITY.to_string(), version: String::new(), fingerprint: fingerprint(IDENTITY, SOURCE) },
            NxIrModuleEntry {
                identity: PRELUDE.to_string(),
                version: PRELUDE_VERSION.to_string(),
                fingerprint: PRELUDE_FINGERPRINT,
            },
        ],
        function_entrypoints: vec![1, 2, 3, 4],
        component_entrypoints: vec![],
        strings: s.0,
        types,
        constants,
        nodes,
        declarations,
        debug: None,
    }
}

/// One call the fixture records: a function of the module, its arguments (a JSON list by
/// position, or an object by name), and what the reference runtime gave.
fn calls() -> Vec<(&'static str, Json)> {
    vec![
        ("nights", json!([3])),
        ("nights", json!([14])),
        ("quote", json!([3, 120.5])),
        ("quote", json!({"count": 2, "nightly": 99.0})),
        ("stay", json!([4])),
    ]
}

/// The fixture's three files, as the reference writes, explains and evaluates them now.
pub struct Fixture {
    pub image: Vec<u8>,
    pub explain: String,
    /// `booking.runs.json`: the limits and each call with the reference runtime's value,
    /// operations and input size.
    pub runs: String,
}

/// Writes the artifact with `nx-ir` 0.10.0, explains it with `nx-ir` 0.10.0, and makes each call
/// with `nx-ir-runtime` 0.10.0 (the built-in prelude linked).
pub fn fixture() -> Fixture {
    let image = ref6_ir::write_nx_ir_image(&booking_artifact()).expect("the artifact follows the layouts");
    let explain = ref6_ir::explain_nx_ir_image(&image).expect("the reference explains its own image");
    let module = ref6_runtime::PreparedModule::prepare(image.clone()).expect("the reference prepares its own image");
    let program = ref6_runtime::Program::link(&module, |_| None, &ref6_runtime::LinkOptions::default())
        .expect("the module links against the built-in prelude");
    let runs: Vec<Json> = calls()
        .into_iter()
        .map(|(function, arguments)| {
            let usage = Arc::new(ref6_runtime::Usage::new());
            let options = ref6_runtime::RuntimeOptions {
                max_operations: Some(MAX_OPERATIONS),
                max_input_size: Some(MAX_INPUT_SIZE),
                usage: Some(Arc::clone(&usage)),
                ..ref6_runtime::RuntimeOptions::default()
            };
            let value = |json: &Json| ref6_value::NxValue::from_json_str(&json.to_string()).expect("an NX value");
            let result = match &arguments {
                Json::Array(items) => {
                    let args: Vec<_> = items.iter().map(value).collect();
                    program.evaluate_function(function, &args, &options)
                }
                Json::Object(fields) => {
                    let record = json!({"$type": "Function", "module": IDENTITY, "name": function});
                    let args = fields.iter().map(|(name, v)| (name.clone(), value(v))).collect();
                    program.call_function(&value(&record), &args, &options)
                }
                _ => unreachable!("arguments are a list or an object"),
            };
            let result = result.unwrap_or_else(|e| panic!("{function}({arguments}): {e:?}"));
            let value: Json = serde_json::from_str(&result.to_json_string().expect("JSON")).expect("JSON");
            json!({
                "function": function,
                "arguments": arguments,
                "value": value,
                "operations": usage.operations(),
                "inputSize": usage.input_size(),
            })
        })
        .collect();
    let document = json!({
        "image": IMAGE_FILE,
        "runtime": "nx-ir-runtime 0.10.0",
        "maxOperations": MAX_OPERATIONS,
        "maxInputSize": MAX_INPUT_SIZE,
        "runs": runs,
    });
    let runs = serde_json::to_string_pretty(&document).expect("JSON") + "\n";
    Fixture { image, explain, runs }
}
