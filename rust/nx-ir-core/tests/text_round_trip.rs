//! Every explain text of the conformance corpus assembles to an image the reader accepts and
//! whose explanation is the same text, character for character. The corpus is enumerated at
//! test time, so a program added to it is covered without a code change.

use nx_ir_core::assemble::{assemble_with_links, AssembleOptions};
use nx_ir_core::explain::{explain_image, explain_module};
use nx_ir_core::image::PreparedModule;
use nx_ir_core::model::{Constant, Module, Type};
use nx_ir_core::writer::encode;
use std::collections::{BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};

fn corpus() -> Option<PathBuf> {
    let path = match std::env::var_os("NX_IR_CONFORMANCE") {
        Some(path) => PathBuf::from(path),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/nx-ir-conformance"),
    };
    path.is_dir().then_some(path)
}

/// One explain text of a program.
struct Text {
    file: String,
    identity: String,
    stripped: bool,
    text: String,
}

fn program_texts(program: &Path) -> Vec<Text> {
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
            Some(Text {
                file,
                identity,
                stripped,
                text,
            })
        })
        .collect();
    texts.sort_by(|a, b| a.file.cmp(&b.file));
    texts
}

/// identity → version, as the program's texts record it on their `links` lines.
fn versions(texts: &[Text]) -> HashMap<String, String> {
    let mut versions = HashMap::new();
    for text in texts {
        for line in text
            .text
            .lines()
            .filter_map(|line| line.strip_prefix("links "))
        {
            if let Some((identity, rest)) = line.split_once(" version \"") {
                if let Some((version, _)) = rest.split_once("\" fingerprint ") {
                    versions.insert(identity.to_string(), version.to_string());
                }
            }
        }
    }
    versions
}

/// The text without its declaration spans: what the corpus's stripped texts are.
fn without_spans(text: &str) -> String {
    text.lines()
        .map(|line| match line.rfind(" @") {
            Some(at) if !line.starts_with(' ') => {
                let span = &line[at + 2..];
                let span = span.strip_suffix(" =").unwrap_or(span);
                if span
                    .chars()
                    .all(|c| c.is_ascii_digit() || c == ':' || c == '-')
                {
                    format!(
                        "{}{}",
                        &line[..at],
                        if line.ends_with(" =") { " =" } else { "" }
                    )
                } else {
                    line.to_string()
                }
            }
            _ => line.to_string(),
        })
        .map(|line| line + "\n")
        .collect()
}

fn first_difference(expected: &str, actual: &str) -> String {
    for (number, (e, a)) in expected.lines().zip(actual.lines()).enumerate() {
        if e != a {
            return format!("line {}:\n  expected: {e}\n  actual:   {a}", number + 1);
        }
    }
    format!(
        "line counts differ: {} vs {}",
        expected.lines().count(),
        actual.lines().count()
    )
}

fn round_trip(text: &str, options: &AssembleOptions, linked: &[&str]) -> Result<Module, String> {
    let model = assemble_with_links(text, options, linked).map_err(|e| format!("assemble: {e}"))?;
    let explained = explain_module(&model).map_err(|e| format!("explain model: {e}"))?;
    if explained != text {
        return Err(format!(
            "model explains differently, {}",
            first_difference(text, &explained)
        ));
    }
    let image = encode(&model);
    PreparedModule::from_slice(&image).map_err(|e| format!("reader refuses the image: {e}"))?;
    let explained = explain_image(&image).map_err(|e| format!("explain image: {e}"))?;
    if explained != text {
        return Err(format!(
            "image explains differently, {}",
            first_difference(text, &explained)
        ));
    }
    Ok(model)
}

/// The kinds of node, type, constant and declaration a model holds, as `table:kind`.
fn kinds_in(model: &Module, into: &mut BTreeSet<String>) {
    into.extend(
        model
            .nodes
            .iter()
            .map(|node| format!("node:{}", node.kind())),
    );
    into.extend(
        model
            .declarations
            .iter()
            .map(|d| format!("declaration:{}", d.kind())),
    );
    into.extend(model.types.iter().map(|ty| {
        let kind = match ty {
            Type::Primitive { .. } => 0,
            Type::Nominal(_) => 1,
            Type::Function { .. } => 4,
            Type::Seq { .. } => 5,
            Type::AnyFunction { .. } => 6,
        };
        format!("type:{kind}")
    }));
    into.extend(model.constants.iter().map(|constant| {
        let kind = match constant {
            Constant::Int(_) => 0,
            Constant::BigInt { .. } => 1,
            Constant::Float(_) => 2,
        };
        format!("constant:{kind}")
    }));
}

#[test]
fn every_corpus_text_round_trips() {
    let Some(corpus) = corpus() else {
        println!("conformance corpus not found: set NX_IR_CONFORMANCE to a copy of it");
        return;
    };
    let mut programs: Vec<PathBuf> = fs::read_dir(&corpus)
        .expect("corpus directory")
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.join("expected").is_dir())
        .collect();
    programs.sort();
    let (mut passed, mut failures, mut spans_dropped) = (0, Vec::new(), Vec::new());
    let mut covered = BTreeSet::new();
    for program in &programs {
        let texts = program_texts(program);
        let versions = versions(&texts);
        let linked: Vec<&str> = texts.iter().map(|t| t.text.as_str()).collect();
        for text in &texts {
            let version = versions.get(&text.identity).cloned().unwrap_or_default();
            let source = (!text.stripped)
                .then(|| fs::read_to_string(program.join(&text.identity)).ok())
                .flatten();
            let (body, source) = match source {
                Some(source) => (text.text.clone(), Some(source)),
                None if !text.stripped => {
                    spans_dropped.push(text.file.clone());
                    (without_spans(&text.text), None)
                }
                None => (text.text.clone(), None),
            };
            let options = AssembleOptions { source, version };
            match round_trip(&body, &options, &linked) {
                Ok(model) => {
                    passed += 1;
                    kinds_in(&model, &mut covered);
                }
                Err(error) => failures.push(format!(
                    "{}/{}: {error}",
                    program.file_name().unwrap_or_default().to_string_lossy(),
                    text.file
                )),
            }
        }
    }
    let total = passed + failures.len();
    println!("{passed}/{total} corpus texts round-trip");
    if !spans_dropped.is_empty() {
        println!("assembled without their spans (no source in the corpus): {spans_dropped:?}");
    }
    assert!(total > 0, "the corpus holds no explain texts");
    assert!(
        failures.is_empty(),
        "{} of {total} texts fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
    let expected = (1..=25)
        .map(|kind| format!("node:{kind}"))
        .chain([0, 1, 4, 5, 6].map(|kind| format!("type:{kind}")))
        .chain((0..=2).map(|kind| format!("constant:{kind}")))
        .chain((0..=5).map(|kind| format!("declaration:{kind}")));
    let missing: Vec<String> = expected.filter(|kind| !covered.contains(kind)).collect();
    assert!(
        missing.is_empty(),
        "kinds no corpus text round-trips: {missing:?}"
    );
}
