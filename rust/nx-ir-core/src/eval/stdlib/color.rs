//! `standardColor` (node kind 27): 37 operations of `@nx/color` on host values.
//!
//! A colour is a record with float32 channels `r`, `g`, `b` and optionally `a` (default 1), each
//! in [0, 1]; its `$type` is not looked at and other fields are ignored. An int is read as its
//! float; a float channel must be a float32 value (a host value holds it as the f64 of that f32).
//! A colour result is a `Color` record whose channels are rounded to float32 (-0 becomes +0); a
//! conversion (`toRgb` …) gives a `<Space>Channels` record of float64s. Fields are written in
//! byte order of their names, as the reference hands them back.
//!
//! Every refusal is `color-invalid-channel` ("invalid color channel or parameter: <what>"),
//! except text `parse` cannot read, `color-invalid-text` ("invalid standalone color: <text>").
//! Arguments are checked in order, each completely before the next.

use super::codes::{COLOR_INVALID_CHANNEL, COLOR_INVALID_TEXT};
use super::color_space::{
    from_linear, hsl_to_rgb, hsv_to_rgb, hwb_to_rgb, oklab_to_rgb, oklch_to_oklab, rgb_to_hsl, rgb_to_hsv, rgb_to_hwb,
    rgb_to_oklab, rgb_to_oklch, to_linear, Channels,
};
use super::css::parse_css_color;
use super::StdError;
use crate::model::kinds;
use crate::eval::host::{HostRecord, HostValue};
use std::fmt::Write as _;

/// Every operation in code order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ColorOp {
    Rgb,
    Rgba,
    Srgb,
    LinearRgb,
    Hsl,
    Hsv,
    Hwb,
    Oklab,
    Oklch,
    Parse,
    TryParse,
    Validate,
    ToHex,
    ToCss,
    ToRgb,
    ToHsl,
    ToHsv,
    ToHwb,
    ToLinearRgb,
    ToOklab,
    ToOklch,
    WithAlpha,
    FadeIn,
    FadeOut,
    Lighten,
    Darken,
    Saturate,
    Desaturate,
    RotateHue,
    Complement,
    Grayscale,
    Invert,
    Mix,
    Composite,
    RelativeLuminance,
    ContrastRatio,
    BestTextColor,
}

/// Every operation in code order. Names and argument counts are `model::kinds`'
/// (`STANDARD_COLOR_OPERATIONS`, `STANDARD_COLOR_ARITIES`), shared with the reader, the
/// assembler and `explain`.
const OPS: [ColorOp; 37] = [
    ColorOp::Rgb,
    ColorOp::Rgba,
    ColorOp::Srgb,
    ColorOp::LinearRgb,
    ColorOp::Hsl,
    ColorOp::Hsv,
    ColorOp::Hwb,
    ColorOp::Oklab,
    ColorOp::Oklch,
    ColorOp::Parse,
    ColorOp::TryParse,
    ColorOp::Validate,
    ColorOp::ToHex,
    ColorOp::ToCss,
    ColorOp::ToRgb,
    ColorOp::ToHsl,
    ColorOp::ToHsv,
    ColorOp::ToHwb,
    ColorOp::ToLinearRgb,
    ColorOp::ToOklab,
    ColorOp::ToOklch,
    ColorOp::WithAlpha,
    ColorOp::FadeIn,
    ColorOp::FadeOut,
    ColorOp::Lighten,
    ColorOp::Darken,
    ColorOp::Saturate,
    ColorOp::Desaturate,
    ColorOp::RotateHue,
    ColorOp::Complement,
    ColorOp::Grayscale,
    ColorOp::Invert,
    ColorOp::Mix,
    ColorOp::Composite,
    ColorOp::RelativeLuminance,
    ColorOp::ContrastRatio,
    ColorOp::BestTextColor,
];

const _: () = assert!(OPS.len() == kinds::STANDARD_COLOR_OPERATIONS.len() && OPS.len() == kinds::STANDARD_COLOR_ARITIES.len());

/// How many colour operations there are (codes `0..COLOR_OP_COUNT`).
pub const COLOR_OP_COUNT: u32 = OPS.len() as u32;

/// The name of colour operation `code` (`bestTextColor`).
pub fn color_op_name(code: u32) -> Option<&'static str> {
    kinds::STANDARD_COLOR_OPERATIONS.get(code as usize).copied()
}

/// The argument count of colour operation `code`.
pub fn color_op_arity(code: u32) -> Option<usize> {
    kinds::STANDARD_COLOR_ARITIES.get(code as usize).map(|arity| *arity as usize)
}

