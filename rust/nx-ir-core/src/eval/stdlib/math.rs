//! `standardMath` (node kind 26): 22 operations on float64 arguments giving a float64.
//!
//! Checks come in a fixed order: the argument count, then that every argument is finite
//! (`nx-math-non-finite-input`), then the domain (`nx-math-domain`: `sqrt` below zero, `asin` and
//! `acos` outside [-1, 1], `clamp` with `min > max`), then the result must be finite
//! (`nx-math-overflow`). A message is `"<op>: <detail>"`. Nothing here allocates unless it fails.

use super::codes::{MATH_DOMAIN, MATH_NON_FINITE_INPUT, MATH_OVERFLOW};
use super::StdError;
use crate::model::kinds;

/// One operation; its discriminant is its code in the image.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum MathOp {
    Sin = 0,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Atan2,
    Sqrt,
    Hypot,
    Abs,
    Sign,
    Min,
    Max,
    Clamp,
    Floor,
    Ceil,
    Round,
    RoundTiesToEven,
    Trunc,
    DegreesToRadians,
    RadiansToDegrees,
    Lerp,
}

/// Every operation in code order. Names and argument counts are `model::kinds`'
/// (`STANDARD_MATH_OPERATIONS`, `STANDARD_MATH_ARITIES`), the one table the reader, the
/// assembler, `explain` and this module share.
const OPS: [MathOp; 22] = [
    MathOp::Sin,
    MathOp::Cos,
    MathOp::Tan,
    MathOp::Asin,
    MathOp::Acos,
    MathOp::Atan,
    MathOp::Atan2,
    MathOp::Sqrt,
    MathOp::Hypot,
    MathOp::Abs,
    MathOp::Sign,
    MathOp::Min,
    MathOp::Max,
    MathOp::Clamp,
    MathOp::Floor,
    MathOp::Ceil,
    MathOp::Round,
    MathOp::RoundTiesToEven,
    MathOp::Trunc,
    MathOp::DegreesToRadians,
    MathOp::RadiansToDegrees,
    MathOp::Lerp,
];

// The enum, its code order and the shared table have one length.
const _: () = assert!(OPS.len() == kinds::STANDARD_MATH_OPERATIONS.len() && OPS.len() == kinds::STANDARD_MATH_ARITIES.len());

impl MathOp {
    /// How many operations there are (codes `0..COUNT`).
    pub const COUNT: u32 = OPS.len() as u32;

    /// The operation with image code `code`, if there is one.
    pub fn from_code(code: u32) -> Option<MathOp> {
        OPS.get(code as usize).copied()
    }

    /// The operation's code in the image.
    pub fn code(self) -> u32 {
        self as u32
    }

    /// The operation's NX name (`roundTiesToEven`).
    pub fn name(self) -> &'static str {
        kinds::STANDARD_MATH_OPERATIONS[self as usize]
    }

    /// How many arguments the operation takes.
    pub fn arity(self) -> usize {
        kinds::STANDARD_MATH_ARITIES[self as usize] as usize
    }

    fn fail(self, code: &'static str, detail: &str) -> StdError {
        StdError { code, message: format!("{}: {detail}", self.name()) }
    }
}

/// The refusal of an argument that is neither a float nor an int, which the evaluator raises
/// before the operation runs (the message names no operation).
pub fn math_argument_error() -> StdError {
    StdError { code: MATH_DOMAIN, message: "expected float64".to_string() }
}

