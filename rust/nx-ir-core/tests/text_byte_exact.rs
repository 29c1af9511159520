//! Where the reference images are known, assembling their explain text gives them byte for byte:
//! the built-in prelude (§1.8 of the format notes) and the `snippet` corpus image (§1.9).

use nx_ir_core::assemble::{
    assemble_image, assemble_image_with_links, AssembleOptions, PRELUDE_TEXT,
};
use nx_ir_core::explain::explain_image;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

fn cell(image: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(image[at..at + 4].try_into().expect("four bytes"))
}

/// `(kind, offset, length)` of each directory entry.
fn directory(image: &[u8]) -> Vec<(u32, u32, u32)> {
    (0..cell(image, 12) as usize)
        .map(|entry| {
            let at = 16 + 12 * entry;
            (cell(image, at), cell(image, at + 4), cell(image, at + 8))
        })
        .collect()
}

#[test]
fn prelude_text_assembles_to_the_reference_prelude_image() {
    let options = AssembleOptions {
        source: None,
        version: "1".to_string(),
        schema: 5,
    };
    let image = assemble_image(PRELUDE_TEXT, &options).expect("the prelude text assembles");
    assert_eq!(image.len(), 604);
    let digest: String = Sha256::digest(&image)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    assert_eq!(
        digest,
        "4d9bb57822e960bff2be8ecd34cb08dbd4f81104be4fa2cd8ded4b990ead2369"
    );
    assert_eq!(explain_image(&image).expect("it explains"), PRELUDE_TEXT);
}

fn corpus() -> Option<PathBuf> {
    let path = match std::env::var_os("NX_IR_CONFORMANCE") {
        Some(path) => PathBuf::from(path),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/nx-ir-conformance"),
    };
    path.join("manifest.json").is_file().then_some(path)
}

#[test]
#[cfg_attr(nx_ir_no_corpus, ignore = "needs the NX IR conformance corpus: set NX_IR_CONFORMANCE to it (rust/nx-ir-core/build.rs)")]
fn snippet_text_assembles_to_the_documented_image_layout() {
    let corpus = corpus().expect("the NX IR conformance corpus (NX_IR_CONFORMANCE)");
    let expected = corpus.join("snippet/expected");
    let read = |file: &str| std::fs::read_to_string(expected.join(file)).expect("snippet text");
    let text = read("input.nx.stripped.nxir.txt");
    let catalog = read("drawnui.nx.stripped.nxir.txt");
    let options = AssembleOptions {
        schema: 5,
        ..AssembleOptions::default()
    };
    let image = assemble_image_with_links(&text, &options, &[&catalog])
        .expect("the snippet text assembles");
    assert_eq!(image.len(), 848);
    assert_eq!(
        directory(&image),
        [
            (0, 0x58, 0x118),
            (1, 0x170, 0x38),
            (2, 0x1A8, 8),
            (3, 0x1B0, 0x28),
            (4, 0x1D8, 0x140),
            (5, 0x318, 0x38)
        ]
    );
    assert_eq!(cell(&image, 0x58), 20, "string count");
    let module: Vec<u32> = (0..14).map(|at| cell(&image, 0x170 + 4 * at)).collect();
    assert_eq!(module[..5], [19, 0, 2, 15, 16]);
    assert_eq!(module[7..9], [17, 18]);
    assert_eq!(module[11..], [1, 1, 0]);
    let fingerprint = |at: usize| u64::from(module[at]) | u64::from(module[at + 1]) << 32;
    assert_eq!(fingerprint(5), 2080198121860257358);
    assert_eq!(fingerprint(9), 3992344325433453158);
    let table = |at: usize, cells: usize| -> Vec<u32> {
        (0..cells).map(|i| cell(&image, at + 4 * i)).collect()
    };
    assert_eq!(
        table(0x1B0, 10),
        [2, 0, 3, 6, 0, 8, 0, 0, 24, 0],
        "int constants 8 and 24"
    );
    let none = u32::MAX;
    assert_eq!(
        table(0x318, 14),
        [2, 0, 4, 10, 1, 0, 0, none, 0, 2, 0, 13, none, 0],
        "value `title` = node 0, function `root` = node 13"
    );
    // The same layout without the catalog's text: its components are guessed from their names.
    assert_eq!(
        assemble_image(&text, &options).expect("assembles"),
        image
    );
}
