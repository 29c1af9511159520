//! Expected values come from CSS Color 4, WCAG 2.2, IEEE 754 and the facts of nx-value 0.10's
//! case files (`math-cases.json`, `color-cases.json`); `oracle/tests/stdlib.rs` compares every
//! operation with the reference itself.

use super::css_names::css_color_names;
use super::*;
use crate::eval::host::{HostRecord, HostValue};

// ---- math ------------------------------------------------------------------------------------

fn op(name: &str) -> MathOp {
    (0..MathOp::COUNT).filter_map(MathOp::from_code).find(|op| op.name() == name).expect(name)
}

fn math(name: &str, args: &[f64]) -> Result<f64, StdError> {
    evaluate_math(op(name), args)
}

#[test]
fn math_ops_are_numbered_as_schema_6_lists_them() {
    let names = [
        "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sqrt", "hypot", "abs", "sign", "min", "max", "clamp",
        "floor", "ceil", "round", "roundTiesToEven", "trunc", "degreesToRadians", "radiansToDegrees", "lerp",
    ];
    assert_eq!(MathOp::COUNT as usize, names.len());
    for (code, name) in names.iter().enumerate() {
        let op = MathOp::from_code(code as u32).expect("an op");
        assert_eq!((op.name(), op.code()), (*name, code as u32));
        let arity = match *name {
            "atan2" | "hypot" | "min" | "max" => 2,
            "clamp" | "lerp" => 3,
            _ => 1,
        };
        assert_eq!(op.arity(), arity, "{name}");
    }
    assert_eq!(MathOp::from_code(22), None);
    assert_eq!(MathOp::from_code(u32::MAX), None);
}

#[test]
fn math_results_exact_to_the_bit() {
    let pi = std::f64::consts::PI;
    let cases: &[(&str, &[f64], f64)] = &[
        ("sin", &[-0.0], -0.0),
        ("tan", &[-0.0], -0.0),
        ("asin", &[-0.0], -0.0),
        ("atan", &[-0.0], -0.0),
        ("sqrt", &[-0.0], -0.0),
        ("sign", &[-0.0], -0.0),
        ("floor", &[-0.0], -0.0),
        ("ceil", &[-0.0], -0.0),
        ("round", &[-0.0], -0.0),
        ("roundTiesToEven", &[-0.0], -0.0),
        ("trunc", &[-0.0], -0.0),
        ("degreesToRadians", &[-0.0], -0.0),
        ("radiansToDegrees", &[-0.0], -0.0),
        ("cos", &[0.0], 1.0),
        ("abs", &[-0.0], 0.0),
        ("sign", &[0.0], 0.0),
        ("sign", &[-2.0], -1.0),
        ("sign", &[2.0], 1.0),
        ("acos", &[1.0], 0.0),
        ("min", &[0.0, -0.0], -0.0),
        ("min", &[-0.0, 0.0], -0.0),
        ("min", &[-2.0, 3.0], -2.0),
        ("max", &[0.0, -0.0], 0.0),
        ("max", &[-0.0, 0.0], 0.0),
        ("max", &[-2.0, 3.0], 3.0),
        // Ties go up (toward +infinity), as in JavaScript's Math.round.
        ("round", &[2.5], 3.0),
        ("round", &[3.5], 4.0),
        ("round", &[-2.5], -2.0),
        ("round", &[-3.5], -3.0),
        ("round", &[-0.5], -0.0),
        ("round", &[-0.4], -0.0),
        ("round", &[0.49999999999999994], 0.0),
        ("round", &[4503599627370495.5], 4503599627370496.0),
        ("roundTiesToEven", &[2.5], 2.0),
        ("roundTiesToEven", &[3.5], 4.0),
        ("roundTiesToEven", &[-2.5], -2.0),
        ("roundTiesToEven", &[-3.5], -4.0),
        ("roundTiesToEven", &[-0.5], -0.0),
        ("roundTiesToEven", &[4503599627370495.5], 4503599627370496.0),
        ("floor", &[-0.1], -1.0),
        ("ceil", &[-0.1], -0.0),
        ("trunc", &[-0.1], -0.0),
        ("atan2", &[0.0, 0.0], 0.0),
        ("atan2", &[-0.0, 0.0], -0.0),
        ("atan2", &[0.0, -0.0], pi),
        ("atan2", &[-0.0, -0.0], -pi),
        ("hypot", &[-0.0, -0.0], 0.0),
        ("hypot", &[5e-324, 0.0], 5e-324),
        ("sin", &[5e-324], 5e-324),
        ("lerp", &[-1e308, 1e308, 0.5], 0.0),
        ("lerp", &[-0.0, 1.0, 0.0], -0.0),
        ("lerp", &[1.0, -0.0, 1.0], -0.0),
        ("lerp", &[-0.0, 0.0, 0.5], -0.0),
        ("lerp", &[0.0, 10.0, 1.5], 15.0),
        ("lerp", &[0.0, 10.0, -0.5], -5.0),
        ("clamp", &[-1.0, 0.0, 1.0], 0.0),
        ("clamp", &[2.0, 0.0, 1.0], 1.0),
        ("clamp", &[-0.0, 0.0, 1.0], 0.0),
        ("clamp", &[5.0, 2.0, 2.0], 2.0),
        ("clamp", &[2.0, 2.0, 5.0], 2.0),
        ("clamp", &[5.0, 2.0, 5.0], 5.0),
    ];
    for (name, args, expected) in cases {
        let actual = math(name, args).unwrap_or_else(|e| panic!("{name}{args:?}: {e:?}"));
        assert_eq!(actual.to_bits(), expected.to_bits(), "{name}{args:?}: {actual:?}");
    }
}

