//! nx-ir-core's standard operations (schema 6 node kinds 26 `standardMath` and 27
//! `standardColor`) against nx-value 0.10.0's: the operation tables, every case of nx-value's own
//! case files (`math-cases.json`, `color-cases.json`, read from the dependency's source folder),
//! every named colour and short hex colour, then a seeded random sweep over every operation.
//!
//! Results must be identical: floats by bits, errors by code and message, records by type name
//! and fields in order. Colour arguments reach the reference as the reference runtime hands them
//! over (our host value converted to an `NxValue`: a float is `Float`, an int `Int`).

use nx_ir_core::eval::{HostRecord, HostValue};
use nx_ir_core::testing::stdlib as ours;
use ref6_value::{color as ref_color, math as ref_math, NxValue};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

// ---------------------------------------------------------------------------------------------
// Host values and NxValues

fn to_ref(value: &HostValue) -> NxValue {
    match value {
        HostValue::Null => NxValue::Null,
        HostValue::Bool(b) => NxValue::Bool(*b),
        HostValue::Int(i) => NxValue::Int(*i),
        HostValue::Float(x) => NxValue::Float(*x),
        HostValue::Str(s) => NxValue::String(s.clone()),
        HostValue::List(items) => NxValue::Array(items.iter().map(to_ref).collect()),
        HostValue::Record(record) => NxValue::Record {
            type_name: record.type_name.clone(),
            properties: record.fields.iter().map(|(k, v)| (k.clone(), to_ref(v))).collect::<BTreeMap<_, _>>(),
        },
    }
}

fn from_ref(value: &NxValue) -> HostValue {
    match value {
        NxValue::Null => HostValue::Null,
        NxValue::Bool(b) => HostValue::Bool(*b),
        NxValue::Int32(i) => HostValue::Int(i64::from(*i)),
        NxValue::Int(i) => HostValue::Int(*i),
        NxValue::Float32(x) => HostValue::Float(f64::from(*x)),
        NxValue::Float(x) => HostValue::Float(*x),
        NxValue::String(s) => HostValue::Str(s.clone()),
        NxValue::Array(items) => HostValue::List(items.iter().map(from_ref).collect()),
        NxValue::Record { type_name, properties } => HostValue::Record(HostRecord {
            type_name: type_name.clone(),
            fields: properties.iter().map(|(k, v)| (k.clone(), from_ref(v))).collect(),
        }),
    }
}

/// Equal with floats compared by bits and fields in order.
fn same(a: &HostValue, b: &HostValue) -> bool {
    match (a, b) {
        (HostValue::Float(x), HostValue::Float(y)) => x.to_bits() == y.to_bits(),
        (HostValue::List(x), HostValue::List(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y)),
        (HostValue::Record(x), HostValue::Record(y)) => {
            x.type_name == y.type_name
                && x.fields.len() == y.fields.len()
                && x.fields.iter().zip(&y.fields).all(|((kx, vx), (ky, vy))| kx == ky && same(vx, vy))
        }
        _ => a == b,
    }
}

// ---------------------------------------------------------------------------------------------
// Running both

/// Mismatches found so far (the first few described) and cases compared, per operation.
#[derive(Default)]
struct Tally {
    compared: BTreeMap<&'static str, u64>,
    succeeded: BTreeMap<&'static str, u64>,
    mismatches: u64,
    report: String,
}

impl Tally {
    fn mismatch(&mut self, what: String) {
        self.mismatches += 1;
        if self.mismatches <= 25 {
            self.report.push_str(&what);
            self.report.push('\n');
        }
    }

    fn count(&mut self, family: &'static str) {
        *self.compared.entry(family).or_default() += 1;
    }

    fn succeeded(&mut self, family: &'static str) {
        *self.succeeded.entry(family).or_default() += 1;
    }

