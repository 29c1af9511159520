//! Our own schema 6 test programs (`tests/schema6/programs.txt`): which module texts make up each
//! program and which calls it is run with. Shared by nx-ir-core's `schema6_programs.rs` (which
//! holds our evaluation to the stored `expected.json`) and the oracle crate (which checks every
//! call against `nx-ir-runtime` 0.10.0 at every budget, and writes `expected.json`).
//!
//! The manifest is line based:
//!
//! ```text
//! # a comment
//! program <name>
//!   module <file> [spans]
//!   call [<module>::]<function>#<case> <JSON array of arguments>
//!   lifecycle [<module>::]<Component>#<case> <JSON object of props> <JSON array of batches>
//! ```
//!
//! A lifecycle initializes the component with the props, then dispatches each batch (a JSON
//! array of entries) to the instance the previous call returned, stopping at the first failure.
//!
//! The first module is the entry, and a call names it unless it names another. Each module is assembled as schema 6
//! from its text, told what the program's other modules declare. A module marked `spans` gets a
//! debug section whose source is its text and where node `i` spans byte `i` (clamped to the
//! text), so diagnostics carry sources; the others have none.

use std::path::{Path, PathBuf};

use nx_ir_core::assemble::{assemble_with_links, AssembleOptions};
use nx_ir_core::model::{Debug, Module};
use nx_ir_core::writer::encode;

/// The directory of the schema 6 samples and programs (from nx-ir-core, or from the oracle crate
/// beside it).
pub fn dir() -> PathBuf {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let own = crate_dir.join("tests/schema6");
    if own.is_dir() {
        own
    } else {
        crate_dir.join("../rust/nx-ir-core/tests/schema6")
    }
}

pub struct ModuleSpec {
    pub file: String,
    pub spans: bool,
}

pub struct CallSpec {
    pub module: String,
    pub function: String,
    pub case: String,
    /// Each argument's JSON text as the manifest writes it.
    pub arguments: Vec<String>,
}

impl CallSpec {
    /// `program/module::function#case`, the key of its expected outcome.
    pub fn key(&self, program: &str) -> String {
        format!("{program}/{}::{}#{}", self.module, self.function, self.case)
    }
}

pub struct LifecycleSpec {
    pub module: String,
    pub component: String,
    pub case: String,
    /// The props' JSON text.
    pub props: String,
    /// Each batch's entries, each entry's JSON text.
    pub batches: Vec<Vec<String>>,
}

impl LifecycleSpec {
    /// `program/module::Component#case`, the key of its expected outcomes.
    pub fn key(&self, program: &str) -> String {
        format!("{program}/{}::{}#{}", self.module, self.component, self.case)
    }
}

pub struct ProgramSpec {
    pub name: String,
    pub modules: Vec<ModuleSpec>,
    pub calls: Vec<CallSpec>,
    pub lifecycles: Vec<LifecycleSpec>,
}

/// One assembled module of a program.
pub struct Assembled {
    pub identity: String,
    pub file: String,
    pub bytes: Vec<u8>,
}

/// The identity a module text declares (`module <identity> fingerprint …`).
fn identity_of(text: &str) -> String {
    text.lines()
        .next()
        .and_then(|line| line.strip_prefix("module "))
        .and_then(|rest| rest.split(" fingerprint").next())
        .unwrap_or("")
        .to_string()
}

impl ProgramSpec {
    fn text(&self, file: &str) -> String {
        std::fs::read_to_string(dir().join(file)).unwrap_or_else(|e| panic!("{}: {file}: {e}", self.name))
    }

    /// Every module of the program assembled, the entry first.
    pub fn assemble(&self) -> Vec<Assembled> {
        let texts: Vec<String> = self.modules.iter().map(|m| self.text(&m.file)).collect();
        let linked: Vec<&str> = texts.iter().map(String::as_str).collect();
        self.modules
            .iter()
            .zip(&texts)
            .map(|(spec, text)| {
                let options = AssembleOptions { source: None, version: String::new(), schema: 6 };
                let mut module = assemble_with_links(text, &options, &linked)
                    .unwrap_or_else(|e| panic!("{}: {} does not assemble: {e}", self.name, spec.file));
                if spec.spans {
                    with_node_spans(&mut module, text);
                }
                Assembled { identity: identity_of(text), file: spec.file.clone(), bytes: encode(&module) }
            })
            .collect()
    }
}