/// The code of the colour operation named `name`.
pub fn color_op_code(name: &str) -> Option<u32> {
    kinds::STANDARD_COLOR_OPERATIONS.iter().position(|entry| *entry == name).map(|index| index as u32)
}

fn invalid(what: &str) -> StdError {
    StdError { code: COLOR_INVALID_CHANNEL, message: format!("invalid color channel or parameter: {what}") }
}

fn finite(x: f64, what: &str) -> Result<f64, StdError> {
    if x.is_finite() {
        Ok(x)
    } else {
        Err(invalid(what))
    }
}

fn unit(x: f64, what: &str) -> Result<f64, StdError> {
    if finite(x, what)? >= 0.0 && x <= 1.0 {
        Ok(x)
    } else {
        Err(invalid(what))
    }
}

fn number(value: &HostValue) -> Result<f64, StdError> {
    match value {
        HostValue::Float(x) => Ok(*x),
        HostValue::Int(i) => Ok(*i as f64),
        _ => Err(invalid("number")),
    }
}

const RGBA: [&str; 4] = ["r", "g", "b", "a"];

/// The channels of a colour argument.
fn color(value: &HostValue) -> Result<Channels, StdError> {
    let HostValue::Record(record) = value else {
        return Err(invalid("Color"));
    };
    let mut out = [1.0; 4];
    for (slot, name) in out.iter_mut().zip(RGBA) {
        let x = match record.get(name) {
            Some(field) => number(field)?,
            None if name == "a" => 1.0,
            None => return Err(invalid(name)),
        };
        unit(x, name)?;
        if f64::from(x as f32) != x {
            return Err(invalid(name));
        }
        *slot = x;
    }
    Ok(out)
}

/// A `Color` record of the channels, each checked to be in [0, 1].
fn make_color(c: Channels) -> Result<HostValue, StdError> {
    for (x, name) in c.iter().zip(RGBA) {
        unit(*x, name)?;
    }
    let float32 = |x: f64| HostValue::Float(if x == 0.0 { 0.0 } else { f64::from(x as f32) });
    let [r, g, b, a] = c;
    Ok(record("Color", [("a", float32(a)), ("b", float32(b)), ("g", float32(g)), ("r", float32(r))]))
}

/// Clamps computed channels into [0, 1] (refusing a non-finite one) and makes a `Color`.
fn clipped_color(c: Channels) -> Result<HostValue, StdError> {
    for x in c {
        finite(x, "result")?;
    }
    make_color(c.map(|x| x.clamp(0.0, 1.0)))
}

/// A record of fields given in byte order of their names.
fn record<const N: usize>(type_name: &str, fields: [(&str, HostValue); N]) -> HostValue {
    HostValue::Record(HostRecord {
        type_name: Some(type_name.to_string()),
        fields: fields.into_iter().map(|(name, value)| (name.to_string(), value)).collect(),
    })
}

/// A `<Space>Channels` record: `names` are the three coordinates then `alpha`, sorted on output.
fn channels_record(type_name: &str, names: [&str; 4], values: Channels) -> HostValue {
    let mut fields: Vec<(String, HostValue)> =
        names.iter().zip(values).map(|(name, x)| (name.to_string(), HostValue::Float(x))).collect();
    fields.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    HostValue::Record(HostRecord { type_name: Some(type_name.to_string()), fields })
}

/// Reads `parse`'s text.
fn parse(text: &str) -> Result<HostValue, StdError> {
    let text = text.trim_matches(|c: char| c.is_ascii_whitespace());
    let refused = || StdError { code: COLOR_INVALID_TEXT, message: format!("invalid standalone color: {text}") };
    let channels = parse_css_color(text).ok_or_else(refused)?;
    make_color(channels).map_err(|_| refused())
}

/// WCAG 2.2 relative luminance of an opaque colour.
fn luminance(c: Channels) -> Result<f64, StdError> {
    if c[3] != 1.0 {
        return Err(invalid("alpha must be opaque"));
    }
    Ok(0.2126 * to_linear(c[0]) + 0.7152 * to_linear(c[1]) + 0.0722 * to_linear(c[2]))
}

/// WCAG 2.2 contrast ratio of two opaque colours, from 1 to 21.
fn contrast(x: Channels, y: Channels) -> Result<f64, StdError> {
    let (x, y) = (luminance(x)?, luminance(y)?);
    Ok((x.max(y) + 0.05) / (x.min(y) + 0.05))
}