    /// Prints the counts (and how many of each gave a value rather than an error) and fails on
    /// any mismatch.
    fn finish(self, title: &str) -> u64 {
        let total: u64 = self.compared.values().sum();
        let mut line = format!("{title}: {total} cases compared (giving a value)");
        for (op, n) in &self.compared {
            let _ = write!(line, "; {op} {n} ({})", self.succeeded.get(op).copied().unwrap_or(0));
        }
        println!("{line}");
        assert!(self.mismatches == 0, "{title}: {} mismatches, first:\n{}", self.mismatches, self.report);
        total
    }
}

fn fmt_math(result: &Result<f64, (&str, String)>) -> String {
    match result {
        Ok(x) => format!("Ok({x:?} = {:#018x})", x.to_bits()),
        Err((code, message)) => format!("Err({code}: {message})"),
    }
}

/// Runs math op `code` on `args` in both: the result when they agree, else a description.
fn compare_math(code: u32, args: &[f64]) -> Result<Result<f64, (&'static str, String)>, String> {
    let reference = ref_math::MathOp::from_code(code).expect("a reference op");
    let op = ours::MathOp::from_code(code).expect("our op");
    let expected = ref_math::evaluate(reference, args).map_err(|e| (e.code, e.message));
    let actual = ours::evaluate_math(op, args).map_err(|e| (e.code, e.message));
    let agree = match (&expected, &actual) {
        (Ok(x), Ok(y)) => x.to_bits() == y.to_bits(),
        (Err(x), Err(y)) => x == y,
        _ => false,
    };
    if agree {
        Ok(actual)
    } else {
        Err(format!(
            "{}({args:?}): reference {}, ours {}",
            op.name(),
            fmt_math(&expected),
            fmt_math(&actual)
        ))
    }
}

/// Runs colour op `code` on `args` in both: the result (an error as its code) when they agree,
/// else a description.
fn compare_color(code: u32, args: &[HostValue]) -> Result<Result<HostValue, String>, String> {
    let ref_args: Vec<NxValue> = args.iter().map(to_ref).collect();
    let expected = ref_color::evaluate(code, &ref_args).map(|v| from_ref(&v)).map_err(|e| (e.code, e.message));
    let actual = ours::evaluate_color(code, args).map_err(|e| (e.code, e.message));
    let agree = match (&expected, &actual) {
        (Ok(x), Ok(y)) => same(x, y),
        (Err(x), Err(y)) => x == y,
        _ => false,
    };
    if agree {
        Ok(actual.map_err(|e| e.0.to_string()))
    } else {
        Err(format!(
            "{}({args:?}): reference {expected:?}, ours {actual:?}",
            ours::color_op_name(code).unwrap_or("?")
        ))
    }
}

fn op_name(code: u32) -> &'static str {
    ours::MathOp::from_code(code).map_or("(no such op)", |op| op.name())
}

fn color_family(code: u32) -> &'static str {
    ours::color_op_name(code).unwrap_or("(no such op)")
}

// ---------------------------------------------------------------------------------------------
// The reference's case files

/// nx-value 0.10.0's source folder: in the registry under `CARGO_HOME` (or `~/.cargo`), else
/// where `cargo metadata` says it is.
fn reference_source() -> PathBuf {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".cargo")));
    if let Some(registry) = home.map(|home| home.join("registry").join("src")) {
        if let Ok(entries) = std::fs::read_dir(&registry) {
            for entry in entries.flatten() {
                let src = entry.path().join("nx-value-0.10.0").join("src");
                if src.join("math-cases.json").is_file() {
                    return src;
                }
            }
        }
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    let output = std::process::Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--manifest-path"])
        .arg(&manifest)
        .output()
        .expect("cargo metadata runs");
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).expect("cargo metadata's JSON");
    let package = metadata["packages"]
        .as_array()
        .and_then(|packages| packages.iter().find(|p| p["name"] == "nx-value" && p["version"] == "0.10.0"))
        .expect("nx-value 0.10.0 among the oracle's packages");
    let manifest_path = PathBuf::from(package["manifest_path"].as_str().expect("a manifest path"));
    manifest_path.parent().expect("a package folder").join("src")
}

