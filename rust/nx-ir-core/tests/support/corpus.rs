//! The conformance corpus (`NX_IR_CONFORMANCE`, or `/work/shared/nx-ir-conformance` beside the
//! repository): its programs, their explain texts, and the images assembled from those texts.
//! Shared by every corpus test so that they all read the corpus the same way.
//!
//! A program is a directory with `expected/`; each module has an explain text with spans
//! (`<identity>.nxir.txt`, identity with `/` written `__`) and/or a stripped one
//! (`<identity>.stripped.nxir.txt`). A full text is assembled with the module's source from the
//! program directory; a full text whose source the corpus lacks (a library module such as
//! `@nx/agent/agent.nx`) is assembled without its declaration spans, which is what its stripped
//! text would be.

use nx_ir_core::assemble::{assemble_image_with_links, AssembleOptions};
use nx_ir_core::IrResult;
use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

/// The corpus directory (one holding `manifest.json`), or `None` when it is absent. Without it
/// the crate is built with `cfg(nx_ir_no_corpus)` (see `build.rs`) and each corpus test is
/// ignored, so this is `None` only if the corpus went away after the build.
pub fn dir() -> Option<PathBuf> {
    let path = match std::env::var_os("NX_IR_CONFORMANCE") {
        Some(path) => PathBuf::from(path),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/nx-ir-conformance"),
    };
    path.join("manifest.json").is_file().then_some(path)
}

/// The corpus directory. A test that needs it is ignored without it (`cfg(nx_ir_no_corpus)`);
/// one run anyway (`--ignored`) fails here, saying why, rather than passing having checked nothing.
pub fn dir_or_skip(test: &str) -> Option<PathBuf> {
    let dir = dir();
    assert!(dir.is_some(), "{test}: the NX IR conformance corpus is not there: set NX_IR_CONFORMANCE to it");
    dir
}

/// The program directories (those with `expected/`), sorted.
pub fn programs(corpus: &Path) -> Vec<PathBuf> {
    let mut programs: Vec<PathBuf> = fs::read_dir(corpus)
        .expect("corpus directory")
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.join("expected").is_dir())
        .collect();
    programs.sort();
    programs
}

/// The directory name of a program.
pub fn name(program: &Path) -> String {
    program.file_name().unwrap_or_default().to_string_lossy().into_owned()
}

/// One explain text of a program.
pub struct Text {
    pub file: String,
    pub identity: String,
    pub stripped: bool,
    pub text: String,
}

/// The explain texts of a program, sorted by file name.
pub fn program_texts(program: &Path) -> Vec<Text> {
    let Ok(entries) = fs::read_dir(program.join("expected")) else {
        return Vec::new();
    };
    let mut texts: Vec<Text> = entries
        .filter_map(|entry| {
            let file = entry.ok()?.file_name().into_string().ok()?;
            let (base, stripped) = match file.strip_suffix(".stripped.nxir.txt") {
                Some(base) => (base, true),
                None => (file.strip_suffix(".nxir.txt")?, false),
            };
            let identity = base.replace("__", "/");
            let text = fs::read_to_string(program.join("expected").join(&file)).ok()?;
            Some(Text { file, identity, stripped, text })
        })
        .collect();
    texts.sort_by(|a, b| a.file.cmp(&b.file));
    texts
}

/// All texts of a program, as the assembler's `linked` argument.
pub fn linked(texts: &[Text]) -> Vec<&str> {
    texts.iter().map(|text| text.text.as_str()).collect()
}

/// identity → version, as the program's texts record it on their `links` lines.
pub fn versions(texts: &[Text]) -> HashMap<String, String> {
    let mut versions = HashMap::new();
    for line in texts.iter().flat_map(|text| text.text.lines()).filter_map(|line| line.strip_prefix("links ")) {
        if let Some((identity, rest)) = line.split_once(" version \"") {
            if let Some((version, _)) = rest.split_once('"') {
                versions.insert(identity.to_string(), version.to_string());
            }
        }
    }
    versions
}

/// The text without its declaration spans (` @L:C-L:C` at the end of a declaration line): what
/// the corpus's stripped texts are.
pub fn without_spans(text: &str) -> String {
    text.lines()
        .map(|line| {
            let (head, tail) = match line.strip_suffix(" =") {
                Some(head) => (head, " ="),
                None => (line, ""),
            };
            match head.rfind(" @") {
                Some(at)
                    if !line.starts_with(' ')
                        && head[at + 2..].chars().all(|c| c.is_ascii_digit() || c == ':' || c == '-') =>
                {
                    format!("{}{tail}\n", &head[..at])
                }
                _ => format!("{line}\n"),
            }
        })
        .collect()
}

/// What one image is assembled from.
pub struct ModuleInput {
    pub identity: String,
    /// The explain file it comes from.
    pub file: String,
    pub text: String,
    pub options: AssembleOptions,
    /// A full text assembled without its spans, because the corpus has no source for it.
    pub spans_dropped: bool,
}

impl ModuleInput {
    /// The input for `text` of `program`: a full text gets its module's source from the program
    /// directory or, when there is none, loses its spans.
    pub fn new(program: &Path, text: &Text, versions: &HashMap<String, String>) -> ModuleInput {
        let version = versions.get(&text.identity).cloned().unwrap_or_default();
        let source = if text.stripped { None } else { fs::read_to_string(program.join(&text.identity)).ok() };
        let spans_dropped = !text.stripped && source.is_none();
        let body = if spans_dropped { without_spans(&text.text) } else { text.text.clone() };
        ModuleInput {
            identity: text.identity.clone(),
            file: text.file.clone(),
            text: body,
            // The corpus is NX 0.7's: schema 5.
            options: AssembleOptions { source, version, schema: 5 },
            spans_dropped,
        }
    }

