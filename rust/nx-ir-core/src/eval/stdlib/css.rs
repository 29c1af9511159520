//! The CSS colour text `parse` reads: a subset of CSS Color 4.
//!
//! * `transparent`, the 148 named colours, `#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa`;
//! * `rgb()`/`rgba()`, `hsl()`/`hsla()`, `hwb()`, `oklab()`, `oklch()`, and `color(srgb …)` /
//!   `color(srgb-linear …)` (also written without `color`, as `srgb(…)` / `srgb-linear(…)`):
//!   three space-separated components and an optional `/ alpha`; `rgb`, `rgba`, `hsl` and `hsla`
//!   also take the legacy comma form (three or four components, no `/`), where `rgb`'s
//!   components are all percentages or all numbers and `hsl`'s saturation and lightness must be
//!   percentages.
//!
//! Matching ignores ASCII case; only ASCII whitespace separates. A number is digits with an
//! optional sign, point and exponent (no `none`, `calc()`, `inf`, nor a mantissa ending in a
//! point), with a `%` or, for a hue, `deg`, `rad`, `grad` or `turn`. Out-of-range components
//! are clamped, hues wrap. Anything else is refused: the caller reports `color-invalid-text`.

use super::color_space::{from_linear, hsl_to_rgb, hwb_to_rgb, oklab_to_rgb, oklch_to_oklab, Channels};
use super::css_names::named_color;

/// The channels of the colour `text` (already trimmed), each finite and in [0, 1].
pub(super) fn parse_css_color(text: &str) -> Option<Channels> {
    let lower = text.to_ascii_lowercase();
    let channels = match lower.split_once('(') {
        None => return keyword_or_hex(&lower),
        Some((function, rest)) => function_color(function, rest.strip_suffix(')')?)?,
    };
    if !channels.iter().all(|x| x.is_finite()) {
        return None;
    }
    Some(channels.map(|x| x.clamp(0.0, 1.0)))
}

fn keyword_or_hex(word: &str) -> Option<Channels> {
    if word == "transparent" {
        return Some([0.0; 4]);
    }
    if let Some([r, g, b]) = named_color(word) {
        return Some([byte_channel(r), byte_channel(g), byte_channel(b), 1.0]);
    }
    let digits = word.strip_prefix('#')?.as_bytes();
    let mut nibbles = [0_u8; 8];
    for (slot, digit) in nibbles.iter_mut().zip(digits) {
        *slot = hex_value(*digit)?;
    }
    let bytes = match *digits {
        // `#rgb` and `#rgba`: each digit stands for a doubled one (`a` is `aa`, 0xaa = 10 × 17).
        [_, _, _] | [_, _, _, _] => {
            let [r, g, b, a, ..] = nibbles;
            let a = if digits.len() == 4 { a } else { 15 };
            [r, g, b, a].map(|n| n * 17)
        }
        [_, _, _, _, _, _] | [_, _, _, _, _, _, _, _] => {
            let [r1, r0, g1, g0, b1, b0, a1, a0] = nibbles;
            let (a1, a0) = if digits.len() == 8 { (a1, a0) } else { (15, 15) };
            [(r1, r0), (g1, g0), (b1, b0), (a1, a0)].map(|(high, low)| high << 4 | low)
        }
        _ => return None,
    };
    Some(bytes.map(byte_channel))
}

fn byte_channel(byte: u8) -> f64 {
    f64::from(byte) / 255.0
}

fn hex_value(digit: u8) -> Option<u8> {
    match digit {
        b'0'..=b'9' => Some(digit - b'0'),
        b'a'..=b'f' => Some(digit - b'a' + 10),
        _ => None,
    }
}

/// The functional notations, in the order CSS Color 4 lists their spaces.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Notation {
    Rgb,
    Hsl,
    Hwb,
    Oklab,
    Oklch,
    Srgb,
    SrgbLinear,
}