/// Evaluates `op` on `args` (ints already converted to float64).
pub fn evaluate_math(op: MathOp, args: &[f64]) -> Result<f64, StdError> {
    let (x, y, z) = match (args, op.arity()) {
        (&[x], 1) => (x, 0.0, 0.0),
        (&[x, y], 2) => (x, y, 0.0),
        (&[x, y, z], 3) => (x, y, z),
        _ => return Err(op.fail(MATH_DOMAIN, "wrong argument count")),
    };
    if !(x.is_finite() && y.is_finite() && z.is_finite()) {
        return Err(op.fail(MATH_NON_FINITE_INPUT, "arguments must be finite"));
    }
    let in_domain = match op {
        MathOp::Sqrt => x >= 0.0,
        MathOp::Asin | MathOp::Acos => (-1.0..=1.0).contains(&x),
        MathOp::Clamp => y <= z,
        _ => true,
    };
    if !in_domain {
        return Err(op.fail(MATH_DOMAIN, "invalid domain or bounds"));
    }
    let result = match op {
        MathOp::Sin => x.sin(),
        MathOp::Cos => x.cos(),
        MathOp::Tan => x.tan(),
        MathOp::Asin => x.asin(),
        MathOp::Acos => x.acos(),
        MathOp::Atan => x.atan(),
        MathOp::Atan2 => x.atan2(y),
        MathOp::Sqrt => x.sqrt(),
        MathOp::Hypot => x.hypot(y),
        MathOp::Abs => x.abs(),
        // Zero keeps its sign.
        MathOp::Sign if x == 0.0 => x,
        MathOp::Sign => 1.0_f64.copysign(x),
        MathOp::Min => smaller(x, y),
        MathOp::Max => larger(x, y),
        MathOp::Clamp => smaller(larger(x, y), z),
        MathOp::Floor => x.floor(),
        MathOp::Ceil => x.ceil(),
        MathOp::Round => round_half_up(x),
        MathOp::RoundTiesToEven => x.round_ties_even(),
        MathOp::Trunc => x.trunc(),
        MathOp::DegreesToRadians => x.to_radians(),
        MathOp::RadiansToDegrees => x.to_degrees(),
        MathOp::Lerp => lerp(x, y, z),
    };
    if result.is_finite() {
        Ok(result)
    } else {
        Err(op.fail(MATH_OVERFLOW, "result is not finite"))
    }
}

/// The smaller of two finite numbers; of two zeros, -0 when either is -0.
fn smaller(a: f64, b: f64) -> f64 {
    if a < b || (a == b && a.is_sign_negative()) {
        a
    } else {
        b
    }
}

/// The larger of two finite numbers; of two zeros, +0 when either is +0.
fn larger(a: f64, b: f64) -> f64 {
    if a > b || (a == b && a.is_sign_positive()) {
        a
    } else {
        b
    }
}

/// Rounds to the nearest integer, a tie toward +infinity (`-2.5` gives `-2`); a zero result
/// takes the argument's sign (`-0.4` gives `-0`). The fraction `x - floor(x)` is compared with
/// one half directly, so `0.49999999999999994` rounds down.
fn round_half_up(x: f64) -> f64 {
    let below = x.floor();
    let rounded = if x - below >= 0.5 { below + 1.0 } else { below };
    if rounded == 0.0 {
        0.0_f64.copysign(x)
    } else {
        rounded
    }
}

/// `a + t (b - a)`, exact at `t = 0` and `t = 1`. When `a` and `b` lie on opposite sides of zero
/// (or one is zero) the weighted form `(1 - t) a + t b` is used. Otherwise the difference form,
/// falling back to the weighted form and then to a half-scaled difference form when an
/// intermediate overflows although the result may not.
fn lerp(a: f64, b: f64, t: f64) -> f64 {
    if t == 0.0 {
        return a;
    }
    if t == 1.0 {
        return b;
    }
    if a == b {
        return a;
    }
    let weighted = || (1.0 - t) * a + t * b;
    let same_side = (a > 0.0 && b > 0.0) || (a < 0.0 && b < 0.0);
    if !same_side {
        return weighted();
    }
    let difference = a + t * (b - a);
    if difference.is_finite() {
        return difference;
    }
    let weighted = weighted();
    if weighted.is_finite() {
        return weighted;
    }
    (a * 0.5 + t * (b * 0.5 - a * 0.5)) * 2.0
}
