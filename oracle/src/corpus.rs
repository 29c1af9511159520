//! The conformance corpus as the oracle reads it: where it is, its programs, the calls
//! `program.json` records, and every image assembled from its explain texts.
//!
//! The images are assembled exactly as nx-ir-core's own corpus tests assemble them (the same
//! code: `rust/nx-ir-core/tests/support/corpus.rs`), with each module's version taken from
//! `program.json` where it records one and from the `links` lines of the program's texts
//! otherwise (the two must agree); an image with a debug section then gets a span for every
//! node, so that the sources diagnostics name are compared too.
//!
//! A missing corpus is a failure, not a skip: [`require`] panics unless
//! `NX_ORACLE_ALLOW_NO_CORPUS=1` says that a run without it is intended.

use serde_json::value::RawValue;
use serde_json::Value as Json;
use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::path::{Path, PathBuf};

#[path = "../../rust/nx-ir-core/tests/support/corpus.rs"]
#[allow(dead_code)]
mod assembly;

/// The environment variable that names the corpus directory.
pub const CORPUS_VARIABLE: &str = "NX_IR_CONFORMANCE";
/// The environment variable that lets a corpus test pass without the corpus.
pub const ALLOW_NO_CORPUS_VARIABLE: &str = "NX_ORACLE_ALLOW_NO_CORPUS";

/// Where the corpus should be: `NX_IR_CONFORMANCE`, else `../shared/nx-ir-conformance` beside
/// the repository's checkout.
pub fn location() -> PathBuf {
    match std::env::var_os(CORPUS_VARIABLE) {
        Some(path) => PathBuf::from(path),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/nx-ir-conformance"),
    }
}

/// The corpus directory. When it is absent this panics, naming where it looked, unless
/// `NX_ORACLE_ALLOW_NO_CORPUS=1`; then it prints one line saying `test` did not run and returns
/// `None`.
pub fn require(test: &str) -> Option<PathBuf> {
    let path = location();
    if path.is_dir() {
        return Some(path);
    }
    if std::env::var(ALLOW_NO_CORPUS_VARIABLE).as_deref() == Ok("1") {
        println!("{test}: no conformance corpus at {} ({ALLOW_NO_CORPUS_VARIABLE}=1): NOT RUN", path.display());
        return None;
    }
    panic!(
        "{test}: the conformance corpus is not at {}; set {CORPUS_VARIABLE} to its directory \
         (or {ALLOW_NO_CORPUS_VARIABLE}=1 to run without it, which checks nothing)",
        path.display()
    );
}

/// One call a program records: a function of a module, with arguments as JSON texts.
#[derive(Debug, Clone)]
pub struct Call {
    pub module: String,
    pub function: String,
    pub case: Option<String>,
    /// Each argument's JSON text exactly as `program.json` spells it.
    pub arguments: Vec<String>,
}

impl Call {
    /// `module::function#case`, or `module::function()` for a call the corpus does not record.
    pub fn key(&self) -> String {
        match &self.case {
            Some(case) => format!("{}::{}#{case}", self.module, self.function),
            None if self.arguments.is_empty() => format!("{}::{}()", self.module, self.function),
            None => format!("{}::{}({} arguments)", self.module, self.function, self.arguments.len()),
        }
    }
}

/// One lifecycle a program records: a component of a module initialized with props (a JSON
/// object's text), then driven by batches (each a list of entries' JSON texts).
#[derive(Debug, Clone)]
pub struct Lifecycle {
    pub module: String,
    pub component: String,
    pub props: String,
    pub batches: Vec<Vec<String>>,
}

impl Lifecycle {
    pub fn key(&self) -> String {
        format!("{}::{}", self.module, self.component)
    }
}

/// One assembled image.
#[derive(Debug, Clone)]
pub struct Image {
    pub identity: String,
    /// The explain file it was assembled from.
    pub file: String,
    /// Assembled from a stripped text (no debug section).
    pub stripped: bool,
    pub bytes: Vec<u8>,
}