/// Evaluates colour operation `op` on `args`.
pub fn evaluate_color(op: u32, args: &[HostValue]) -> Result<HostValue, StdError> {
    let (Some(&op), Some(arity)) = (OPS.get(op as usize), color_op_arity(op)) else {
        return Err(invalid("operation"));
    };
    if args.len() != arity {
        return Err(invalid("arity"));
    }
    let arg = |i: usize| args.get(i).ok_or_else(|| invalid("arity"));
    let num = |i: usize| number(arg(i)?);
    let col = |i: usize| color(arg(i)?);
    match op {
        ColorOp::Rgb
        | ColorOp::Rgba
        | ColorOp::Srgb
        | ColorOp::LinearRgb
        | ColorOp::Hsl
        | ColorOp::Hsv
        | ColorOp::Hwb
        | ColorOp::Oklab
        | ColorOp::Oklch => construct(op, [num(0)?, num(1)?, num(2)?, if args.len() == 4 { num(3)? } else { 1.0 }]),
        ColorOp::Parse | ColorOp::TryParse => {
            let HostValue::Str(text) = arg(0)? else {
                return Err(invalid("text"));
            };
            let parsed = parse(text);
            if op == ColorOp::Parse {
                return parsed;
            }
            Ok(match parsed {
                Ok(value) => record("ParseResult.parsed", [("value", value)]),
                Err(error) => record("ParseResult.invalid", [("message", HostValue::Str(error.message))]),
            })
        }
        ColorOp::Validate => make_color(col(0)?),
        ColorOp::ToHex => {
            let c = col(0)?;
            let mut hex = String::with_capacity(9);
            hex.push('#');
            for x in c {
                // A saturating cast; x is in [0, 1].
                let byte = (x * 255.0 + 0.5).floor() as u8;
                let _ = write!(hex, "{byte:02x}");
            }
            Ok(HostValue::Str(hex))
        }
        ColorOp::ToCss => {
            let [r, g, b, a] = col(0)?;
            Ok(HostValue::Str(format!("rgba({}, {}, {}, {a})", r * 255.0, g * 255.0, b * 255.0)))
        }
        ColorOp::ToRgb => {
            let c = col(0)?;
            Ok(channels_record("RgbChannels", ["r", "g", "b", "alpha"], [c[0] * 255.0, c[1] * 255.0, c[2] * 255.0, c[3]]))
        }
        ColorOp::ToHsl => Ok(channels_record("HslChannels", ["h", "s", "l", "alpha"], rgb_to_hsl(col(0)?))),
        ColorOp::ToHsv => Ok(channels_record("HsvChannels", ["h", "s", "v", "alpha"], rgb_to_hsv(col(0)?))),
        ColorOp::ToHwb => Ok(channels_record("HwbChannels", ["h", "w", "b", "alpha"], rgb_to_hwb(col(0)?))),
        ColorOp::ToLinearRgb => {
            let [r, g, b, a] = col(0)?;
            Ok(channels_record("LinearRgbChannels", ["r", "g", "b", "alpha"], [to_linear(r), to_linear(g), to_linear(b), a]))
        }
        ColorOp::ToOklab => Ok(channels_record("OklabChannels", ["l", "a", "b", "alpha"], rgb_to_oklab(col(0)?))),
        ColorOp::ToOklch => Ok(channels_record("OklchChannels", ["l", "c", "h", "alpha"], rgb_to_oklch(col(0)?))),
        ColorOp::WithAlpha | ColorOp::FadeIn | ColorOp::FadeOut | ColorOp::Invert => {
            let mut c = col(0)?;
            let amount = unit(num(1)?, "amount")?;
            match op {
                ColorOp::WithAlpha => c[3] = amount,
                ColorOp::FadeIn => c[3] = (c[3] + amount).min(1.0),
                ColorOp::FadeOut => c[3] = (c[3] - amount).max(0.0),
                _ => {
                    for x in &mut c[..3] {
                        *x = *x * (1.0 - amount) + (1.0 - *x) * amount;
                    }
                }
            }
            make_color(c)
        }
        ColorOp::Lighten
        | ColorOp::Darken
        | ColorOp::Saturate
        | ColorOp::Desaturate
        | ColorOp::RotateHue
        | ColorOp::Complement
        | ColorOp::Grayscale => {
            let mut hsl = rgb_to_hsl(col(0)?);
            match op {
                ColorOp::Complement => hsl[0] = (hsl[0] + 180.0).rem_euclid(360.0),
                ColorOp::Grayscale => hsl[1] = 0.0,
                ColorOp::RotateHue => hsl[0] = (hsl[0] + finite(num(1)?, "degrees")?).rem_euclid(360.0),
                _ => {
                    let amount = unit(num(1)?, "amount")?;
                    let (index, delta) = match op {
                        ColorOp::Lighten => (2, amount),
                        ColorOp::Darken => (2, -amount),
                        ColorOp::Saturate => (1, amount),
                        _ => (1, -amount),
                    };
                    if let Some(x) = hsl.get_mut(index) {
                        *x = (*x + delta).clamp(0.0, 1.0);
                    }
                }
            }
            make_color(hsl_to_rgb(hsl))
        }
        ColorOp::Mix | ColorOp::Composite => {
            let (a, b) = (col(0)?, col(1)?);
            if op == ColorOp::Composite {
                return blend(a, b, None, "linearSrgb");
            }
            let weight = unit(num(2)?, "weight")?;
            let HostValue::Str(space) = arg(3)? else {
                return Err(invalid("space"));
            };
            blend(a, b, Some(weight), space)
        }
        ColorOp::RelativeLuminance => Ok(HostValue::Float(luminance(col(0)?)?)),
        ColorOp::ContrastRatio => Ok(HostValue::Float(contrast(col(0)?, col(1)?)?)),
        ColorOp::BestTextColor => {
            let (background, first, second) = (col(0)?, col(1)?, col(2)?);
            let pick = if contrast(background, first)? >= contrast(background, second)? { first } else { second };
            make_color(pick)
        }
    }
}

