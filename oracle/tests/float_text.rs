//! Float text against the reference: `text<float64>` and `text<float32>` of the same floats,
//! evaluated by nx-ir-core and by `nx-ir-runtime` 0.7.0 and 0.10.0 on the same image, and
//! nx-ir-core's `float32_text` against 0.10.0's (public) one directly.
//!
//! nx-ir-core takes the shortest digits of a float of 16 or more significant digits from `ryu`,
//! and breaks an exact tie between two shortest decimals upward as the reference's formatter
//! does (ryu alone takes the even one); the floats include such ties by the thousand, products
//! like the benches' `i * 0.1`, quotients, the layout's boundaries and bit patterns spread over
//! the whole finite range.

use nx_agent_oracle::engine::{CallLimits, Engine, Ours, Reference5, Reference6};
use nx_ir_core::assemble::{assemble_with_links, AssembleOptions};

const FLOATS: &str = r#"module floats.nx fingerprint 1
entrypoints functions [wide narrow] components []

function wide(xs: float64*) =
  for x in xs yield
    text<float64>(x)

function narrow(xs: float32*) =
  for x in xs yield
    text<float32>(x)
"#;

/// Finite floats of every kind the text path meets (see the module's comment).
fn floats() -> Vec<f64> {
    let mut values = Vec::new();
    let mut bits: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = || {
        bits = bits.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        bits
    };
    for i in 0..3_000i64 {
        values.push(i as f64 * 0.1);
        values.push(i as f64 / 7.0);
        values.push(-(i as f64) * 0.01);
    }
    for _ in 0..3_000 {
        // Exact f64 ties: [2^50, 2^51) ending in .25 or .75; f32 ties: [2^21, 2^22) likewise.
        let whole = (1u64 << 50) + (next() >> 14) % (1u64 << 50);
        values.push(whole as f64 + 0.25);
        values.push(-(whole as f64 + 0.75));
        let whole32 = (1u32 << 21) + (next() >> 40) as u32 % (1u32 << 21);
        values.push(f64::from(whole32 as f32 + 0.25));
        // Anywhere in the finite range, and in [1000, 2000).
        let any = f64::from_bits(next());
        if any.is_finite() {
            values.push(any);
        }
        values.push(f64::from_bits(next() >> 12 | 0x3FF0_0000_0000_0000) * 1000.0);
    }
    for e in -30..30 {
        let p = 10f64.powi(e);
        for m in [1.0, 1.5, 9.99, 123.456, 999_999_999_999_999.0, 0.3, 2.5e-3] {
            values.extend([m * p, f64::from_bits((m * p).to_bits() + 1), f64::from_bits((m * p).to_bits() - 1)]);
        }
    }
    values.extend([f64::MIN_POSITIVE, 5e-324, f64::MAX, -f64::MAX, 1e21, 1e-7, 0.5]);
    values
}

/// Each engine's texts of `floats` through `function`, in chunks of 2,000 (one call each).
fn texts<E: Engine>(schema: u32, function: &str, floats: &[f64]) -> Vec<String> {
    let options = AssembleOptions { source: None, version: String::new(), schema };
    let module = assemble_with_links(FLOATS, &options, &[FLOATS]).expect("the program assembles");
    let bytes = nx_ir_core::writer::encode(&module);
    let prepared = E::prepare(&bytes).unwrap_or_else(|d| panic!("{} refused the image: {d:?}", E::NAME));
    let program = E::link(&prepared, &[prepared.clone()]).unwrap_or_else(|d| panic!("{} did not link: {d:?}", E::NAME));
    let mut out = Vec::new();
    for chunk in floats.chunks(2_000) {
        let args = serde_json::to_string(chunk).expect("finite floats");
        let outcome = E::evaluate(&program, function, &[&args], CallLimits::default());
        let value = outcome.result.unwrap_or_else(|d| panic!("{} failed: {d:?}", E::NAME));
        out.push(value.to_string());
    }
    out
}

fn agree<R: Engine>(schema: u32) -> usize {
    let values = floats();
    // A float32 parameter takes only floats exact as an f32: the values narrowed (those in range).
    let narrowed: Vec<f64> =
        values.iter().map(|v| *v as f32).filter(|v| v.is_finite()).map(f64::from).collect();
    for (function, floats) in [("wide", &values), ("narrow", &narrowed)] {
        let ours = texts::<Ours>(schema, function, floats);
        let theirs = texts::<R>(schema, function, floats);
        assert_eq!(ours.len(), theirs.len());
        for (chunk, (a, b)) in ours.iter().zip(&theirs).enumerate() {
            if a != b {
                let at = a.bytes().zip(b.bytes()).position(|(x, y)| x != y).unwrap_or(0);
                panic!(
                    "{function} schema {schema}, chunk {chunk}: nx-ir-core and {} differ near byte {at}:\n  ours   …{}\n  theirs …{}",
                    R::NAME,
                    &a[at.saturating_sub(60)..(at + 60).min(a.len())],
                    &b[at.saturating_sub(60)..(at + 60).min(b.len())]
                );
            }
        }
    }
    values.len()
}

#[test]
fn float_text_agrees_with_the_reference_0_7() {
    let count = agree::<Reference5>(5);
    println!("float text: schema 5, {count} floats as float64 and float32 text, 0 disagreements");
}

#[test]
fn float_text_agrees_with_the_reference_0_10() {
    let count = agree::<Reference6>(6);
    println!("float text: schema 6, {count} floats as float64 and float32 text, 0 disagreements");
}

#[test]
fn float32_text_agrees_with_the_reference_function() {
    let values = floats();
    for value in &values {
        assert_eq!(nx_ir_core::eval::float32_text(*value), ref6_runtime::float32_text(*value), "{value:e}");
    }
    println!("float32_text: {} floats, 0 disagreements", values.len());
}