/// One corpus program.
#[derive(Debug)]
pub struct Program {
    pub name: String,
    /// The entry module `program.json` names, if it has one.
    pub entry: Option<String>,
    /// The calls `program.json` records (for a program without one, the `results.json` keys).
    pub calls: Vec<Call>,
    /// Every image of the program, one per explain text, sorted by file.
    pub images: Vec<Image>,
    /// The lifecycles `program.json` records.
    pub lifecycles: Vec<Lifecycle>,
}

impl Program {
    /// One image per module: the full ones (with debug section, `full`) or the stripped ones;
    /// a module with only one kind of text uses that one.
    pub fn variant(&self, full: bool) -> Vec<&Image> {
        let mut chosen: Vec<&Image> = Vec::new();
        for image in &self.images {
            match chosen.iter_mut().find(|other| other.identity == image.identity) {
                Some(other) if image.stripped != full => *other = image,
                Some(_) => {}
                None => chosen.push(image),
            }
        }
        chosen
    }
}

/// Every program of the corpus (the directories with `expected/`), sorted by name, with its
/// images assembled as `schema` (the corpus is NX 0.7's, schema 5; assembled as schema 6, with
/// each stateful component given its `<C>.State` record and `<C>.State.Update`, it is what NX 0.10
/// would write for the same programs, none of which uses another schema 6 construct).
/// Panics on anything it cannot read: the oracle cannot compare what it could not build.
pub fn programs(corpus: &Path, schema: u32) -> Vec<Program> {
    assembly::programs(corpus).iter().map(|dir| program(dir, schema)).collect()
}

fn program(dir: &Path, schema: u32) -> Program {
    let name = assembly::name(dir);
    let mut texts = assembly::program_texts(dir);
    if schema >= 6 {
        // As NX 0.10 writes the same program: components name their state records.
        for text in &mut texts {
            text.text = assembly::with_state_records(&text.text);
        }
    }
    let linked = assembly::linked(&texts);
    let description = read_description(dir);
    let mut versions = assembly::versions(&texts);
    for (identity, version) in &description.versions {
        if let Some(linked) = versions.get(identity) {
            assert_eq!(linked, version, "{name}: program.json and the links lines disagree on {identity}'s version");
        }
        versions.insert(identity.clone(), version.clone());
    }
    let images = assembly::every_text(dir, &texts)
        .into_iter()
        .map(|mut input| {
            input.options.version = versions.get(&input.identity).cloned().unwrap_or_default();
            input.options.schema = schema;
            let bytes = input
                .image(&linked)
                .unwrap_or_else(|error| panic!("{name}: {} does not assemble: {error}", input.file));
            Image {
                identity: input.identity,
                stripped: input.file.ends_with(".stripped.nxir.txt"),
                file: input.file,
                bytes: with_node_spans(bytes),
            }
        })
        .collect();
    let calls = match description.calls {
        Some(calls) => calls,
        None => recorded_results(dir),
    };
    Program { name, entry: description.entry, calls, images, lifecycles: description.lifecycles }
}

/// An image with a debug section (a full text's) with every node given a span: the explain text
/// holds no node spans, so the assembler writes none, and without them no diagnostic would name a
/// source for the engines to agree on. Node `i` spans byte `i` of the source (clamped to it).
fn with_node_spans(bytes: Vec<u8>) -> Vec<u8> {
    let mut module = nx_ir_core::image::PreparedModule::from_slice(&bytes).expect("an assembled image prepares").to_model();
    let Some(debug) = module.debug.as_mut() else { return bytes };
    let end = debug.source.len() as u32;
    debug.node_spans = (0..module.nodes.len() as u32).map(|i| Some((i.min(end), (i + 1).min(end)))).collect();
    nx_ir_core::writer::encode(&module)
}