#[test]
// The values are the case file's, digit for digit.
#[allow(clippy::approx_constant)]
fn math_results_close_to_the_true_value() {
    let cases: &[(&str, &[f64], f64)] = &[
        ("sin", &[0.5], 0.479425538604203),
        ("cos", &[0.5], 0.8775825618903728),
        ("tan", &[0.5], 0.5463024898437905),
        ("asin", &[0.5], 0.5235987755982989),
        ("acos", &[0.5], 1.0471975511965979),
        ("atan", &[0.5], 0.4636476090008061),
        ("sqrt", &[0.5], 0.7071067811865476),
        ("asin", &[1.0], 1.5707963267948966),
        ("sin", &[1e300], -0.8178819121159085),
        ("tan", &[1.5707963267948966], 1.633123935319537e16),
        ("atan2", &[1.0, -1.0], 2.356194490192345),
        ("hypot", &[1e308, 1e308], 1.4142135623730951e308),
        ("sqrt", &[5e-324], 2.2227587494850775e-162),
        ("degreesToRadians", &[90.0], 1.5707963267948966),
        ("radiansToDegrees", &[90.0], 5156.620156177409),
        ("degreesToRadians", &[1e308], 1.7453292519943295e306),
        ("lerp", &[0.1, 0.3, 0.7], 0.24),
        // The difference form overflows here; the result does not.
        ("lerp", &[1.7e308, 1e307, 1.2], -2.1999999999999992e307),
        ("lerp", &[1e307, 1.7e308, -1.15], -1.7399999999999999e308),
    ];
    for (name, args, expected) in cases {
        let actual = math(name, args).unwrap_or_else(|e| panic!("{name}{args:?}: {e:?}"));
        assert!((actual - expected).abs() <= 1e-12 * expected.abs().max(1.0), "{name}{args:?}: {actual:?}");
    }
}

