//! Diagnostics and the one error type of the core: every refusal is an [`IrError`] holding one or
//! more coded [`Diagnostic`]s, the first of which is the failure.

use std::fmt;

/// Diagnostic codes, spelled as the reference runtimes spell them.
pub mod codes {
    pub const FORMAT: &str = "nx-ir-format";
    pub const SCHEMA_VERSION: &str = "nx-ir-schema-version";
    pub const MALFORMED: &str = "nx-ir-malformed";
    pub const RUNTIME_ABI: &str = "nx-ir-runtime-abi";
    pub const REQUIRED_FEATURE: &str = "nx-ir-required-feature";
    pub const DUPLICATE_DECLARATION: &str = "nx-ir-duplicate-declaration";
    pub const ENTRYPOINT: &str = "nx-ir-entrypoint";
    pub const REFERENCE: &str = "nx-ir-reference";
    pub const LINK_MISSING_MODULE: &str = "nx-ir-link-missing-module";
    pub const LINK_VERSION: &str = "nx-ir-link-version";
    pub const LINK_IDENTITY: &str = "nx-ir-link-identity";
    pub const LINK_MISSING_DECLARATION: &str = "nx-ir-link-missing-declaration";
    pub const PRELUDE_IMAGE: &str = "nx-ir-prelude-image";
    pub const UNLINKED: &str = "nx-ir-unlinked";
    pub const MISSING_ENTRYPOINT: &str = "nx-ir-missing-entrypoint";
    pub const OPTIONS: &str = "nx-ir-options";
    // Evaluation (ir-format §6.5).
    pub const RESOURCE_LIMIT: &str = "nx-ir-resource-limit";
    pub const ARGUMENTS: &str = "nx-ir-arguments";
    pub const CALL: &str = "nx-ir-call";
    pub const FUNCTION_VALUE: &str = "nx-ir-function-value";
    pub const BOUNDARY_TYPE: &str = "nx-ir-boundary-type";
    pub const BOUNDARY_FIELD: &str = "nx-ir-boundary-field";
    /// Schema 6: a value at a site of a constrained type lies outside its interval.
    pub const BOUNDARY_CONSTRAINT: &str = "nx-ir-boundary-constraint";
    /// Schema 6: a `check` node's operand (or one of its items) lies outside its interval.
    pub const CONSTRAINT: &str = "nx-ir-constraint";
    pub const SCHEMA: &str = "nx-ir-schema";
    pub const DIVISION_BY_ZERO: &str = "nx-ir-division-by-zero";
    pub const NUMBER: &str = "nx-ir-number";
    pub const OPERATOR: &str = "nx-ir-operator";
    pub const TYPE: &str = "nx-ir-type";
    pub const MEMBER: &str = "nx-ir-member";
    pub const SLOT: &str = "nx-ir-slot";
    pub const FOR: &str = "nx-ir-for";
    pub const RECORD: &str = "nx-ir-record";
    pub const UNION: &str = "nx-ir-union";
    pub const INTRINSIC: &str = "nx-ir-intrinsic";
    pub const COMPONENT: &str = "nx-ir-component";
    pub const COMPONENT_ACTION: &str = "nx-ir-component-action";
    pub const HANDLER_TOKEN: &str = "nx-ir-handler-token";
    pub const HANDLER_RESULT: &str = "nx-ir-handler-result";
    pub const STATE_FIELD: &str = "nx-ir-state-field";
    pub const STATE_PATCH: &str = "nx-ir-state-patch";
    /// Not a reference code: explain text that the assembler cannot read.
    pub const ASSEMBLE: &str = "nx-ir-assemble";
    /// Not a reference code: the travel form of a module or program (what a pickle carries) that
    /// is damaged or not what it says it is (`crate::travel`).
    pub const PICKLE: &str = "nx-ir-pickle";
    /// Not a reference code: a program whose modules are not all of one schema (no reference
    /// release runs one), refused when it is linked.
    pub const LINK_SCHEMA: &str = "nx-ir-link-schema";
    /// Not a reference code: the host stopped a running evaluation from its long-run hook
    /// (a binding does so when the user interrupts it, Ctrl-C).
    pub const INTERRUPTED: &str = "nx-ir-interrupted";
}

/// How bad a diagnostic is. Every refusal is an error; the variant exists so that the shape
/// matches the reference diagnostics (`severity: "error"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// A byte span in a module's source, as the debug section records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceSpan {
    pub identity: String,
    pub start: u32,
    pub end: u32,
}

/// The limit a resource failure ran into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LimitInfo {
    pub name: &'static str,
    pub value: u64,
}

/// One coded finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub code: &'static str,
    pub message: String,
    /// `identity::name` of the declaration the finding is about, where known.
    pub declaration: Option<String>,
    pub source: Option<SourceSpan>,
    pub limit: Option<LimitInfo>,
    pub argument: Option<String>,
}