/// What the oracle reads of `program.json`.
#[derive(Default)]
struct Description {
    entry: Option<String>,
    versions: BTreeMap<String, String>,
    /// `None` without a `program.json`.
    calls: Option<Vec<Call>>,
    lifecycles: Vec<Lifecycle>,
}

fn read_description(dir: &Path) -> Description {
    let path = dir.join("program.json");
    let Ok(text) = fs::read_to_string(&path) else { return Description::default() };
    let fail = |what: &str| -> ! { panic!("{}: {what}", path.display()) };
    let top: HashMap<String, &RawValue> = serde_json::from_str(&text).unwrap_or_else(|e| fail(&e.to_string()));
    let parse = |raw: &RawValue| -> Json { serde_json::from_str(raw.get()).unwrap_or_else(|e| fail(&e.to_string())) };
    let entry = top.get("entry").map(|raw| parse(raw)).and_then(|v| v.as_str().map(str::to_string));
    let versions = match top.get("versions") {
        Some(raw) => serde_json::from_str(raw.get()).unwrap_or_else(|e| fail(&format!("versions: {e}"))),
        None => BTreeMap::new(),
    };
    let mut calls = Vec::new();
    if let Some(raw) = top.get("entrypoints") {
        let entries: Vec<HashMap<String, &RawValue>> =
            serde_json::from_str(raw.get()).unwrap_or_else(|e| fail(&format!("entrypoints: {e}")));
        for entry in entries {
            let text = |key: &str| entry.get(key).map(|raw| parse(raw)).and_then(|v| v.as_str().map(str::to_string));
            let arguments = match entry.get("arguments") {
                Some(raw) => {
                    let items: Vec<&RawValue> =
                        serde_json::from_str(raw.get()).unwrap_or_else(|e| fail(&format!("arguments: {e}")));
                    items.iter().map(|item| item.get().to_string()).collect()
                }
                None => Vec::new(),
            };
            calls.push(Call {
                module: text("module").unwrap_or_else(|| fail("an entrypoint without a module")),
                function: text("function").unwrap_or_else(|| fail("an entrypoint without a function")),
                case: text("case"),
                arguments,
            });
        }
    }
    let mut lifecycles = Vec::new();
    if let Some(raw) = top.get("lifecycles") {
        let entries: Vec<HashMap<String, &RawValue>> =
            serde_json::from_str(raw.get()).unwrap_or_else(|e| fail(&format!("lifecycles: {e}")));
        for entry in entries {
            let text = |key: &str| entry.get(key).map(|raw| parse(raw)).and_then(|v| v.as_str().map(str::to_string));
            let batches = match entry.get("batches") {
                Some(raw) => {
                    let batches: Vec<Vec<&RawValue>> =
                        serde_json::from_str(raw.get()).unwrap_or_else(|e| fail(&format!("batches: {e}")));
                    batches.iter().map(|batch| batch.iter().map(|entry| entry.get().to_string()).collect()).collect()
                }
                None => Vec::new(),
            };
            lifecycles.push(Lifecycle {
                module: text("module").unwrap_or_else(|| fail("a lifecycle without a module")),
                component: text("component").unwrap_or_else(|| fail("a lifecycle without a component")),
                props: entry.get("props").map_or_else(|| "{}".to_string(), |raw| raw.get().to_string()),
                batches,
            });
        }
    }
    Description { entry, versions, calls: Some(calls), lifecycles }
}

/// The calls of a program without `program.json`: its `results.json` keys (`module::function`),
/// none of which takes arguments.
fn recorded_results(dir: &Path) -> Vec<Call> {
    let path = dir.join("expected/results.json");
    let Ok(text) = fs::read_to_string(&path) else { return Vec::new() };
    let results: BTreeMap<String, &RawValue> =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    results
        .keys()
        .filter_map(|key| key.split_once("::"))
        .map(|(module, function)| Call {
            module: module.to_string(),
            function: function.to_string(),
            case: None,
            arguments: Vec::new(),
        })
        .collect()
}