/// The colour constructors, on their four numbers (alpha 1 for `rgb`).
fn construct(op: ColorOp, v: Channels) -> Result<HostValue, StdError> {
    let [x, y, z, alpha] = v;
    unit(alpha, "alpha")?;
    for x in v {
        finite(x, "channel")?;
    }
    match op {
        ColorOp::Rgb | ColorOp::Rgba => {
            make_color([unit(x / 255.0, "r")?, unit(y / 255.0, "g")?, unit(z / 255.0, "b")?, alpha])
        }
        ColorOp::LinearRgb => {
            let encoded = |x| Ok::<_, StdError>(from_linear(unit(x, "linearRgb")?));
            make_color([encoded(x)?, encoded(y)?, encoded(z)?, alpha])
        }
        ColorOp::Hsl => {
            unit(y, "s")?;
            unit(z, "l")?;
            make_color(hsl_to_rgb(v))
        }
        ColorOp::Hsv => {
            unit(y, "s")?;
            unit(z, "v")?;
            let [r, g, b] = hsv_to_rgb(x, y, z);
            make_color([r, g, b, alpha])
        }
        ColorOp::Hwb => {
            unit(y, "w")?;
            unit(z, "b")?;
            let [r, g, b] = hwb_to_rgb(x, y, z);
            make_color([r, g, b, alpha])
        }
        ColorOp::Oklab => {
            unit(x, "l")?;
            clipped_color(oklab_to_rgb(v))
        }
        ColorOp::Oklch => {
            unit(x, "l")?;
            if y < 0.0 {
                return Err(invalid("chroma"));
            }
            clipped_color(oklab_to_rgb(oklch_to_oklab(x, y, z, alpha)))
        }
        // `srgb`: the channels as they are.
        _ => make_color(v),
    }
}

/// `mix` (with a weight for `b` and a space) and `composite` (`a` over `b`, no weight) in
/// premultiplied alpha. A weight of 0 or 1 gives `a` or `b` before the space is looked at.
fn blend(mut a: Channels, mut b: Channels, weight: Option<f64>, space: &str) -> Result<HostValue, StdError> {
    if weight == Some(0.0) {
        return make_color(a);
    }
    if weight == Some(1.0) {
        return make_color(b);
    }
    match space {
        "oklab" => {
            a = rgb_to_oklab(a);
            b = rgb_to_oklab(b);
        }
        "linearSrgb" => {
            for x in a[..3].iter_mut().chain(&mut b[..3]) {
                *x = to_linear(*x);
            }
        }
        "srgb" => {}
        _ => return Err(invalid("space")),
    }
    let (wa, wb) = match weight {
        Some(w) => (1.0 - w, w),
        None => (1.0, 1.0 - a[3]),
    };
    let alpha = a[3] * wa + b[3] * wb;
    let mut out = [0.0, 0.0, 0.0, alpha];
    if alpha > 0.0 {
        for ((o, x), y) in out[..3].iter_mut().zip(&a[..3]).zip(&b[..3]) {
            *o = (x * a[3] * wa + y * b[3] * wb) / alpha;
        }
        match space {
            "oklab" => out = oklab_to_rgb(out),
            "linearSrgb" => {
                for x in &mut out[..3] {
                    *x = from_linear(*x);
                }
            }
            _ => {}
        }
    }
    clipped_color(out)
}
