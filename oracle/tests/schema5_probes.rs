//! nx-ir-core against `nx-ir-runtime` 0.7.0 on programs of our own: failures the corpus never
//! reaches (a value the program did not check reaching an intrinsic or a member access, too many
//! arguments, an abstract record built anyway, a union that declares a case name twice, a call of
//! a value that is no function, which fails at the call's span), and wide records (more than
//! nx-ir-core's 64 flat fields, so kept in shared trees) through `apply`, `merge` and `diff`
//! (written in name order by both engines; the order of undeclared fields, insertion in
//! nx-ir-core, name order in the reference, is left out: `docs/runtime-differences.md`); each
//! call evaluated in both engines with no budget and at every budget up to its count. Every node
//! has a span.
//!
//! The images are assembled from the texts below by nx-ir-core's assembler; what each call must
//! do is whatever the reference does with the same bytes.

use nx_agent_oracle::agreement::corpus_agreement;
use nx_agent_oracle::corpus::{Call, Image, Program};
use nx_agent_oracle::engine::Reference5;
use nx_agent_oracle::programs6;
use nx_ir_core::assemble::{assemble_with_links, AssembleOptions};

const PROBES: &str = r#"module probe.nx fingerprint 1
requires update-records-v1 update-intrinsics-v1
entrypoints functions [applied merged member sum abstractBuilt corners caseNamedTwice callNumber appliedTwice mergedWide diffed diffedTwice equalRecords remainders byZero mixed] components []

union Shape
  case dot constant
  case dot
    side: int required

record Point abstract
  x: int required

record Opt
  a: int = 1
  b: int?

record Opt.Update update of Opt
  a: int
  b: int?

record Other
  n: int?

function applied(x: object, y: object) =
  apply(x, y)

function merged() =
  merge(<Opt a=1 />, <Other n=2 />)

function appliedTwice(x: object, y: object, w: object) =
  apply(apply(x, y), w)

function mergedWide(x: object, y: object) =
  merge(x, y)

function diffed(x: object, y: object) =
  diff(x, apply(x, y))

function diffedTwice(x: object, y: object, w: object) =
  diff(apply(x, y), apply(apply(x, y), w))

function equalRecords(x: object, y: object) =
  (x eq y)

function member(x: object) =
  x.name

function remainders(a: int, b: int) =
  [(a imod b), (a idiv b), (a mod b), (a imod 7), (a idiv 7)]

function mixed(a: int, b: float) =
  [(a mul b), (b mul a), (a add b), (b sub a), (a lt b), (b ge a), (b mul 0.1), (a mul 0.1), (1.5 gt b), (b div 2.0)]

function byZero(a: int, b: int, which: int) =
  if (which eq 0) then
    (a imod b)
  else
    if (which eq 1) then
      (a idiv b)
    else
      (a mod b)

function sum(p: Point): int =
  p.x

function abstractBuilt(): int =
  sum(<Point x=1 />)

function corners(shape: Shape) =
  if shape is
    Shape.dot =>
      0

function caseNamedTwice() =
  corners(<Shape.dot />)

function callNumber(x: object): object =
  x(1)
"#;

fn call(function: &str, case: &str, arguments: &[&str]) -> Call {
    Call {
        module: "probe.nx".to_string(),
        function: function.to_string(),
        case: Some(case.to_string()),
        arguments: arguments.iter().map(|a| a.to_string()).collect(),
    }
}