impl Diagnostic {
    pub fn error(code: &'static str, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            declaration: None,
            source: None,
            limit: None,
            argument: None,
        }
    }

    pub fn with_declaration(mut self, declaration: impl Into<String>) -> Self {
        self.declaration = Some(declaration.into());
        self
    }
}

/// What the messages of one refusal may take in all ([`Report`]).
pub const REPORT_BYTES: usize = 1 << 20;

/// What a diagnostic counts for against [`REPORT_BYTES`] beyond the texts its message names.
const REPORT_OVERHEAD: usize = 128;

/// The diagnostics of one refusal, their messages held to [`REPORT_BYTES`] in all. An image can
/// earn a diagnostic for each of its entries, each naming a long string of the image (its
/// identity, a declaration's name): made for each, the messages would take their number times
/// its length. Once one would pass the budget, it and every later one are left out, unmade, and
/// a last diagnostic says so.
#[derive(Debug)]
pub(crate) struct Report {
    diagnostics: Vec<Diagnostic>,
    left: usize,
    /// The code of the first diagnostic left out.
    left_out: Option<&'static str>,
}

impl Report {
    pub fn new() -> Report {
        Report { diagnostics: Vec::new(), left: REPORT_BYTES, left_out: None }
    }

    /// Whether a diagnostic whose message names `texts` still fits; if not, it is left out.
    fn fits(&mut self, code: &'static str, texts: &[&str]) -> bool {
        let cost = texts.iter().fold(REPORT_OVERHEAD, |sum, text| sum.saturating_add(text.len()));
        if self.left_out.is_none() && cost <= self.left {
            self.left -= cost;
            return true;
        }
        self.left_out.get_or_insert(code);
        false
    }

    /// Adds a diagnostic whose message names `texts` (and a sentence of its own), made only if
    /// it fits.
    pub fn add(&mut self, code: &'static str, texts: &[&str], message: impl FnOnce() -> String) {
        if self.fits(code, texts) {
            self.diagnostics.push(Diagnostic::error(code, message()));
        }
    }

    /// Adds diagnostics already made, as far as they fit.
    pub fn extend(&mut self, diagnostics: impl IntoIterator<Item = Diagnostic>) {
        for diagnostic in diagnostics {
            if self.fits(diagnostic.code, &[&diagnostic.message]) {
                self.diagnostics.push(diagnostic);
            }
        }
    }

    /// Whether diagnostics have been left out (every later one will be).
    pub fn is_full(&self) -> bool {
        self.left_out.is_some()
    }

    pub fn is_empty(&self) -> bool {
        self.diagnostics.is_empty() && self.left_out.is_none()
    }

    /// The diagnostics, and one saying that some were left out where they were.
    pub fn into_diagnostics(mut self) -> Vec<Diagnostic> {
        if let Some(code) = self.left_out {
            self.diagnostics.push(Diagnostic::error(
                code,
                format!(
                    "More diagnostics were left out: their messages would take more than the {REPORT_BYTES} bytes \
                     one refusal reports."
                ),
            ));
        }
        self.diagnostics
    }
}

/// A refusal: one or more diagnostics, the first being the failure.
///
/// The diagnostics are boxed so that the error is one word: every charge and check, an
/// `IrResult<()>`, then returns in a register, and `IrResult<Value>` is the value's two words
/// (without the box: three words, and a fourth copied wherever a result is moved).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IrError {
    #[allow(clippy::box_collection)] // the box keeps `IrError` one word (above)
    pub diagnostics: Box<Vec<Diagnostic>>,
}

impl IrError {
    #[cold]
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        IrError::from_diagnostics(vec![Diagnostic::error(code, message)])
    }

    pub fn from_diagnostics(diagnostics: Vec<Diagnostic>) -> Self {
        debug_assert!(!diagnostics.is_empty());
        IrError { diagnostics: Box::new(diagnostics) }
    }

    /// `nx-ir-malformed` with the reference's message prefix.
    pub fn malformed(detail: impl fmt::Display) -> Self {
        IrError::new(codes::MALFORMED, format!("NX IR image is malformed: {detail}"))
    }

    pub fn into_diagnostics(self) -> Vec<Diagnostic> {
        *self.diagnostics
    }

    /// The code of the first diagnostic.
    pub fn code(&self) -> &'static str {
        self.diagnostics.first().map(|d| d.code).unwrap_or(codes::MALFORMED)
    }

    pub fn message(&self) -> &str {
        self.diagnostics.first().map(|d| d.message.as_str()).unwrap_or("")
    }
}

impl fmt::Display for IrError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message(), self.code())
    }
}

impl std::error::Error for IrError {}

pub type IrResult<T> = Result<T, IrError>;

const _: () = assert!(std::mem::size_of::<IrError>() == std::mem::size_of::<usize>());
const _: () = assert!(std::mem::size_of::<IrResult<()>>() == std::mem::size_of::<usize>());