fn function_color(function: &str, body: &str) -> Option<Channels> {
    let (space, body) = if function == "color" {
        let body = body.trim_ascii();
        let end = body.find(|c: char| c.is_ascii_whitespace())?;
        let (space, rest) = body.split_at(end);
        if space != "srgb" && space != "srgb-linear" {
            return None;
        }
        (space, rest.trim_ascii())
    } else {
        (function, body)
    };
    let notation = match space {
        "rgb" | "rgba" => Notation::Rgb,
        "hsl" | "hsla" => Notation::Hsl,
        "hwb" => Notation::Hwb,
        "oklab" => Notation::Oklab,
        "oklch" => Notation::Oklch,
        "srgb" => Notation::Srgb,
        "srgb-linear" => Notation::SrgbLinear,
        _ => return None,
    };
    let legacy = body.contains(',');
    let ([c0, c1, c2], alpha) = if legacy {
        if !matches!(notation, Notation::Rgb | Notation::Hsl) || body.contains('/') {
            return None;
        }
        let mut items = body.split(',').map(str::trim_ascii);
        let components = [items.next()?, items.next()?, items.next()?];
        let alpha = items.next().unwrap_or("1");
        if items.next().is_some() {
            return None;
        }
        (components, alpha)
    } else {
        let (components, alpha) = match body.split_once('/') {
            Some((_, alpha)) if alpha.contains('/') => return None,
            Some((components, alpha)) => (components, alpha.trim_ascii()),
            None => (body, "1"),
        };
        let mut words = components.split_ascii_whitespace();
        let components = [words.next()?, words.next()?, words.next()?];
        if words.next().is_some() {
            return None;
        }
        (components, alpha)
    };
    let alpha = number(alpha, 1.0, false)?.clamp(0.0, 1.0);
    let percent = |token: &str| token.ends_with('%');
    Some(match notation {
        Notation::Rgb => {
            // The legacy form does not mix percentages and numbers.
            if legacy && !matches!([c0, c1, c2].into_iter().filter(|c| percent(c)).count(), 0 | 3) {
                return None;
            }
            let byte = |token| Some(number(token, 255.0, false)?.clamp(0.0, 255.0) / 255.0);
            [byte(c0)?, byte(c1)?, byte(c2)?, alpha]
        }
        Notation::Srgb | Notation::SrgbLinear => {
            let unit = |token| Some(number(token, 1.0, false)?.clamp(0.0, 1.0));
            let mut c = [unit(c0)?, unit(c1)?, unit(c2)?, alpha];
            if notation == Notation::SrgbLinear {
                for x in &mut c[..3] {
                    *x = from_linear(*x);
                }
            }
            c
        }
        Notation::Hsl | Notation::Hwb => {
            if (legacy && !(percent(c1) && percent(c2))) || percent(c0) {
                return None;
            }
            let hue = number(c0, 1.0, true)?.rem_euclid(360.0);
            let fraction = |token| Some((number(token, 100.0, false)? / 100.0).clamp(0.0, 1.0));
            let (x, y) = (fraction(c1)?, fraction(c2)?);
            if notation == Notation::Hwb {
                let [r, g, b] = hwb_to_rgb(hue, x, y);
                [r, g, b, alpha]
            } else {
                hsl_to_rgb([hue, x, y, alpha])
            }
        }
        Notation::Oklab | Notation::Oklch => {
            let lightness = number(c0, 1.0, false)?.clamp(0.0, 1.0);
            let x = number(c1, 0.4, false)?;
            if notation == Notation::Oklab {
                let y = number(c2, 0.4, false)?;
                oklab_to_rgb([lightness, x, y, alpha])
            } else {
                let hue = number(c2, 1.0, true)?;
                if percent(c2) {
                    return None;
                }
                oklab_to_rgb(oklch_to_oklab(lightness, x.max(0.0), hue, alpha))
            }
        }
    })
}

/// One numeric component: `percent` is what 100% stands for; a hue may carry an angle unit
/// (degrees are the default).
fn number(token: &str, percent: f64, hue: bool) -> Option<f64> {
    let (digits, scale) = if let Some(digits) = token.strip_suffix('%') {
        (digits, percent / 100.0)
    } else if hue {
        angle_unit(token)
    } else {
        (token, 1.0)
    };
    let mantissa = digits.split('e').next().unwrap_or(digits);
    if digits.is_empty()
        || mantissa.ends_with('.')
        || !digits.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.' | b'e'))
    {
        return None;
    }
    let value = digits.parse::<f64>().ok()? * scale;
    value.is_finite().then_some(value)
}

/// A hue's digits and how many degrees one of its unit is.
fn angle_unit(token: &str) -> (&str, f64) {
    const UNITS: [(&str, f64); 4] = [("turn", 360.0), ("grad", 0.9), ("rad", 180.0 / std::f64::consts::PI), ("deg", 1.0)];
    UNITS
        .iter()
        .find_map(|(unit, degrees)| Some((token.strip_suffix(unit)?, *degrees)))
        .unwrap_or((token, 1.0))
}