fn read_cases(name: &str) -> serde_json::Value {
    let path = reference_source().join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn operation_tables_agree() {
    for code in 0..40 {
        let reference = ref_math::MathOp::from_code(code);
        let op = ours::MathOp::from_code(code);
        assert_eq!(reference.is_some(), op.is_some(), "math op {code}");
        if let (Some(reference), Some(op)) = (reference, op) {
            assert_eq!(op.name(), reference.name(), "math op {code}");
            assert_eq!(op.arity(), reference.arity(), "math op {code}");
            assert_eq!(op.code(), code);
        }
    }
    assert_eq!(ours::MathOp::COUNT as usize, ref_math::MathOp::ALL.len());
    assert_eq!(ours::COLOR_OP_COUNT as usize, ref_color::NAMES.len());
    for code in 0..60 {
        assert_eq!(ours::color_op_name(code), ref_color::NAMES.get(code as usize).copied(), "colour op {code}");
        assert_eq!(ours::color_op_arity(code), ref_color::ARITIES.get(code as usize).copied(), "colour op {code}");
    }
    for (code, name) in ref_color::NAMES.iter().enumerate() {
        assert_eq!(ours::color_op_code(name), Some(code as u32));
    }
}

#[test]
fn reference_math_cases() {
    let cases = read_cases("math-cases.json");
    let cases = cases.as_array().expect("a list of cases");
    assert!(cases.len() > 100, "math-cases.json holds {} cases", cases.len());
    let mut tally = Tally::default();
    for case in cases {
        let name = case["op"].as_str().expect("an op name");
        let code = (0..ours::MathOp::COUNT)
            .find(|&code| ours::MathOp::from_code(code).is_some_and(|op| op.name() == name))
            .unwrap_or_else(|| panic!("no math op {name}"));
        let args: Vec<f64> = case["args"]
            .as_array()
            .expect("args")
            .iter()
            .map(|x| x.as_str().expect("a number as text").parse().expect("a float"))
            .collect();
        tally.count(op_name(code));
        match compare_math(code, &args) {
            Err(what) => tally.mismatch(what),
            // The case's own expectation, as nx-value's test reads it.
            Ok(result) => match (case["error"].as_str(), result.inspect(|_| tally.succeeded(op_name(code)))) {
                (Some(code), Err((actual, _))) => assert_eq!(actual, code, "{}", case["name"]),
                (None, Ok(actual)) => {
                    let expected: f64 = case["expected"].as_str().expect("expected").parse().expect("a float");
                    if case["exact"] == true {
                        assert_eq!(actual.to_bits(), expected.to_bits(), "{}", case["name"]);
                    } else {
                        assert!((actual - expected).abs() <= 1e-12 * expected.abs().max(1.0), "{}", case["name"]);
                    }
                }
                (error, actual) => panic!("{}: expected {error:?}, got {actual:?}", case["name"]),
            },
        }
    }
    tally.finish("math-cases.json");
}

#[test]
fn reference_color_cases() {
    let corpus = read_cases("color-cases.json");
    let cases = corpus["cases"].as_array().expect("a list of cases");
    assert!(cases.len() > 200, "color-cases.json holds {} cases", cases.len());
    let mut tally = Tally::default();
    for (index, case) in cases.iter().enumerate() {
        let name = case["op"].as_str().expect("an op name");
        let code = ours::color_op_code(name).unwrap_or_else(|| panic!("no colour op {name}"));
        let args: Vec<HostValue> = case["args"]
            .as_array()
            .expect("args")
            .iter()
            .map(|arg| match arg.get("color").and_then(serde_json::Value::as_str) {
                Some(text) => from_ref(&ref_color::parse(text).expect("a colour the reference reads")),
                None => from_ref(&serde_json::from_value::<NxValue>(arg.clone()).expect("a host value")),
            })
            .collect();
        tally.count(color_family(code));
        match compare_color(code, &args) {
            Err(what) => tally.mismatch(format!("case {index}: {what}")),
            Ok(result) => {
                if result.is_ok() {
                    tally.succeeded(color_family(code));
                }
                if let Some(expected) = case["error"].as_str() {
                    assert_eq!(result.err().as_deref(), Some(expected), "case {index}: {name}");
                } else {
                    assert!(result.is_ok(), "case {index}: {name}: {result:?}");
                }
            }
        }
    }
    tally.finish("color-cases.json");
}

#[test]
fn every_named_and_short_hex_colour() {
    let mut names: Vec<String> = ours::css_color_names().map(str::to_string).collect();
    let theirs: Vec<&str> = csscolorparser::NAMED_COLORS.keys().copied().collect();
    assert_eq!(names.len(), theirs.len(), "named colours");
    names.extend(theirs.iter().map(|s| s.to_string()));
    names.push("transparent".into());
    let mut tally = Tally::default();
    let mut texts: Vec<String> = Vec::new();
    for name in &names {
        texts.push(name.clone());
        texts.push(name.to_ascii_uppercase());
        texts.push(format!(" \t{name}\n"));
        texts.push(format!("{name}x"));
    }
    for n in 0..0x1000 {
        texts.push(format!("#{n:03x}"));
        texts.push(format!("#{n:03X}"));
    }
    for n in 0..0x10000 {
        texts.push(format!("#{n:04x}"));
    }
    for text in texts {
        let code = ours::color_op_code("parse").expect("parse");
        tally.count("parse");
        match compare_color(code, &[HostValue::Str(text)]) {
            Ok(Ok(_)) => tally.succeeded("parse"),
            Ok(Err(_)) => {}
            Err(what) => tally.mismatch(what),
        }
    }
    tally.finish("named and hex colours");
}

// ---------------------------------------------------------------------------------------------
// The random sweep

/// SplitMix64: a small seeded generator, so every run sweeps the same cases.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }
    /// Uniform in [0, 1).
    fn fraction(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// -1 or +1.
    fn sign(&mut self) -> f64 {
        if self.chance(50) {
            -1.0
        } else {
            1.0
        }
    }
}

const SPECIAL: &[f64] = &[
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -0.5,
    1.5,
    -1.5,
    2.5,
    -2.5,
    3.5,
    -3.5,
    2.0,
    -2.0,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
    f64::MIN_POSITIVE,
    5e-324,
    f64::MAX,
    f64::MIN,
    f64::EPSILON,
    1e308,
    -1e308,
    1.7e308,
    1e307,
    1e-300,
    std::f64::consts::PI,
    std::f64::consts::FRAC_PI_2,
    -std::f64::consts::FRAC_PI_2,
    4503599627370495.5,
    4503599627370496.0,
    9007199254740993.0,
    0.49999999999999994,
    -0.49999999999999994,
    0.9999999999999999,
    1.0000000000000002,
    -1.0000000000000002,
    90.0,
    180.0,
    360.0,
    -360.0,
    255.0,
    1e16,
    1.633123935319537e16,
];

/// An argument for a math op: special values, any bit pattern, subnormals, integers, ordinary
/// magnitudes, values a few ulps from 0 and ±1, and half-integers.
fn any_float(rng: &mut Rng) -> f64 {
    match rng.below(10) {
        0 | 1 => rng.pick(SPECIAL),
        2 => f64::from_bits(rng.next()),
        3 => rng.sign() * (f64::from_bits(rng.next() & ((1 << 52) - 1))),
        4 => (rng.next() as i64 >> rng.below(64)) as f64,
        5 => rng.sign() * (rng.fraction() * 10f64.powi(rng.below(40) as i32 - 20)),
        6 => {
            let exponent = rng.below(2046) as i32 - 1022;
            rng.sign() * ((1.0 + rng.fraction()) * 2f64.powi(exponent))
        }
        7 => {
            let base: f64 = rng.pick(&[0.0, 1.0, -1.0, 0.5, -0.5]);
            let steps = rng.below(9) as i64 - 4;
            f64::from_bits(base.to_bits().wrapping_add_signed(steps))
        }
        8 => (rng.next() as i64 >> rng.below(64)) as f64 + rng.sign() * 0.5,
        _ => rng.sign() * (rng.fraction() * 4.0),
    }
}

fn math_args(rng: &mut Rng, arity: usize) -> Vec<f64> {
    let count = if rng.chance(2) { rng.below(5) as usize } else { arity };
    let mut args: Vec<f64> = (0..count).map(|_| any_float(rng)).collect();
    // Equal arguments, and lerp's and clamp's interesting third arguments.
    if count >= 2 && rng.chance(10) {
        args[1] = if rng.chance(50) { args[0] } else { -args[0] };
    }
    if count == 3 && rng.chance(30) {
        args[2] = rng.pick(&[0.0, -0.0, 1.0, 0.5, -0.5, 1.5, 2.0, 0.7, 1e-300, 1.0 - f64::EPSILON]);
    }
    args
}

#[test]
fn random_math_sweep() {
    const PER_OP: u64 = 200_000;
    let mut rng = Rng(0x5eed_0026);
    let mut tally = Tally::default();
    for code in 0..ours::MathOp::COUNT {
        let op = ours::MathOp::from_code(code).expect("an op");
        for _ in 0..PER_OP {
            let args = math_args(&mut rng, op.arity());
            tally.count(op.name());
            match compare_math(code, &args) {
                Ok(Ok(_)) => tally.succeeded(op.name()),
                Ok(Err(_)) => {}
                Err(what) => tally.mismatch(what),
            }
        }
    }
    let total = tally.finish("random math sweep");
    assert_eq!(total, PER_OP * u64::from(ours::MathOp::COUNT));
}

/// What a colour operation's parameter is.
#[derive(Clone, Copy)]
enum Param {
    Byte,
    Unit,
    Hue,
    Lab,
    Color,
    Text,
    Space,
}

fn params(name: &str) -> &'static [Param] {
    use Param::*;
    match name {
        "rgb" => &[Byte, Byte, Byte],
        "rgba" => &[Byte, Byte, Byte, Unit],
        "srgb" | "linearRgb" => &[Unit, Unit, Unit, Unit],
        "hsl" | "hsv" | "hwb" => &[Hue, Unit, Unit, Unit],
        "oklab" => &[Unit, Lab, Lab, Unit],
        "oklch" => &[Unit, Lab, Hue, Unit],
        "parse" | "tryParse" => &[Text],
        "withAlpha" | "fadeIn" | "fadeOut" | "lighten" | "darken" | "saturate" | "desaturate" | "invert" => {
            &[Color, Unit]
        }
        "rotateHue" => &[Color, Hue],
        "mix" => &[Color, Color, Unit, Space],
        "composite" | "contrastRatio" => &[Color, Color],
        "bestTextColor" => &[Color, Color, Color],
        _ => &[Color],
    }
}

