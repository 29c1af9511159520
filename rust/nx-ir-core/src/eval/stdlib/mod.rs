//! The closed standard-library operations of schema 6: node kind 26 (`standardMath`, [`math`])
//! and node kind 27 (`standardColor`, [`color`]).
//!
//! Both are pure functions over already evaluated arguments; the evaluator converts its values
//! to their arguments and back, and charges for the node. Results equal the reference runtime's
//! (`nx-value` 0.10) bit for bit: where a formula leaves the order of floating-point operations
//! open, the order here is the one that agrees, and the transcendental functions are the
//! platform's (`f64::sin`, `powf`, `cbrt`, … go to the C library's libm).

pub mod color;
mod color_space;
mod css;
pub(crate) mod css_names;
pub mod math;
#[cfg(test)]
mod tests;

pub use color::{color_op_arity, color_op_code, color_op_name, evaluate_color, COLOR_OP_COUNT};
pub use math::{evaluate_math, math_argument_error, MathOp};

/// Error codes of the standard operations, spelled as the reference spells them.
pub mod codes {
    /// An argument outside the operation's domain, bounds that cross, a wrong argument count, or
    /// an argument that is not a number.
    pub const MATH_DOMAIN: &str = "nx-math-domain";
    /// An argument that is NaN or infinite.
    pub const MATH_NON_FINITE_INPUT: &str = "nx-math-non-finite-input";
    /// A result that is not finite.
    pub const MATH_OVERFLOW: &str = "nx-math-overflow";
    /// A colour channel or parameter that is missing, of the wrong kind, or out of range.
    pub const COLOR_INVALID_CHANNEL: &str = "color-invalid-channel";
    /// Text that is not a colour `parse` reads.
    pub const COLOR_INVALID_TEXT: &str = "color-invalid-text";
}

/// A standard operation's refusal: one of [`codes`] and the reference's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StdError {
    pub code: &'static str,
    pub message: String,
}