/// Gives `module` a debug section whose source is `text` and where node `i` spans byte `i`
/// (clamped to the text), so that diagnostics carry sources.
pub fn with_node_spans(module: &mut Module, text: &str) {
    let end = text.len() as u32;
    module.debug = Some(Debug {
        declaration_spans: vec![None; module.declarations.len()],
        node_spans: (0..module.nodes.len() as u32).map(|i| Some((i.min(end), (i + 1).min(end)))).collect(),
        source: text.to_string(),
    });
}

/// The elements of a JSON array's text, each as written (`[1, {"a": [2]}]` gives `1` and
/// `{"a": [2]}`).
fn split_array(text: &str) -> Vec<String> {
    let inner = text.trim().strip_prefix('[').and_then(|t| t.strip_suffix(']')).unwrap_or_else(|| panic!("not an array: {text}"));
    let (mut items, mut depth, mut in_string, mut escaped, mut start) = (Vec::new(), 0i32, false, false, 0);
    for (at, c) in inner.char_indices() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '[' | '{' => depth += 1,
            ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(inner[start..at].trim().to_string());
                start = at + 1;
            }
            _ => {}
        }
    }
    let last = inner[start..].trim();
    if !last.is_empty() {
        items.push(last.to_string());
    }
    items
}

/// The byte just past the JSON object `text` starts with.
fn object_end(text: &str) -> Option<usize> {
    let (mut depth, mut in_string, mut escaped) = (0i32, false, false);
    for (at, c) in text.char_indices() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '[' | '{' => depth += 1,
            ']' | '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(at + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// Every program of the manifest.
pub fn programs() -> Vec<ProgramSpec> {
    let path = dir().join("programs.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut programs: Vec<ProgramSpec> = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim_end();
        let fail = |what: &str| -> ! { panic!("{}:{}: {what}: {line}", path.display(), number + 1) };
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if let Some(name) = trimmed.strip_prefix("program ") {
            programs.push(ProgramSpec { name: name.trim().to_string(), modules: Vec::new(), calls: Vec::new(), lifecycles: Vec::new() });
            continue;
        }
        let Some(program) = programs.last_mut() else { fail("a line before the first program") };
        if let Some(rest) = trimmed.strip_prefix("module ") {
            let mut words = rest.split_whitespace();
            let file = words.next().unwrap_or_else(|| fail("a module without a file")).to_string();
            let spans = match words.next() {
                None => false,
                Some("spans") => true,
                Some(_) => fail("a module takes `spans` or nothing after its file"),
            };
            program.modules.push(ModuleSpec { file, spans });
        } else if let Some(rest) = trimmed.strip_prefix("call ") {
            let (name, arguments) = rest.split_once(' ').unwrap_or((rest, "[]"));
            let (function, case) = name.split_once('#').unwrap_or_else(|| fail("a call without a #case"));
            let (module, function) = match function.split_once("::") {
                Some((module, function)) => (module.to_string(), function.to_string()),
                None => {
                    let entry = program.modules.first().unwrap_or_else(|| fail("a call before the first module"));
                    (identity_of(&program.text(&entry.file)), function.to_string())
                }
            };
            program.calls.push(CallSpec { module, function, case: case.to_string(), arguments: split_array(arguments) });
        } else if let Some(rest) = trimmed.strip_prefix("lifecycle ") {
            let (name, rest) = rest.split_once(' ').unwrap_or_else(|| fail("a lifecycle without props"));
            let (component, case) = name.split_once('#').unwrap_or_else(|| fail("a lifecycle without a #case"));
            let (module, component) = match component.split_once("::") {
                Some((module, component)) => (module.to_string(), component.to_string()),
                None => {
                    let entry = program.modules.first().unwrap_or_else(|| fail("a lifecycle before the first module"));
                    (identity_of(&program.text(&entry.file)), component.to_string())
                }
            };
            // The props object, then the batches array.
            let end = object_end(rest).unwrap_or_else(|| fail("a lifecycle takes a props object and a batches array"));
            let (props, batches) = (rest[..end].trim().to_string(), rest[end..].trim());
            let batches = split_array(batches).iter().map(|batch| split_array(batch)).collect();
            program.lifecycles.push(LifecycleSpec { module, component, case: case.to_string(), props, batches });
        } else {
            fail("not a program, module, call or lifecycle line");
        }
    }
    programs
}