/// A value of a kind no parameter takes.
fn wrong_kind(rng: &mut Rng) -> HostValue {
    match rng.below(6) {
        0 => HostValue::Null,
        1 => HostValue::Bool(rng.chance(50)),
        2 => HostValue::Str(rng.pick(&["red", "", "0.5", "srgb"]).to_string()),
        3 => HostValue::List(vec![]),
        4 => HostValue::List(vec![HostValue::Float(0.5)]),
        _ => HostValue::Record(HostRecord::new(Some("Color"))),
    }
}

/// A float32 value in [0, 1]: the edges, a 24-bit fraction, or any f32 bit pattern up to 1.
fn unit_f32(rng: &mut Rng) -> f64 {
    match rng.below(5) {
        0 => rng.pick(&[0.0, 1.0, 0.5, -0.0, 0.25, 0.75]),
        1 => f64::from(f32::from_bits(rng.below(0x3f80_0001) as u32)),
        2 => f64::from((f64::from(rng.below(256) as u8) / 255.0) as f32),
        _ => f64::from((rng.next() >> 40) as f32 / (1u32 << 24) as f32),
    }
}

/// A number, mostly in the range its parameter takes; sometimes anything.
fn number(rng: &mut Rng, param: Param) -> HostValue {
    if rng.chance(4) {
        return wrong_kind(rng);
    }
    if rng.chance(6) {
        return HostValue::Int(rng.pick(&[0, 1, 2, -1, 255, 256, 360, -360, i64::MAX, i64::MIN]));
    }
    if rng.chance(8) {
        return HostValue::Float(any_float(rng));
    }
    let x = match param {
        Param::Byte => match rng.below(4) {
            0 => rng.below(256) as f64,
            1 => rng.fraction() * 255.0,
            2 => rng.pick(&[255.0, 255.00000000000003, 256.0, -0.0, -1e-300, 127.5]),
            _ => rng.fraction() * 300.0 - 20.0,
        },
        Param::Hue => match rng.below(4) {
            0 => rng.below(721) as f64 - 360.0,
            1 => rng.fraction() * 720.0 - 360.0,
            2 => rng.pick(&[360.0, -1e-300, 359.99999999999994, 1e300, -1e300, 60.0, 120.0, 300.0]),
            _ => rng.sign() * (rng.fraction() * 1e6),
        },
        Param::Lab => match rng.below(3) {
            0 => rng.fraction() - 0.5,
            1 => rng.pick(&[0.0, -0.0, 0.4, -0.4, 0.37, 1.0, -1.0]),
            _ => rng.sign() * (rng.fraction() * 2.0),
        },
        _ => match rng.below(4) {
            0 | 1 => unit_f32(rng),
            2 => rng.fraction(),
            _ => rng.pick(&[1.0000000000000002, -1e-300, 0.1, 0.3, 1.0 - 1e-9, 2.0]),
        },
    };
    HostValue::Float(x)
}