#[test]
fn math_refusals_in_order_with_the_reference_messages() {
    let refused = |name: &str, args: &[f64], code: &str, message: &str| {
        let error = math(name, args).expect_err(name);
        assert_eq!((error.code, error.message.as_str()), (code, message), "{name}{args:?}");
    };
    refused("sqrt", &[-1.0], codes::MATH_DOMAIN, "sqrt: invalid domain or bounds");
    refused("asin", &[1.1], codes::MATH_DOMAIN, "asin: invalid domain or bounds");
    refused("acos", &[-1.1], codes::MATH_DOMAIN, "acos: invalid domain or bounds");
    refused("clamp", &[0.0, 2.0, 1.0], codes::MATH_DOMAIN, "clamp: invalid domain or bounds");
    refused("hypot", &[1.7e308, 1.7e308], codes::MATH_OVERFLOW, "hypot: result is not finite");
    refused("radiansToDegrees", &[1e308], codes::MATH_OVERFLOW, "radiansToDegrees: result is not finite");
    refused("lerp", &[0.0, 1e308, 2.0], codes::MATH_OVERFLOW, "lerp: result is not finite");
    refused("sin", &[0.0, 1.0], codes::MATH_DOMAIN, "sin: wrong argument count");
    refused("lerp", &[], codes::MATH_DOMAIN, "lerp: wrong argument count");
    // The count comes first, then finiteness, then the domain.
    refused("sqrt", &[f64::NAN, 1.0], codes::MATH_DOMAIN, "sqrt: wrong argument count");
    refused("sqrt", &[f64::NEG_INFINITY], codes::MATH_NON_FINITE_INPUT, "sqrt: arguments must be finite");
    refused("clamp", &[0.0, f64::INFINITY, 1.0], codes::MATH_NON_FINITE_INPUT, "clamp: arguments must be finite");
    for code in 0..MathOp::COUNT {
        let op = MathOp::from_code(code).expect("an op");
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            for at in 0..op.arity() {
                let mut args = [0.0; 3];
                args[at] = bad;
                let error = evaluate_math(op, &args[..op.arity()]).expect_err(op.name());
                assert_eq!(error.code, codes::MATH_NON_FINITE_INPUT, "{}", op.name());
            }
        }
    }
    let error = math_argument_error();
    assert_eq!((error.code, error.message.as_str()), ("nx-math-domain", "expected float64"));
}

// ---- colour ----------------------------------------------------------------------------------

fn code(name: &str) -> u32 {
    color_op_code(name).expect(name)
}

fn call(name: &str, args: &[HostValue]) -> Result<HostValue, StdError> {
    evaluate_color(code(name), args)
}

fn parse(text: &str) -> HostValue {
    call("parse", &[HostValue::str(text)]).unwrap_or_else(|e| panic!("{text:?}: {e:?}"))
}

fn f(x: f64) -> HostValue {
    HostValue::Float(x)
}

/// A colour record as a program would build it.
fn rgba(r: f64, g: f64, b: f64, a: f64) -> HostValue {
    HostValue::Record(HostRecord::new(Some("Color")).with("r", f(r)).with("g", f(g)).with("b", f(b)).with("a", f(a)))
}

/// The channels of a `Color` result, checking its shape.
fn channels(value: &HostValue) -> [f64; 4] {
    let HostValue::Record(record) = value else { panic!("not a record: {value:?}") };
    assert_eq!(record.type_name.as_deref(), Some("Color"));
    let names: Vec<&str> = record.fields.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(names, ["a", "b", "g", "r"]);
    ["r", "g", "b", "a"].map(|k| match record.get(k) {
        Some(HostValue::Float(x)) => *x,
        other => panic!("{k}: {other:?}"),
    })
}

/// Channels equal once rounded to float32, as the reference's case test compares them.
fn assert_exact(actual: [f64; 4], expected: [f64; 4], what: &str) {
    assert_eq!(actual.map(|x| (x as f32).to_bits()), expected.map(|x| (x as f32).to_bits()), "{what}: {actual:?}");
}

fn assert_close(actual: [f64; 4], expected: [f64; 4], what: &str) {
    for (a, e) in actual.iter().zip(expected) {
        assert!((a - e).abs() <= 2e-6, "{what}: {actual:?} vs {expected:?}");
    }
}

fn refused_with(result: Result<HostValue, StdError>, code: &str, message: &str) {
    let error = result.expect_err(message);
    assert_eq!((error.code, error.message.as_str()), (code, message));
}

