//! The interval of a constrained type (schema 6, type kind 7), compiled once per type: what
//! `check` nodes, interval patterns and every typed site compare a number against, and how the
//! refusals spell it.
//!
//! Bounds are held as `f64` (an integer bound converted as the reference runtime converts it) and
//! a number is compared as an `f64`, so ints, floats and float32 values (already rounded by
//! their site) meet the interval the same way. `NaN` lies in no interval.
//!
//! Texts, as the reference runtime (`nx-ir-runtime` 0.10) writes them in its messages:
//! `1..=10`, `0.0..1.0`, `>= 0`, `> 0.0 && <= 1.0`, `< 1000000.0`; an integer base's bounds as
//! integers, a float base's with a `.0` when their text has no point or exponent, and a
//! `float32` base's numbers in their shortest float32 digits.

use std::fmt;

use crate::model::{kinds, Constant, Module};

use super::text::{float32_text, float64_text};

/// One end of an interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct End {
    pub at: f64,
    pub open: bool,
}

/// What a constrained type admits, and how its numbers are written.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Interval {
    pub low: Option<End>,
    pub high: Option<End>,
    /// The base is `int`, `int32` or `int64`: bounds are written as integers.
    pub integer: bool,
    /// The base is `float32`: numbers are written in their float32 digits.
    pub float32: bool,
}

impl Interval {
    /// The interval of a constrained type of `module` over a base primitive named `base`, with
    /// bound constants `low`/`high` and the exclusive-end `flags`. `None` when a bound is not a
    /// number that fits 64 bits (the reader refuses such an image).
    pub fn compile(module: &Module, base: &str, low: Option<u32>, high: Option<u32>, flags: u32) -> Option<Interval> {
        let end = |bound: Option<u32>, exclusive: u32| -> Option<Option<End>> {
            let Some(constant) = bound else { return Some(None) };
            let at = match module.constants.get(constant as usize)? {
                Constant::Int(i) => *i as f64,
                Constant::Float(f) => *f,
                Constant::BigInt { digits } => module.string(*digits).parse::<i64>().ok()? as f64,
            };
            Some(Some(End { at, open: flags & exclusive != 0 }))
        };
        Some(Interval {
            low: end(low, kinds::ty::CONSTRAINED_LOW_EXCLUSIVE)?,
            high: end(high, kinds::ty::CONSTRAINED_HIGH_EXCLUSIVE)?,
            integer: matches!(base, "int" | "int32" | "int64"),
            float32: base == "float32",
        })
    }

    /// Whether `x` lies in the interval.
    #[inline]
    pub fn holds(&self, x: f64) -> bool {
        let above = match self.low {
            None => true,
            Some(End { at, open: true }) => x > at,
            Some(End { at, open: false }) => x >= at,
        };
        let below = match self.high {
            None => true,
            Some(End { at, open: true }) => x < at,
            Some(End { at, open: false }) => x <= at,
        };
        // Every comparison with NaN is false, so NaN is outside even an interval open at both
        // ends only through this test.
        above && below && !x.is_nan()
    }

    /// A float as a message shows it at this interval's base.
    pub fn float_text(&self, x: f64) -> String {
        if self.float32 {
            float32_text(x)
        } else {
            float64_text(x)
        }
    }

    fn end_text(&self, at: f64) -> String {
        if self.integer {
            return (at as i64).to_string();
        }
        let mut text = self.float_text(at);
        if !text.contains(['.', 'e', 'N', 'I']) {
            text.push_str(".0");
        }
        text
    }
}

impl fmt::Display for Interval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let close = |end: End| if end.open { "<" } else { "<=" };
        match (self.low, self.high) {
            // A closed low end reads as a range: `1..=10`, `0.0..1.0`.
            (Some(low), Some(high)) if !low.open => {
                let dots = if high.open { ".." } else { "..=" };
                write!(f, "{}{dots}{}", self.end_text(low.at), self.end_text(high.at))
            }
            (Some(low), Some(high)) => {
                write!(f, "> {} && {} {}", self.end_text(low.at), close(high), self.end_text(high.at))
            }
            (Some(low), None) => write!(f, "{} {}", if low.open { ">" } else { ">=" }, self.end_text(low.at)),
            (None, Some(high)) => write!(f, "{} {}", close(high), self.end_text(high.at)),
            (None, None) => f.write_str("any value"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn interval(low: Option<(f64, bool)>, high: Option<(f64, bool)>, base: &str) -> Interval {
        let end = |end: Option<(f64, bool)>| end.map(|(at, open)| End { at, open });
        Interval { low: end(low), high: end(high), integer: base.starts_with("int"), float32: base == "float32" }
    }

    #[test]
    fn texts_as_the_reference_spells_them() {
        // The reference runtime's messages for the booking sample's constraints (schema-6.md).
        assert_eq!(interval(Some((1.0, false)), Some((10.0, false)), "int").to_string(), "1..=10");
        assert_eq!(interval(Some((1.0, false)), None, "int").to_string(), ">= 1");
        assert_eq!(interval(Some((0.0, true)), Some((10000.0, false)), "float64").to_string(), "> 0.0 && <= 10000.0");
        assert_eq!(interval(None, Some((1e6, true)), "float64").to_string(), "< 1000000.0");
        assert_eq!(interval(Some((0.0, false)), Some((1.0, true)), "float64").to_string(), "0.0..1.0");
        assert_eq!(interval(Some((-1.0, true)), Some((100.0, true)), "int32").to_string(), "> -1 && < 100");
        assert_eq!(interval(None, Some((f64::INFINITY, false)), "float64").to_string(), "<= Infinity");
        assert_eq!(interval(None, None, "float64").to_string(), "any value");
        let tenth = interval(Some((f64::from(0.1f32), false)), None, "float32");
        assert_eq!(tenth.to_string(), ">= 0.1");
        assert_eq!(tenth.float_text(f64::from(0.1f32)), "0.1");
        assert_eq!(interval(None, Some((1e21, false)), "float64").to_string(), "<= 1e+21");
    }

    #[test]
    fn nan_is_in_no_interval_and_ends_are_open_or_closed() {
        let unit = interval(Some((0.0, true)), Some((1.0, false)), "float64");
        assert!(!unit.holds(0.0) && unit.holds(f64::MIN_POSITIVE) && unit.holds(1.0) && !unit.holds(1.0000000000000002));
        assert!(!unit.holds(f64::NAN));
        assert!(!interval(None, None, "float64").holds(f64::NAN));
        assert!(interval(None, None, "float64").holds(f64::INFINITY));
    }
}