/// A colour argument: mostly a valid colour record; sometimes missing, extra, non-float32,
/// out-of-range or wrongly typed channels, or no record at all.
fn color_value(rng: &mut Rng) -> HostValue {
    if rng.chance(5) {
        return match rng.below(3) {
            0 => HostValue::Float(0.5),
            1 => HostValue::Str("red".into()),
            _ => wrong_kind(rng),
        };
    }
    let type_name = rng.pick(&[Some("Color"), Some("Color"), None, Some("Other")]);
    let mut record = HostRecord::new(type_name);
    let wild = rng.chance(12);
    let opaque = rng.chance(65);
    let mut names = vec!["r", "g", "b", "a"];
    if rng.chance(20) {
        names.reverse();
    }
    for name in names {
        if wild && rng.chance(15) {
            continue;
        }
        if name == "a" && opaque {
            if rng.chance(50) {
                record.fields.push(("a".into(), HostValue::Float(1.0)));
            }
            continue;
        }
        let value = if wild && rng.chance(40) {
            match rng.below(5) {
                0 => HostValue::Int(rng.pick(&[0, 1, 2, -1])),
                1 => HostValue::Float(rng.pick(&[0.1, 1.0000001, -1e-300, f64::NAN, f64::INFINITY, 2.0])),
                2 => wrong_kind(rng),
                3 => HostValue::Float(rng.fraction()),
                _ => HostValue::Float(any_float(rng)),
            }
        } else {
            HostValue::Float(unit_f32(rng))
        };
        record.fields.push((name.into(), value));
    }
    if rng.chance(8) {
        let extra = rng.pick(&["alpha", "x", "R", "$type"]);
        record.fields.push((extra.into(), HostValue::Float(0.5)));
    }
    HostValue::Record(record)
}