#[test]
fn colour_ops_table() {
    let expected: [(&str, usize); 37] = [
        ("rgb", 3),
        ("rgba", 4),
        ("srgb", 4),
        ("linearRgb", 4),
        ("hsl", 4),
        ("hsv", 4),
        ("hwb", 4),
        ("oklab", 4),
        ("oklch", 4),
        ("parse", 1),
        ("tryParse", 1),
        ("validate", 1),
        ("toHex", 1),
        ("toCss", 1),
        ("toRgb", 1),
        ("toHsl", 1),
        ("toHsv", 1),
        ("toHwb", 1),
        ("toLinearRgb", 1),
        ("toOklab", 1),
        ("toOklch", 1),
        ("withAlpha", 2),
        ("fadeIn", 2),
        ("fadeOut", 2),
        ("lighten", 2),
        ("darken", 2),
        ("saturate", 2),
        ("desaturate", 2),
        ("rotateHue", 2),
        ("complement", 1),
        ("grayscale", 1),
        ("invert", 2),
        ("mix", 4),
        ("composite", 2),
        ("relativeLuminance", 1),
        ("contrastRatio", 2),
        ("bestTextColor", 3),
    ];
    assert_eq!(COLOR_OP_COUNT as usize, expected.len());
    for (code, (name, arity)) in expected.iter().enumerate() {
        assert_eq!(color_op_name(code as u32), Some(*name));
        assert_eq!(color_op_arity(code as u32), Some(*arity));
        assert_eq!(color_op_code(name), Some(code as u32));
    }
    refused_with(evaluate_color(37, &[]), codes::COLOR_INVALID_CHANNEL, "invalid color channel or parameter: operation");
    refused_with(call("toHex", &[]), codes::COLOR_INVALID_CHANNEL, "invalid color channel or parameter: arity");
}

#[test]
fn named_colours_are_css_color_4s() {
    let names: Vec<&str> = css_color_names().collect();
    assert_eq!(names.len(), 148);
    assert!(names.windows(2).all(|pair| pair[0] < pair[1]), "sorted and distinct");
    let known = [
        ("rebeccapurple", [0x66, 0x33, 0x99]),
        ("aliceblue", [240, 248, 255]),
        ("darkgoldenrod", [184, 134, 11]),
        ("grey", [128, 128, 128]),
        ("yellowgreen", [154, 205, 50]),
    ];
    for (name, bytes) in known {
        let expected = [bytes[0], bytes[1], bytes[2], 255].map(|b| f64::from(b) / 255.0);
        assert_exact(channels(&parse(name)), expected, name);
    }
}

#[test]
fn parse_reads_css_colours() {
    let exact: &[(&str, [f64; 4])] = &[
        (" RED ", [1.0, 0.0, 0.0, 1.0]),
        ("#1234", [0x11 as f64 / 255.0, 0x22 as f64 / 255.0, 0.2, 0x44 as f64 / 255.0]),
        ("rebeccapurple", [0.4, 0.2, 0.6, 1.0]),
        ("transparent", [0.0; 4]),
        ("rgb(100% 0% 0% / 50%)", [1.0, 0.0, 0.0, 0.5]),
        ("color(srgb 1 0 0 / .5)", [1.0, 0.0, 0.0, 0.5]),
        ("rgb(255\n0 0)", [1.0, 0.0, 0.0, 1.0]),
        ("rgb(255\r0 0)", [1.0, 0.0, 0.0, 1.0]),
        ("color( srgb 1 0 0)", [1.0, 0.0, 0.0, 1.0]),
        ("rgba(255, 0, 0, 0.5)", [1.0, 0.0, 0.0, 0.5]),
        ("#f00", [1.0, 0.0, 0.0, 1.0]),
        ("#FF0000", [1.0, 0.0, 0.0, 1.0]),
        ("#FF000080", [1.0, 0.0, 0.0, 128.0 / 255.0]),
        ("#0000", [0.0; 4]),
    ];
    for (text, expected) in exact {
        assert_exact(channels(&parse(text)), *expected, text);
    }
    let close: &[(&str, [f64; 4])] = &[
        ("hsl(0.5turn 100% 50%)", [0.0, 1.0, 1.0, 1.0]),
        ("hwb(0 100% 100%)", [0.5, 0.5, 0.5, 1.0]),
        ("color(srgb-linear 1 0 0)", [1.0, 0.0, 0.0, 1.0]),
        ("oklab(1 0 0)", [1.0, 1.0, 1.0, 1.0]),
        ("oklch(0 0 0)", [0.0, 0.0, 0.0, 1.0]),
        ("hsl(0 50 50)", [0.75, 0.25, 0.25, 1.0]),
        ("hsl(120 100 50)", [0.0, 1.0, 0.0, 1.0]),
        ("hwb(0 0 0)", [1.0, 0.0, 0.0, 1.0]),
        ("hsl(200grad 100% 50%)", [0.0, 1.0, 1.0, 1.0]),
        ("hsl(0rad 100% 50%)", [1.0, 0.0, 0.0, 1.0]),
        ("hsl(120deg 100% 50%)", [0.0, 1.0, 0.0, 1.0]),
        ("hsla(0, 100%, 50%, 0.5)", [1.0, 0.0, 0.0, 0.5]),
    ];
    for (text, expected) in close {
        assert_close(channels(&parse(text)), *expected, text);
    }
}