    /// The image, told what the linked modules declare by their texts.
    pub fn image(&self, linked: &[&str]) -> IrResult<Vec<u8>> {
        assemble_image_with_links(&self.text, &self.options, linked)
    }
}

/// One input per module of the program: with `full`, each module's full text (with its
/// source), else its stripped text; a module the corpus has only one kind of text for uses
/// that one.
pub fn variant(program: &Path, texts: &[Text], full: bool) -> Vec<ModuleInput> {
    let versions = versions(texts);
    let mut chosen: Vec<&Text> = Vec::new();
    for text in texts {
        match chosen.iter_mut().find(|other| other.identity == text.identity) {
            Some(other) if text.stripped != full => *other = text,
            Some(_) => {}
            None => chosen.push(text),
        }
    }
    chosen.into_iter().map(|text| ModuleInput::new(program, text, &versions)).collect()
}

/// One input per explain text of the program (every corpus image, stripped and full).
pub fn every_text(program: &Path, texts: &[Text]) -> Vec<ModuleInput> {
    let versions = versions(texts);
    texts.iter().map(|text| ModuleInput::new(program, text, &versions)).collect()
}

/// A schema 5 text as NX 0.10 would write the same program (schema 6): each component with
/// state names its `<C>.State` record (declared after the module's declarations, with the
/// state's fields and no defaults), and its update record becomes `<C>.State.Update`, an update
/// of that record. Without this a schema 5 text assembled as schema 6 has components whose
/// state nothing patches (an image that names no state record), where the lifecycles the corpus
/// records patch it.
pub fn with_state_records(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut stateful: Vec<(String, Vec<String>)> = Vec::new();
    let mut at = 0;
    while at < lines.len() {
        let line = lines[at];
        at += 1;
        let Some(rest) = line.strip_prefix("component ") else { continue };
        let name = rest.split(' ').next().unwrap_or("").to_string();
        let mut fields = Vec::new();
        let mut in_state = false;
        while at < lines.len() && lines[at].starts_with("  ") {
            let inner = lines[at];
            at += 1;
            if !inner.starts_with("   ") {
                in_state = inner == "  state";
                continue;
            }
            if in_state && inner.starts_with("    ") && !inner.starts_with("     ") {
                let field = inner.trim_start();
                let field = match field.find(" = ") {
                    Some(end) => &field[..end],
                    None => field,
                };
                fields.push(format!("  {field}"));
            }
        }
        if !fields.is_empty() {
            stateful.push((name, fields));
        }
    }
    if stateful.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 256);
    for line in &lines {
        let mut line = line.to_string();
        for (name, _) in &stateful {
            let header = format!("component {name}");
            if line == header || line.starts_with(&format!("{header} ")) {
                let (head, span) = match line.rfind(" @") {
                    Some(cut) if line[cut + 2..].chars().all(|c| c.is_ascii_digit() || c == ':' || c == '-') => {
                        (line[..cut].to_string(), line[cut..].to_string())
                    }
                    _ => (line.clone(), String::new()),
                };
                line = format!("{head} state {name}.State{span}");
            }
            line = line.replace(&format!("record {name}.Update update of {name}"), &format!("record {name}.State.Update update of {name}.State"));
            line = replace_name(&line, &format!("{name}.Update"), &format!("{name}.State.Update"));
        }
        out.push_str(&line);
        out.push('\n');
    }
    for (name, fields) in &stateful {
        out.push_str(&format!("\nrecord {name}.State\n"));
        for field in fields {
            out.push_str(field);
            out.push('\n');
        }
    }
    out
}

/// `text` with each whole occurrence of the name `from` (not part of a longer name) as `to`.
fn replace_name(text: &str, from: &str, to: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let is_name = |c: char| c.is_alphanumeric() || c == '_' || c == '.';
    while let Some(found) = rest.find(from) {
        let before = rest[..found].chars().next_back();
        let after = rest[found + from.len()..].chars().next();
        out.push_str(&rest[..found]);
        if before.is_some_and(is_name) || after.is_some_and(is_name) {
            out.push_str(from);
        } else {
            out.push_str(to);
        }
        rest = &rest[found + from.len()..];
    }
    out.push_str(rest);
    out
}

/// Each module of a program as the entry of a module set: `(identity, images)` with the entry's
/// image first and the others after it, every image assembled from the stripped texts (the image
/// list a fuzz case carries).
#[allow(dead_code)]
pub fn entry_first_image_sets(program: &Path) -> Vec<(String, Vec<Vec<u8>>)> {
    let texts = program_texts(program);
    let linked = linked(&texts);
    let images: Vec<(String, Vec<u8>)> = variant(program, &texts, false)
        .into_iter()
        .map(|input| (input.identity.clone(), input.image(&linked).expect("a corpus text assembles")))
        .collect();
    images
        .iter()
        .map(|(identity, _)| {
            let entry = images.iter().filter(|(i, _)| i == identity);
            let others = images.iter().filter(|(i, _)| i != identity);
            (identity.clone(), entry.chain(others).map(|(_, bytes)| bytes.clone()).collect())
        })
        .collect()
}