const FUNCTIONS: &[&str] = &[
    "rgb(",
    "rgba(",
    "hsl(",
    "hsla(",
    "hwb(",
    "oklab(",
    "oklch(",
    "srgb(",
    "srgb-linear(",
    "color(srgb ",
    "color(srgb-linear ",
    "color( srgb\t",
    "color(display-p3 ",
    "color(srgb",
    "lab(",
    "RGB(",
    "Hsl(",
    "OKLCH(",
    "rgb (",
    "(",
];

const SUFFIXES: &[&str] = &["", "", "", "", "%", "%", "deg", "rad", "grad", "turn", "DEG", "e", "px", "%%", "."];

/// A numeric token as CSS text might spell it, well or badly.
fn number_token(rng: &mut Rng) -> String {
    match rng.below(12) {
        0 | 1 => rng.below(400).to_string(),
        2 => format!("{}", (rng.fraction() * 400.0 - 50.0)),
        3 => format!("{:.2}", rng.fraction() * 2.0),
        4 => format!("{:e}", rng.fraction() * 10f64.powi(rng.below(10) as i32 - 5)),
        5 => rng.pick(&["-1", "-0", "+1", "+.5", "-.5", ".5", "0.", "5.", "1.e2", "1e2", "1E2", "1e-2", "1e+2"]).to_string(),
        6 => rng.pick(&["1e999", "-1e999", "1e-999", "--1", "", "none", "calc(1)", "0x1", "1_0", "inf", "nan", "e5", "1e"]).to_string(),
        7 => rng.pick(&["١", "1.5.5", "1-2", "+-1", ".", "+", "1e5.5", "0.0000001", "100", "255", "256"]).to_string(),
        8 => format!("{}", any_float(rng)),
        _ => format!("{}", rng.below(101)),
    }
}