#[test]
fn parse_refuses_what_it_does_not_read() {
    let refused = [
        "#12",
        "#gg0000",
        "currentColor",
        "var(--accent)",
        "none",
        "rgb(1, 2 3)",
        "hwb(0, 0%, 0%)",
        "rgb(1 2 3 4)",
        "color(display-p3 1 0 0)",
        "rgb(none 0 0)",
        "calc(1)",
        "rgb(1e999 0 0)",
        "bad",
        "ff0000",
        "cafe",
        "\u{b}red",
        "rgb(255\u{b}0 0)",
        "rgb(255\u{a0}0 0)",
        "\u{a0}red",
        "hsl(120, 100, 50)",
        "rgb(255. 0 0)",
        "rgb(1.e2 0 0)",
        "rgb(20.% 0% 0%)",
        "hsl(120.deg 100% 50%)",
        "",
        "rgb(",
        "rgb(1 2 3",
        "rgb(1 2 3 / 4 / 5)",
    ];
    for text in refused {
        let error = call("parse", &[HostValue::str(text)]).expect_err(text);
        assert_eq!(error.code, codes::COLOR_INVALID_TEXT, "{text:?}");
    }
    // The message quotes the text trimmed of ASCII whitespace, in its own case.
    refused_with(call("parse", &[HostValue::str("  currentColor\t")]), codes::COLOR_INVALID_TEXT, "invalid standalone color: currentColor");
    refused_with(call("parse", &[f(1.0)]), codes::COLOR_INVALID_CHANNEL, "invalid color channel or parameter: text");
}

#[test]
fn try_parse_gives_a_parse_result() {
    let parsed = call("tryParse", &[HostValue::str("red")]).expect("a result");
    let HostValue::Record(record) = &parsed else { panic!("{parsed:?}") };
    assert_eq!(record.type_name.as_deref(), Some("ParseResult.parsed"));
    assert_exact(channels(record.get("value").expect("value")), [1.0, 0.0, 0.0, 1.0], "red");
    let invalid = call("tryParse", &[HostValue::str(" nope ")]).expect("a result");
    let expected = HostRecord::new(Some("ParseResult.invalid")).with("message", HostValue::str("invalid standalone color: nope"));
    assert_eq!(invalid, HostValue::Record(expected));
}

