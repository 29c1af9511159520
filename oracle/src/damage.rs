//! Damage agreement: an image cut at every four-byte boundary, and overwritten cell by cell with
//! each of nx-ir-core's damage values, is prepared by nx-ir-core and by a reference release; both
//! must accept it or both refuse it, with the same diagnostic codes, and a module both accept
//! must say the same about itself (identity, version, fingerprint, entrypoints).

use crate::corpus::Program;
use crate::engine::{Engine, Ours};
use crate::outcome::Diag;
use nx_ir_core::testing::DAMAGE_VALUES;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// What a sweep of one image did.
#[derive(Debug, Default)]
pub struct DamageReport {
    /// Images prepared by both engines (the intact image, each cut and each overwrite).
    pub checked: usize,
    pub truncations: usize,
    pub overwrites: usize,
    /// Damaged images both engines accepted.
    pub accepted: usize,
    pub disagreements: Vec<String>,
}

impl DamageReport {
    pub fn add(&mut self, other: DamageReport) {
        self.checked += other.checked;
        self.truncations += other.truncations;
        self.overwrites += other.overwrites;
        self.accepted += other.accepted;
        self.disagreements.extend(other.disagreements);
    }
}

/// Sweeps `image` (named `name` in the report), overwriting every `stride`-th cell (1: every
/// cell); every truncation is tried whatever the stride.
pub fn damage_agreement<R: Engine>(name: &str, image: &[u8], stride: usize) -> DamageReport {
    assert!(stride > 0, "a stride of at least one cell");
    let mut report = DamageReport::default();
    compare::<R>(&format!("{name} intact"), image, &mut report);
    for cut in (0..image.len()).step_by(4) {
        compare::<R>(&format!("{name} cut at byte {cut}"), &image[..cut], &mut report);
        report.truncations += 1;
    }
    let mut damaged = image.to_vec();
    for at in (0..image.len() / 4 * 4).step_by(4 * stride) {
        for value in DAMAGE_VALUES {
            damaged[at..at + 4].copy_from_slice(&value.to_le_bytes());
            compare::<R>(&format!("{name} byte {at} overwritten with {value:#x}"), &damaged, &mut report);
            report.overwrites += 1;
        }
        damaged[at..at + 4].copy_from_slice(&image[at..at + 4]);
    }
    report
}

/// Accepted, or refused with these codes; or the panic's message.
type Verdict<F> = Result<Result<F, Vec<String>>, String>;

fn verdict<E: Engine>(bytes: &[u8]) -> Verdict<crate::engine::ModuleFacts> {
    catch_unwind(AssertUnwindSafe(|| E::prepare(bytes)))
        .map(|prepared| prepared.map(|module| E::facts(&module)).map_err(|diags| codes(&diags)))
        .map_err(|payload| {
            payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default()
        })
}

fn codes(diags: &[Diag]) -> Vec<String> {
    diags.iter().map(|d| d.code.clone()).collect()
}

fn compare<R: Engine>(what: &str, bytes: &[u8], report: &mut DamageReport) {
    report.checked += 1;
    let (ours, theirs) = (verdict::<Ours>(bytes), verdict::<R>(bytes));
    if ours == theirs {
        if matches!(ours, Ok(Ok(_))) {
            report.accepted += 1;
        }
        return;
    }
    report.disagreements.push(format!("{what}: {} {} / {} {}", Ours::NAME, show(&ours), R::NAME, show(&theirs)));
}

fn show<F: std::fmt::Debug>(verdict: &Verdict<F>) -> String {
    match verdict {
        Ok(Ok(facts)) => format!("accepted {facts:?}"),
        Ok(Err(codes)) => format!("refused {}", codes.join(", ")),
        Err(panic) => format!("PANICKED: {panic}"),
    }
}

/// Images up to this size have every cell overwritten; the sweep is quadratic in an image's
/// size, and the large-catalog images (23, 77 and 93 KB) are swept at a stride unless
/// `NX_ORACLE_FULL_DAMAGE=1`.
const FULL_SWEEP_BYTES: usize = 16 << 10;

/// The stride a sweep of an image of `len` bytes takes (see [`FULL_SWEEP_BYTES`]).
pub fn stride(len: usize) -> usize {
    if len <= FULL_SWEEP_BYTES || std::env::var("NX_ORACLE_FULL_DAMAGE").as_deref() == Ok("1") {
        1
    } else {
        len.div_ceil(FULL_SWEEP_BYTES) | 1
    }
}

/// What [`programs_damage`] swept.
#[derive(Debug, Default)]
pub struct ProgramsDamage {
    pub report: DamageReport,
    pub images: usize,
    /// The images swept at a stride, described.
    pub strided: Vec<String>,
}

impl ProgramsDamage {
    /// The one summary line.
    pub fn summary(&self, schema: u32) -> String {
        format!(
            "oracle schema {schema} damage: {} images, {} truncations, {} overwrites ({} accepted by both), {} disagreements",
            self.images,
            self.report.truncations,
            self.report.overwrites,
            self.report.accepted,
            self.report.disagreements.len()
        )
    }
}

/// [`damage_agreement`] over every image of every program.
pub fn programs_damage<R: Engine>(programs: &[Program]) -> ProgramsDamage {
    let mut swept = ProgramsDamage::default();
    for program in programs {
        for image in &program.images {
            let name = format!("{}/{}", program.name, image.file);
            let stride = stride(image.bytes.len());
            if stride > 1 {
                swept.strided.push(format!("{name} ({} bytes, one cell in {stride})", image.bytes.len()));
            }
            swept.report.add(damage_agreement::<R>(&name, &image.bytes, stride));
            swept.images += 1;
        }
    }
    swept
}