const SPACES: &[&str] = &[" ", " ", " ", "  ", "\t", "\n", "\u{c}", "\r", "\u{b}", "\u{a0}", ""];

/// A number CSS reads, for a component of `notation` at `index` (3: alpha).
fn good_component(rng: &mut Rng, notation: &str, index: usize) -> String {
    let number = match rng.below(6) {
        0 => format!("{}", rng.below(256)),
        1 => format!("{:.3}", rng.fraction() * 100.0),
        2 => format!("{}", rng.fraction()),
        3 => format!(".{}", rng.below(1000)),
        4 => format!("{}e{}", rng.below(100), rng.below(5) as i64 - 2),
        _ => format!("{}{}", if rng.chance(50) { "-" } else { "+" }, rng.below(400)),
    };
    let hue = index == 0 && notation.starts_with('h') || index == 2 && notation == "oklch";
    let percent = match notation {
        _ if index == 3 => rng.chance(30),
        "hsl" | "hwb" => index > 0,
        _ if hue => false,
        _ => rng.chance(25),
    };
    let unit = if hue { rng.pick(&["", "", "deg", "rad", "grad", "turn"]) } else { "" };
    format!("{number}{}{unit}", if percent { "%" } else { "" })
}

/// A colour in a notation `parse` reads (some numbers out of range).
fn good_css_text(rng: &mut Rng) -> String {
    let notation = rng.pick(&["rgb", "hsl", "hwb", "oklab", "oklch", "color(srgb", "color(srgb-linear"]);
    let legacy = matches!(notation, "rgb" | "hsl") && rng.chance(40);
    let all_percent = rng.chance(30);
    let mut parts: Vec<String> = (0..3)
        .map(|i| {
            let mut part = good_component(rng, notation, i);
            if legacy && notation == "rgb" {
                part = part.trim_end_matches('%').to_string();
                if all_percent {
                    part.push('%');
                }
            }
            part
        })
        .collect();
    let alpha = rng.chance(40).then(|| good_component(rng, notation, 3));
    let mut text = format!("{notation}{}", if notation.starts_with("color") { " " } else { "(" });
    if legacy {
        if let Some(alpha) = alpha {
            parts.push(alpha);
        }
        text.push_str(&parts.join(", "));
    } else {
        text.push_str(&parts.join(" "));
        if let Some(alpha) = alpha {
            text.push_str(" / ");
            text.push_str(&alpha);
        }
    }
    text.push(')');
    text
}

