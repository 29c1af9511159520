//! Loops that build strings against the reference: the benches' `items` and `floats`
//! (`benches/programs/workloads.nxir.txt`) and concat shapes around them (a text literal and an
//! integer leaf's text, which nx-ir-core computes in the loop itself; a non-ASCII literal; a
//! literal long enough for a text cost; a computed operand; a float form of an integer; a
//! general concat; a list mixing integers, a literal, short ASCII, non-ASCII and 63- and
//! 64-byte texts, as the result's writing charges each; texts then integers in one list; a
//! list of texts looped over again, checked against a declared `string*`, compared, nested
//! and spliced into another, as nx-ir-core packs such lists; a loop body that is a number's
//! text conversion (of a leaf operator or a nested one), or a literal joined to one in a loop
//! with an index variable, whose texts nx-ir-core packs without making them, and a conversion
//! failing part way), evaluated by nx-ir-core and by `nx-ir-runtime` 0.10.0 on the same image
//! under every budget from none to enough: the same value, the same operations used, and the
//! same failure at the same point when the budget runs out.

use nx_agent_oracle::engine::{CallLimits, Engine, Ours, Reference6};
use nx_ir_core::assemble::{assemble_image, AssembleOptions};

const SHAPES: &str = r#"module strings.nx fingerprint 1
links @nx/prelude.nx version "1" fingerprint 16429037828798365428
requires ranges-v1
entrypoints functions [accented long scaled widened joined mixed textsThenInts relooped typed compared nested spliced indexed converted halves sums unconvertible] components []

function accented(n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    ("caf\u00e9 " concat text<int>(i))

function long(n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    ("a literal of more than sixty-four code units, so each text has a cost " concat text<int>(i))

function scaled(n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    ("x" concat text<int>((i mul 3)))

function widened(n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    ("v=" concat text<float64>(i))

function joined(n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    (("a" concat text<int>(i)) concat "\u00e9")

function mixed(n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    if ((i imod 5) eq 0) then
      i
    else
      if ((i imod 5) eq 1) then
        "a literal"
      else
        if ((i imod 5) eq 2) then
          ("x" concat text<int>(i))
        else
          if ((i imod 5) eq 3) then
            ("caf\u00e9" concat text<int>(i))
          else
            ("sixty-four bytes or more, which the writing charges more for: " concat text<int>(i))

function textsThenInts(n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    if (i lt 3) then
      ("t" concat text<int>(i))
    else
      i

function items(n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    ("item " concat text<int>(i))

function relooped(n: int) =
  for s in items(n) yield
    (s concat "!")

function typed(n: int): string* =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    ("caf\u00e9 " concat text<int>(i))

function compared(n: int) =
  (items(n) eq items(n))

function nested(n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    for j in <@nx/prelude.nx:Range end=i endInclusive=false start=0 /> yield
      ("x" concat text<int>(j))

function spliced(n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    if (i eq 2) then
      items(3)
    else
      ("y" concat text<int>(i))

function indexed(n: int) =
  for i, at in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    ("caf\u00e9 " concat text<int>(i))

function converted(n: int) =
  for i, at in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    text<int>(i)

function halves(n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    text<int>((i mul 0.5))

function sums(n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    text<int>(((i mul 2) add 1))

function unconvertible(n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    text<float64>(pick(i))

function pick(i: int) =
  if (i lt 3) then
    i
  else
    "three"
"#;

fn workloads() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../benches/programs/workloads.nxir.txt"))
        .expect("benches/programs/workloads.nxir.txt")
}

/// Both engines on `text`'s `functions`, for n in `ns`, under every budget up to one past what
/// the call uses; the number of calls compared.
fn agree(text: &str, functions: &[&str], ns: &[u64]) -> usize {
    agree_ending(text, functions, ns, true)
}

/// [`agree`] of functions that succeed (`ok`) or fail at some n.
fn agree_ending(text: &str, functions: &[&str], ns: &[u64], ok: bool) -> usize {
    let image = assemble_image(text, &AssembleOptions::default()).expect("the program assembles");
    let ours = Ours::link(&Ours::prepare(&image).expect("nx-ir-core prepares it"), &[]).expect("links");
    let theirs = Reference6::link(&Reference6::prepare(&image).expect("the reference prepares it"), &[]).expect("links");
    let (mut compared, mut failed) = (0, false);
    for function in functions {
        for n in ns {
            let arg = n.to_string();
            let unlimited = CallLimits { max_operations: Some(1_000_000), ..CallLimits::default() };
            let full = Ours::evaluate(&ours, function, &[&arg], unlimited);
            assert!(!ok || full.result.is_ok(), "{function}({n}): nx-ir-core fails: {:?}", full.result);
            failed |= full.result.is_err();
            let used = full.operations.expect("a budget was set");
            for budget in (0..=used + 1).chain([1_000_000]) {
                let limits = CallLimits { max_operations: Some(budget), ..CallLimits::default() };
                let a = Ours::evaluate(&ours, function, &[&arg], limits);
                let b = Reference6::evaluate(&theirs, function, &[&arg], limits);
                assert_eq!(a, b, "{function}({n}) under a budget of {budget}");
                compared += 1;
            }
        }
    }
    assert!(ok || failed, "{functions:?} were to fail at some n");
    compared
}

#[test]
fn the_benches_string_loops_agree_with_the_reference_under_every_budget() {
    let compared = agree(&workloads(), &["items", "floats"], &[0, 1, 2, 11, 40]);
    println!("string loops (workloads): {compared} calls, 0 disagreements");
}

#[test]
fn concat_shapes_in_loops_agree_with_the_reference_under_every_budget() {
    let shapes = [
        "accented", "long", "scaled", "widened", "joined", "mixed", "textsThenInts", "relooped", "typed", "compared", "nested", "spliced",
        "indexed", "converted", "halves", "sums",
    ];
    let mut compared = agree(SHAPES, &shapes, &[0, 1, 3, 25]);
    // A conversion that cannot render its operand, from the fourth item on.
    compared += agree_ending(SHAPES, &["unconvertible"], &[2, 3, 4, 25], false);
    println!("string loops (shapes): {compared} calls, 0 disagreements");
}