/// A JSON record of type `type_name`: `a`, then `f0`..`f{count-1}` (their values their numbers).
fn wide(type_name: &str, count: usize) -> String {
    let fields: String = (0..count).map(|i| format!(r#","f{i}":{i}"#)).collect();
    format!(r#"{{"$type":"{type_name}","a":2{fields}}}"#)
}

/// A record whose field names are 70 and 130 characters long (one and two operations to read),
/// the first made of `letter`; written in name order, the order the reference holds a host
/// record's fields in (nx-ir-core keeps the host's: `docs/runtime-differences.md`).
fn long_names(letter: &str) -> String {
    let mut fields = [(letter.repeat(70), "1"), ("b".repeat(130), "[1,2]"), ("s".to_string(), "3")];
    fields.sort();
    let fields: Vec<String> = fields.iter().map(|(name, value)| format!(r#""{name}":{value}"#)).collect();
    format!(r#"{{"$type":"Free",{}}}"#, fields.join(","))
}

fn probes() -> Program {
    let wide = wide("Opt", 80);
    let wide_update = wide.replace(r#""$type":"Opt""#, r#""$type":"Opt.Update""#);
    // Sets two fields in place, clears two (one declared), adds two.
    let update = r#"{"$type":"Opt.Update","f3":100,"f5":null,"g1":1,"a":null,"f70":7,"g0":0}"#;
    // Adds back a cleared field (after the others) and clears one more.
    let again = r#"{"$type":"Opt.Update","f5":5,"f3":null}"#;
    // Values that are not plain (a list, a record, a long text) in the shared part of a diff.
    let long = "é".repeat(70);
    let mixed = wide.replacen(
        r#""f20":20"#,
        &format!(r#""f20":[1,2,3],"r":{{"$type":"Other","n":1}},"s":"{long}""#),
        1,
    );
    let options = AssembleOptions { source: None, version: String::new(), schema: 5 };
    // Every node gets a span, so that the source a diagnostic names is compared too.
    let mut module = assemble_with_links(PROBES, &options, &[PROBES]).expect("the probes assemble");
    programs6::spec::with_node_spans(&mut module, PROBES);
    let bytes = nx_ir_core::writer::encode(&module);
    Program {
        name: "probes".to_string(),
        entry: Some("probe.nx".to_string()),
        calls: vec![
            call("applied", "intToInt", &["5", "6"]),
            call("applied", "recordToItself", &[r#"{"$type":"Opt","a":2}"#, r#"{"$type":"Opt","a":3}"#]),
            call("applied", "update", &[r#"{"$type":"Opt","a":2}"#, r#"{"$type":"Opt.Update","b":3}"#]),
            call("applied", "listOfOne", &[r#"[{"$type":"Opt","a":2}]"#, r#"{"$type":"Opt.Update","b":3}"#]),
            // Integer leaves of the remainder and division operators, computed in place by
            // nx-ir-core; a zero divisor fails on the general path.
            call("remainders", "positive", &["7", "2"]),
            call("remainders", "negative", &["-7", "2"]),
            call("remainders", "negativeDivisor", &["7", "-2"]),
            call("remainders", "minByMinusOne", &["-9223372036854775808", "-1"]),
            // Float leaves (a float on either side), computed in place by nx-ir-core.
            call("mixed", "small", &["3", "0.1"]),
            call("mixed", "negative", &["-7", "2.5"]),
            call("mixed", "wideInt", &["9007199254740993", "1.0"]),
            call("mixed", "integralFloat", &["2", "3"]),
            call("byZero", "imod", &["7", "0", "0"]),
            call("byZero", "idiv", &["7", "0", "1"]),
            call("byZero", "mod", &["7", "0", "2"]),
            call("member", "ofInt", &["5"]),
            call("member", "ofRecord", &[r#"{"name":"Ada"}"#]),
            call("sum", "tooManyArguments", &[r#"{"$type":"Point","x":1}"#, "2"]),
            call("sum", "abstract", &[r#"{"$type":"Point","x":1}"#]),
            call("sum", "noDiscriminator", &[r#"{"x":1}"#]),
            call("callNumber", "notAFunction", &["5"]),
            call("applied", "wide", &[&wide, update]),
            call("applied", "wideByWide", &[&wide, &wide_update]),
            call("appliedTwice", "wide", &[&wide, update, again]),
            call("mergedWide", "wide", &[&wide, update]),
            call("mergedWide", "smallByWide", &[r#"{"$type":"Opt","z":1,"f9":0}"#, &wide]),
            call("diffed", "wide", &[&wide, update]),
            call("diffedTwice", "wide", &[&wide, update, again]),
            // Record equality: names paid before values, and the fields only the right record
            // holds paid in one charge (a budget running out there fails at the same count).
            call("equalRecords", "onlyRightHolds", &[r#"{"$type":"Free","a":1,"b":2}"#, r#"{"$type":"Free","z":1,"c":2}"#]),
            call("equalRecords", "longNames", &[&long_names("a"), &long_names("c")]),
            call("equalRecords", "sameLongNames", &[&long_names("a"), &long_names("a")]),
            call("diffed", "mixed", &[&mixed, update]),
            call("diffedTwice", "mixed", &[&mixed, update, again]),
        ],
        images: vec![Image { identity: "probe.nx".to_string(), file: "probes".to_string(), stripped: true, bytes }],
        lifecycles: Vec::new(),
    }
}

#[test]
fn the_probes_agree_at_every_budget() {
    let report = corpus_agreement::<Reference5>(&[probes()]);
    let summary = report.summary(5);
    println!("probes: {summary}");
    // Two image variants (the probe has one, used for both), each with every recorded call and
    // every no-argument call of its entrypoints.
    assert!(report.calls >= 2 * 15, "{summary}");
    assert!(report.disagreements.is_empty(), "{summary}\n{}", report.disagreements.join("\n"));
}