fn css_text(rng: &mut Rng, names: &[&'static str]) -> String {
    if rng.chance(45) {
        return good_css_text(rng);
    }
    let mut text = match rng.below(10) {
        0 => {
            let mut name = rng.pick(names).to_string();
            if rng.chance(30) {
                name = name.chars().map(|c| if rng.chance(50) { c.to_ascii_uppercase() } else { c }).collect();
            }
            name
        }
        1 | 2 => {
            let length = rng.below(10);
            let mut hex = String::from(if rng.chance(90) { "#" } else { "" });
            for _ in 0..length {
                hex.push(rng.pick(&['0', '7', '9', 'a', 'c', 'f', 'A', 'F', 'g', 'G', ' ']));
            }
            hex
        }
        3 => {
            let length = rng.below(16);
            (0..length)
                .map(|_| rng.pick(&['(', ')', ',', '/', '%', '#', '.', ' ', '+', '-', 'e', '1', '0', 'r', 'g', 'b', 'é', '\u{a0}']))
                .collect()
        }
        _ => {
            let mut text = rng.pick(FUNCTIONS).to_string();
            let comma = rng.chance(30);
            let count = rng.pick(&[3, 3, 3, 3, 3, 2, 4, 5]);
            for i in 0..count {
                if i > 0 {
                    text.push_str(if comma { rng.pick(&[",", ", ", " ,", ",\t"]) } else { rng.pick(SPACES) });
                }
                text.push_str(&number_token(rng));
                text.push_str(rng.pick(SUFFIXES));
            }
            if rng.chance(30) {
                text.push_str(rng.pick(&[" / ", "/", " /", ", ", " / / ", ","]));
                text.push_str(&number_token(rng));
                if rng.chance(40) {
                    text.push('%');
                }
            }
            text.push_str(rng.pick(&[")", ")", ")", ")", "", "))", " )", ") "]));
            text
        }
    };
    if rng.chance(10) {
        let chars: Vec<char> = text.chars().collect();
        let at = if chars.is_empty() { 0 } else { rng.below(chars.len() as u64) as usize };
        let mut edited: String = chars[..at].iter().collect();
        match rng.below(3) {
            0 => {}
            1 => edited.push(rng.pick(&['(', ')', ',', '/', ' ', '%', '.', 'e', '-'])),
            _ => edited.push_str(&chars.get(at..at + 1).map(|c| c.iter().collect::<String>()).unwrap_or_default()),
        }
        edited.extend(chars.iter().skip(at + 1));
        text = edited;
    }
    if rng.chance(15) {
        text = format!("{}{text}{}", rng.pick(SPACES), rng.pick(SPACES));
    }
    text
}

fn color_args(rng: &mut Rng, code: u32, names: &[&'static str]) -> Vec<HostValue> {
    let params = params(color_family(code));
    let mut args: Vec<HostValue> = params
        .iter()
        .map(|param| match param {
            Param::Color => color_value(rng),
            Param::Text if rng.chance(97) => HostValue::Str(css_text(rng, names)),
            Param::Space if rng.chance(95) => {
                HostValue::Str(rng.pick(&["srgb", "linearSrgb", "oklab", "srgb", "linearSrgb", "oklab", "SRGB", "lab", ""]).to_string())
            }
            Param::Text | Param::Space => wrong_kind(rng),
            other => number(rng, *other),
        })
        .collect();
    if rng.chance(1) {
        if rng.chance(50) {
            args.pop();
        } else {
            args.push(HostValue::Float(0.5));
        }
    }
    args
}

#[test]
fn random_color_sweep() {
    const PER_OP: u64 = 40_000;
    const PARSE: u64 = 300_000;
    let names: Vec<&'static str> = ours::css_color_names().collect();
    let mut rng = Rng(0x5eed_0027);
    let mut tally = Tally::default();
    for code in 0..ours::COLOR_OP_COUNT {
        let runs = if matches!(color_family(code), "parse" | "tryParse") { PARSE } else { PER_OP };
        for _ in 0..runs {
            let args = color_args(&mut rng, code, &names);
            tally.count(color_family(code));
            match compare_color(code, &args) {
                Ok(Ok(_)) => tally.succeeded(color_family(code)),
                Ok(Err(_)) => {}
                Err(what) => tally.mismatch(what),
            }
        }
    }
    // Codes past the table.
    for code in [ours::COLOR_OP_COUNT, 38, 1000, u32::MAX] {
        tally.count("(no such op)");
        if let Err(what) = compare_color(code, &[color_value(&mut rng)]) {
            tally.mismatch(what);
        }
    }
    tally.finish("random colour sweep");
}