#[test]
fn constructors_and_their_refusals() {
    let color = |name: &str, args: &[f64]| channels(&call(name, &args.iter().map(|x| f(*x)).collect::<Vec<_>>()).expect(name));
    assert_exact(color("rgb", &[255.0, 0.0, 0.0]), [1.0, 0.0, 0.0, 1.0], "rgb");
    assert_exact(color("rgba", &[255.0, 0.0, 0.0, 0.5]), [1.0, 0.0, 0.0, 0.5], "rgba");
    assert_exact(color("srgb", &[0.123456789, 0.4, 0.8, 0.5]), [0.123456789, 0.4, 0.8, 0.5], "srgb");
    assert_close(color("linearRgb", &[0.5, 0.5, 0.5, 1.0]), [0.735356983, 0.735356983, 0.735356983, 1.0], "linearRgb");
    assert_close(color("hsl", &[360.0, 1.0, 0.5, 1.0]), [1.0, 0.0, 0.0, 1.0], "hsl");
    assert_close(color("hsv", &[-120.0, 1.0, 1.0, 1.0]), [0.0, 0.0, 1.0, 1.0], "hsv");
    assert_close(color("hwb", &[0.0, 1.0, 1.0, 1.0]), [0.5, 0.5, 0.5, 1.0], "hwb");
    assert_close(color("oklab", &[1.0, 0.0, 0.0, 1.0]), [1.0, 1.0, 1.0, 1.0], "oklab");
    assert_close(color("oklch", &[0.0, 0.0, 0.0, 1.0]), [0.0, 0.0, 0.0, 1.0], "oklch");
    for name in ["hsl", "hsv", "hwb"] {
        let s = if name == "hwb" { 0.0 } else { 1.0 };
        let v = if name == "hsl" { 0.5 } else if name == "hsv" { 1.0 } else { 0.0 };
        assert_close(color(name, &[-1e-20, s, v, 1.0]), [1.0, 0.0, 0.0, 1.0], name);
    }
    // An int is a number.
    let ints = call("rgb", &[HostValue::Int(255), HostValue::Int(0), HostValue::Int(0)]).expect("rgb");
    assert_exact(channels(&ints), [1.0, 0.0, 0.0, 1.0], "ints");
    let channel = codes::COLOR_INVALID_CHANNEL;
    refused_with(call("srgb", &[f(1.01), f(0.0), f(0.0), f(1.0)]), channel, "invalid color channel or parameter: r");
    refused_with(call("rgba", &[f(256.0), f(0.0), f(0.0), f(1.0)]), channel, "invalid color channel or parameter: r");
    refused_with(call("hsl", &[f(0.0), f(2.0), f(0.5), f(1.0)]), channel, "invalid color channel or parameter: s");
    refused_with(call("oklch", &[f(0.5), f(-1.0), f(0.0), f(1.0)]), channel, "invalid color channel or parameter: chroma");
    // Alpha first, then every channel finite, then the op's own ranges.
    refused_with(call("rgba", &[f(f64::NAN), f(0.0), f(0.0), f(2.0)]), channel, "invalid color channel or parameter: alpha");
    refused_with(call("rgba", &[f(300.0), f(f64::NAN), f(0.0), f(1.0)]), channel, "invalid color channel or parameter: channel");
    refused_with(call("rgb", &[f(0.0), HostValue::str("1"), f(0.0)]), channel, "invalid color channel or parameter: number");
    refused_with(call("linearRgb", &[f(0.5), f(1.5), f(0.0), f(1.0)]), channel, "invalid color channel or parameter: linearRgb");
}

#[test]
fn colour_arguments_are_checked() {
    let channel = codes::COLOR_INVALID_CHANNEL;
    let missing_r = HostValue::Record(HostRecord::new(Some("Color")).with("g", f(0.0)).with("b", f(0.0)));
    refused_with(call("validate", &[missing_r]), channel, "invalid color channel or parameter: r");
    // 0.1 is not a float32 value.
    refused_with(call("validate", &[rgba(0.1, 0.0, 0.0, 1.0)]), channel, "invalid color channel or parameter: r");
    refused_with(call("validate", &[rgba(0.0, 0.0, 0.0, 1.5)]), channel, "invalid color channel or parameter: a");
    refused_with(call("validate", &[f(0.5)]), channel, "invalid color channel or parameter: Color");
    refused_with(
        call("validate", &[HostValue::Record(HostRecord::new(None).with("r", HostValue::Null))]),
        channel,
        "invalid color channel or parameter: number",
    );
    // Alpha defaults to 1, ints are read as floats, the type name and other fields are ignored.
    let loose = HostValue::Record(
        HostRecord::new(Some("Whatever")).with("b", HostValue::Int(1)).with("g", f(0.25)).with("r", f(0.5)).with("x", HostValue::Null),
    );
    assert_exact(channels(&call("validate", &[loose]).expect("a colour")), [0.5, 0.25, 1.0, 1.0], "loose");
    // A -0 channel is accepted and written as +0.
    let zero = channels(&call("validate", &[rgba(-0.0, 0.0, 0.0, 1.0)]).expect("a colour"));
    assert_eq!(zero[0].to_bits(), 0.0_f64.to_bits());
}

