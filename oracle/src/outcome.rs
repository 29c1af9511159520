//! One form both engines' results are converted to before they are compared.
//!
//! Values compare exactly: integers by value and width as the engine returned them, floats by
//! their bits, strings byte for byte, records by type name and then their fields in the order the
//! engine wrote them. Failures compare by every diagnostic's code, declaration, argument, limit
//! and source span; messages are for people and are not compared, except those of the codes
//! schema 6 added ([`message_compared`]), whose texts nx-agent takes over from the reference.

use std::fmt;

/// A value an engine handed back to the host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    /// Only the reference has a distinct 32-bit integer; it never returns one, and if it did the
    /// comparison would show it.
    Int32(i32),
    /// The bits of an `f64`.
    Float(u64),
    /// The bits of an `f32` (reference only, as [`Value::Int32`]).
    Float32(u32),
    Str(String),
    List(Vec<Value>),
    Record { type_name: Option<String>, fields: Vec<(String, Value)> },
}

/// The bits an outcome keeps of an `f64`: every NaN as one. Rust leaves a NaN's sign and payload
/// unspecified (an operation over two NaNs may give either, as the compiler orders its operands),
/// and no NX operation reads them: `text` writes `NaN` and no comparison holds for any NaN.
pub fn float_bits(x: f64) -> u64 {
    if x.is_nan() {
        f64::NAN.to_bits()
    } else {
        x.to_bits()
    }
}

/// [`float_bits`] of an `f32`.
pub fn float32_bits(x: f32) -> u32 {
    if x.is_nan() {
        f32::NAN.to_bits()
    } else {
        x.to_bits()
    }
}

/// A limit a diagnostic names: its name and value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limit {
    pub name: String,
    pub value: Option<u64>,
}

/// A source span a diagnostic names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    pub identity: String,
    pub start: u32,
    pub end: u32,
}

/// One diagnostic.
#[derive(Debug, Clone, Eq)]
pub struct Diag {
    pub code: String,
    pub declaration: Option<String>,
    pub argument: Option<String>,
    pub limit: Option<Limit>,
    pub source: Option<Span>,
    /// Compared only for the codes of [`message_compared`].
    pub message: String,
}

/// Whether a diagnostic's message is compared: those of schema 6's constraint, math and colour
/// codes (`nx-ir-boundary-constraint`, `nx-ir-constraint`, `nx-math-*`, `color-*`).
pub fn message_compared(code: &str) -> bool {
    matches!(code, "nx-ir-boundary-constraint" | "nx-ir-constraint") || code.starts_with("nx-math-") || code.starts_with("color-")
}

impl PartialEq for Diag {
    fn eq(&self, other: &Diag) -> bool {
        self.code == other.code
            && self.declaration == other.declaration
            && self.argument == other.argument
            && self.limit == other.limit
            && self.source == other.source
            && (!message_compared(&self.code) || self.message == other.message)
    }
}

/// What one call did: its value or its diagnostics, and what its usage report said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub result: Result<Value, Vec<Diag>>,
    pub operations: Option<u64>,
    pub input_size: Option<u64>,
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("null"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Int32(i) => write!(f, "{i}i32"),
            Value::Float(bits) => write!(f, "{:?}f64", f64::from_bits(*bits)),
            Value::Float32(bits) => write!(f, "{:?}f32", f32::from_bits(*bits)),
            Value::Str(s) => write!(f, "{s:?}"),
            Value::List(items) => {
                f.write_str("[")?;
                for (at, item) in items.iter().enumerate() {
                    if at > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_str("]")
            }
            Value::Record { type_name, fields } => {
                f.write_str("{")?;
                let mut first = true;
                if let Some(name) = type_name {
                    write!(f, "$type:{name:?}")?;
                    first = false;
                }
                for (name, value) in fields {
                    if !first {
                        f.write_str(",")?;
                    }
                    first = false;
                    write!(f, "{name:?}:{value}")?;
                }
                f.write_str("}")
            }
        }
    }
}

impl fmt::Display for Diag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.code)?;
        if let Some(declaration) = &self.declaration {
            write!(f, " declaration={declaration}")?;
        }
        if let Some(argument) = &self.argument {
            write!(f, " argument={argument}")?;
        }
        if let Some(limit) = &self.limit {
            match limit.value {
                Some(value) => write!(f, " limit={}={value}", limit.name)?,
                None => write!(f, " limit={}", limit.name)?,
            }
        }
        if let Some(span) = &self.source {
            write!(f, " source={}@{}-{}", span.identity, span.start, span.end)?;
        }
        if message_compared(&self.code) {
            write!(f, " message={:?}", self.message)?;
        }
        Ok(())
    }
}

/// The messages of an outcome's diagnostics, one `code: message` per line (nothing for a value).
pub struct Messages<'a>(pub &'a Outcome);

impl fmt::Display for Messages<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Err(diags) = &self.0.result {
            for diag in diags {
                writeln!(f, "    {}: {}", diag.code, diag.message)?;
            }
        }
        Ok(())
    }
}

/// Diagnostics as one line: `code …; code …`.
pub struct Diags<'a>(pub &'a [Diag]);

impl fmt::Display for Diags<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("(no diagnostic)");
        }
        for (at, diag) in self.0.iter().enumerate() {
            if at > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{diag}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.result {
            Ok(value) => write!(f, "ok {value}")?,
            Err(diags) => write!(f, "error {}", Diags(diags))?,
        }
        if let Some(operations) = self.operations {
            write!(f, " [operations {operations}]")?;
        }
        if let Some(size) = self.input_size {
            write!(f, " [input size {size}]")?;
        }
        Ok(())
    }
}