#[test]
fn conversions_and_text() {
    let red = parse("#f00");
    let text = |name: &str, value: &HostValue| match call(name, std::slice::from_ref(value)) {
        Ok(HostValue::Str(s)) => s,
        other => panic!("{name}: {other:?}"),
    };
    assert_eq!(text("toHex", &parse("#ff000080")), "#ff000080");
    assert_eq!(text("toCss", &red), "rgba(255, 0, 0, 1)");
    assert_eq!(text("toCss", &parse("#00000000")), "rgba(0, 0, 0, 0)");
    // toCss writes text parse reads back to the same colour.
    for source in ["red", "#f008", "#12345678", "rgb(255, 0, 0)", "hsl(180 100% 50%)"] {
        let colour = parse(source);
        assert_exact(channels(&parse(&text("toCss", &colour))), channels(&colour), source);
    }
    let record = |name: &str, value: &HostValue| match call(name, std::slice::from_ref(value)) {
        Ok(HostValue::Record(r)) => r,
        other => panic!("{name}: {other:?}"),
    };
    let expect = |name: &str, value: &HostValue, type_name: &str, fields: &[(&str, f64)]| {
        let r = record(name, value);
        assert_eq!(r.type_name.as_deref(), Some(type_name));
        let keys: Vec<&str> = r.fields.iter().map(|(k, _)| k.as_str()).collect();
        let mut sorted: Vec<&str> = fields.iter().map(|(k, _)| *k).collect();
        sorted.sort_unstable();
        assert_eq!(keys, sorted, "{name}: fields in byte order");
        for (k, x) in fields {
            match r.get(k) {
                Some(HostValue::Float(v)) => assert!((v - x).abs() <= 2e-6, "{name}.{k}: {v}"),
                other => panic!("{name}.{k}: {other:?}"),
            }
        }
    };
    expect("toRgb", &red, "RgbChannels", &[("r", 255.0), ("g", 0.0), ("b", 0.0), ("alpha", 1.0)]);
    expect("toHsl", &red, "HslChannels", &[("h", 0.0), ("s", 1.0), ("l", 0.5), ("alpha", 1.0)]);
    expect("toHsv", &red, "HsvChannels", &[("h", 0.0), ("s", 1.0), ("v", 1.0), ("alpha", 1.0)]);
    expect("toHwb", &red, "HwbChannels", &[("h", 0.0), ("w", 0.0), ("b", 0.0), ("alpha", 1.0)]);
    expect("toLinearRgb", &red, "LinearRgbChannels", &[("r", 1.0), ("g", 0.0), ("b", 0.0), ("alpha", 1.0)]);
    let black = parse("#000");
    expect("toOklab", &black, "OklabChannels", &[("l", 0.0), ("a", 0.0), ("b", 0.0), ("alpha", 1.0)]);
    expect("toOklch", &black, "OklchChannels", &[("l", 0.0), ("c", 0.0), ("h", 0.0), ("alpha", 1.0)]);
    // OKLab white is L = 1 (Ottosson's matrices, to about 1e-7).
    expect("toOklab", &parse("white"), "OklabChannels", &[("l", 1.0), ("a", 0.0), ("b", 0.0), ("alpha", 1.0)]);
}

#[test]
fn adjustments_mixing_and_contrast() {
    let red = parse("#f00");
    let with = |name: &str, args: &[HostValue]| channels(&call(name, args).unwrap_or_else(|e| panic!("{name}: {e:?}")));
    assert_close(with("withAlpha", &[red.clone(), f(0.5)]), [1.0, 0.0, 0.0, 0.5], "withAlpha");
    assert_close(with("fadeIn", &[parse("#ff000080"), f(1.0)]), [1.0, 0.0, 0.0, 1.0], "fadeIn");
    assert_close(with("fadeOut", &[parse("#ff000080"), f(1.0)]), [1.0, 0.0, 0.0, 0.0], "fadeOut");
    assert_close(with("lighten", &[red.clone(), f(0.5)]), [1.0, 1.0, 1.0, 1.0], "lighten");
    assert_close(with("darken", &[red.clone(), f(0.5)]), [0.0, 0.0, 0.0, 1.0], "darken");
    assert_close(with("saturate", &[parse("#808080"), f(1.0)]), [1.0, 1.0 / 255.0, 1.0 / 255.0, 1.0], "saturate");
    assert_close(with("desaturate", &[red.clone(), f(1.0)]), [0.5, 0.5, 0.5, 1.0], "desaturate");
    assert_close(with("rotateHue", &[red.clone(), f(120.0)]), [0.0, 1.0, 0.0, 1.0], "rotateHue");
    assert_close(with("complement", std::slice::from_ref(&red)), [0.0, 1.0, 1.0, 1.0], "complement");
    assert_close(with("grayscale", std::slice::from_ref(&red)), [0.5, 0.5, 0.5, 1.0], "grayscale");
    assert_close(with("invert", &[red.clone(), f(1.0)]), [0.0, 1.0, 1.0, 1.0], "invert");
    let (black, white, clear_blue) = (parse("#000"), parse("#fff"), parse("#0000ff00"));
    let mix = |a: &HostValue, b: &HostValue, w: f64, space: &str| with("mix", &[a.clone(), b.clone(), f(w), HostValue::str(space)]);
    assert_close(mix(&red, &clear_blue, 0.5, "srgb"), [1.0, 0.0, 0.0, 0.5], "mix srgb, premultiplied");
    assert_close(mix(&black, &white, 0.5, "linearSrgb"), [0.735356983, 0.735356983, 0.735356983, 1.0], "mix linear");
    assert_close(mix(&black, &white, 0.5, "srgb"), [0.5, 0.5, 0.5, 1.0], "mix srgb");
    assert_close(mix(&red, &clear_blue, 1.0, "oklab"), [0.0, 0.0, 1.0, 0.0], "mix weight 1");
    assert_close(mix(&parse("#ff000000"), &clear_blue, 0.5, "oklab"), [0.0; 4], "mix of transparents");
    // A weight of 0 or 1 answers before the space is looked at.
    assert_close(mix(&red, &white, 0.0, "cmyk"), [1.0, 0.0, 0.0, 1.0], "mix weight 0");
    assert_close(with("composite", &[parse("#ff000000"), white.clone()]), [1.0, 1.0, 1.0, 1.0], "composite");
    let channel = codes::COLOR_INVALID_CHANNEL;
    refused_with(call("mix", &[red.clone(), white.clone(), f(0.5), HostValue::str("cmyk")]), channel, "invalid color channel or parameter: space");
    refused_with(call("mix", &[black.clone(), white.clone(), f(2.0), HostValue::str("srgb")]), channel, "invalid color channel or parameter: weight");
    refused_with(call("withAlpha", &[red.clone(), f(-1.0)]), channel, "invalid color channel or parameter: amount");

    // WCAG 2.2: white's relative luminance is 1, black's 0, and their contrast 21:1.
    let number = |name: &str, args: &[HostValue]| match call(name, args) {
        Ok(HostValue::Float(x)) => x,
        other => panic!("{name}: {other:?}"),
    };
    assert_eq!(number("relativeLuminance", std::slice::from_ref(&black)), 0.0);
    assert_eq!(number("relativeLuminance", std::slice::from_ref(&white)), 1.0);
    assert_eq!(number("contrastRatio", &[black.clone(), white.clone()]), 21.0);
    assert_eq!(number("contrastRatio", &[red.clone(), red.clone()]), 1.0);
    let half_red = parse("#ff000080");
    refused_with(call("relativeLuminance", std::slice::from_ref(&half_red)), channel, "invalid color channel or parameter: alpha must be opaque");
    refused_with(call("contrastRatio", &[half_red, white.clone()]), channel, "invalid color channel or parameter: alpha must be opaque");
    assert_exact(with("bestTextColor", &[parse("navy"), black.clone(), white.clone()]), [1.0; 4], "on navy");
    assert_exact(with("bestTextColor", &[parse("yellow"), black.clone(), white.clone()]), [0.0, 0.0, 0.0, 1.0], "on yellow");
}
