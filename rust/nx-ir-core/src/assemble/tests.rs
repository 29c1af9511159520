use super::*;
use crate::explain::{explain_image, explain_module};
use crate::image::PreparedModule;
use crate::model::{kinds, Constant, Decl, Node, Type};

/// Every node kind, type kind, constant kind and declaration kind, and every form that takes
/// more than one line.
const EVERY_KIND: &str = r#"module unit.nx fingerprint 1
links @nx/prelude.nx version "1" fingerprint 16429037828798365428
links other.nx version "2" fingerprint 3
requires update-records-v1 update-intrinsics-v1 action-handlers-v1 function-values-v1 function-reference-type-v1 ranges-v1 occurrence-v1
entrypoints functions [scalars calls blocks] components [Button Shell]

record Point
  x: int required
  y: float64 = 1.5
  label: string? =
    (
      "a"
      concat
      if (x gt 0) then
        "positive"
      else
        "other"
    )

record Point.Update update of Point
  x: int
  y: float64
  label: string?

union Shape extends other.nx:Base
  case dot constant
  case box
    side: int required
    content tags: string*

alias Callback

value big: int =
  9007199254740993

function scalars(flag: boolean, n?: int, content rest: string+) (optional result) =
  [true, false, "q\"\n\u0001", -3, 2.0, -0.0, NaN, inf, -inf, big, neg n, not flag, text<int>(n), {}, rest]

function calls(f: <function a:int b?:string />: int, g: (<function ... />: object*)?): other.nx:Result =
  [f(1, _), <f a=2 />, other.nx:make().field, <other.nx:make x=1 />, apply(<Point x=1 />, <Point.Update x=2 />), merge(<Point.Update />, <Point.Update y=3.5 />), other.nx:Mode.fast, changed(diff(<Point x=1 />, <Point x=2 />)) ordering x, y, label]

function blocks(s: Shape, p: Point?, flag: boolean) =
  [
    if s is
      Shape.dot | {} =>
        p?.x
        <Shape.box side=2>
          "tag"
        </Shape.box> =>
        (p?.y ?? 0.5)
      else =>
        p?
    for i, k in <@nx/prelude.nx:Range end=3 endInclusive=false start=0 /> yield
      (i add k)
    for item in [1, 2] yield
      item
    calls(
      if flag then
        <Point x=1 />
      <Point
        label=if flag then
          "l"
      >
        "content"
      </Point>
    )
    text<int>(
      if flag then
        1
      else
        2
    )
    <div id=1 />
  ]

component Button external
  props
    label: string required
  emits
    Tapped = Tapped

record Tapped
  n: int required

component Shell
  props
    title: string = "t"
  state
    count: int = 0
  body =
    <Button label=title
      onTapped=handler Button.Tapped action@2:Tapped owner Shell =>
        <Shell.Update count=(count add action.n) />
    >
      <div id=1 />
    </Button>

record Shell.Update update of Shell
  count: int
"#;

fn options() -> AssembleOptions {
    AssembleOptions::default()
}

fn round_trip(text: &str, options: &AssembleOptions) -> Module {
    let model = assemble(text, options).expect("the text assembles");
    assert_eq!(explain_module(&model).expect("the model explains"), text);
    let image = crate::writer::encode(&model);
    PreparedModule::from_slice(&image).expect("the reader accepts the image");
    assert_eq!(explain_image(&image).expect("the image explains"), text);
    model
}

#[test]
fn every_kind_and_multi_line_form_round_trips() {
    let model = round_trip(EVERY_KIND, &options());
    let mut node_kinds: Vec<u32> = model.nodes.iter().map(Node::kind).collect();
    node_kinds.sort_unstable();
    node_kinds.dedup();
    assert_eq!(node_kinds, (1..=25).collect::<Vec<_>>());
    let mut type_kinds: Vec<u32> = model
        .types
        .iter()
        .map(|ty| match ty {
            Type::Primitive { .. } => kinds::ty::PRIMITIVE,
            Type::Nominal(_) => kinds::ty::NOMINAL,
            Type::Function { .. } => kinds::ty::FUNCTION,
            Type::Seq { .. } => kinds::ty::SEQ,
            Type::AnyFunction { .. } => kinds::ty::ANY_FUNCTION,
            Type::Constrained { .. } => kinds::ty::CONSTRAINED,
        })
        .collect();
    type_kinds.sort_unstable();
    type_kinds.dedup();
    assert_eq!(type_kinds, [0, 1, 4, 5, 6]);
    let bigint = model
        .constants
        .iter()
        .any(|c| matches!(c, Constant::BigInt { .. }));
    let float = model
        .constants
        .iter()
        .any(|c| matches!(c, Constant::Float(_)));
    let int = model
        .constants
        .iter()
        .any(|c| matches!(c, Constant::Int(_)));
    assert!(bigint && float && int);
    let mut declaration_kinds: Vec<u32> = model.declarations.iter().map(Decl::kind).collect();
    declaration_kinds.sort_unstable();
    declaration_kinds.dedup();
    assert_eq!(declaration_kinds, (0..=5).collect::<Vec<_>>());
}

#[test]
fn slots_follow_fields_and_bindings() {
    let model = assemble(EVERY_KIND, &options()).expect("assembles");
    let slot_of = |wanted: &str| {
        model.nodes.iter().find_map(|node| match node {
            Node::Slot { slot, name } if model.string(*name) == wanted => Some(*slot),
            _ => None,
        })
    };
    // blocks(s, p, flag): `for i, k` takes 3 and 4, the next `for` 5.
    assert_eq!(slot_of("k"), Some(4));
    assert_eq!(slot_of("item"), Some(5));
    // Shell: prop title 0, state count 1, the handler's action 2 as written.
    assert_eq!(slot_of("title"), Some(0));
    assert_eq!(slot_of("action"), Some(2));
    let loops: Vec<bool> = model
        .nodes
        .iter()
        .filter_map(|node| match node {
            Node::ForRange(_) => Some(true),
            Node::For(_) => Some(false),
            _ => None,
        })
        .collect();
    assert_eq!(
        loops,
        [true, false],
        "a `for` over a Range record is a forRange"
    );
}

#[test]
fn spans_become_byte_offsets_in_the_source() {
    let source = "let é = \"x\"\nlet 𝄞() = é\n";
    let text = "module m.nx fingerprint 0\nentrypoints functions [f] components []\n\n\
                value v @1:1-1:12 =\n  \"x\"\n\nfunction f() @2:1-2:12 =\n  v\n";
    let options = AssembleOptions {
        source: Some(source.to_string()),
        version: "7".into(),
        schema: 5,
    };
    let model = round_trip(text, &options);
    let debug = model.debug.as_ref().expect("a debug section");
    assert_eq!(debug.declaration_spans, [Some((0, 12)), Some((13, 28))]);
    assert_eq!(debug.node_spans, [None, None]);
    assert_eq!(model.string(model.modules[0].version), "7");
}

fn assemble_error(text: &str) -> IrError {
    assemble(text, &options()).expect_err("the text is refused")
}

#[test]
fn errors_are_coded_and_name_line_and_column() {
    let header = "module m.nx fingerprint 0\nentrypoints functions [] components []\n\n";
    let cases: &[(&str, &str)] = &[
        ("modul m.nx", "line 1, column 1: expected `module`"),
        (
            "module m.nx fingerprint x\n",
            "line 1, column 8: `x` is not a fingerprint",
        ),
        (
            "module m.nx fingerprint 0\nentrypoints functions [f components []\n",
            "line 2, column 39",
        ),
        (
            "value v =\n  (1 plus 2)\n",
            "line 5, column 6: `plus` is not a binary operator",
        ),
        ("value v =\n  [1, 2\n", "line 5, column 8: expected `]`"),
        (
            "value v =\n  \"open\n",
            "line 5, column 3: the string does not end on its line",
        ),
        (
            "value v =\n  missing\n",
            "line 5, column 3: no local or declaration is named `missing`",
        ),
        (
            "value v =\n  <Point x=1>\n",
            "line 6, column 1: expected a line indented by 2 spaces",
        ),
        (
            "value v =\n  if true then\n  1\n",
            "line 6, column 1: expected a line indented by 4 spaces",
        ),
        ("record R\n  x int\n", "line 5, column 4: expected `:`"),
        (
            "thing t\n",
            "line 4, column 1: expected a declaration, found `thing`",
        ),
        (
            "value v =\n  f(_)\n",
            "line 5, column 3: no local or declaration is named `f`",
        ),
        (
            "value v =\n  _\n",
            "line 5, column 3: `_` stands only for a left-out call argument",
        ),
        (
            "value v @1:1-1:2 =\n  1\n",
            "line 4, column 10: the text carries source spans",
        ),
        (
            "value v =\n  1\n\n",
            "line 7, column 1: expected a declaration",
        ),
    ];
    for (body, expected) in cases {
        let text = if body.starts_with("modul") {
            body.to_string()
        } else {
            format!("{header}{body}")
        };
        let error = assemble_error(&text);
        assert_eq!(error.code(), codes::ASSEMBLE, "{text}");
        assert!(
            error.message().starts_with(expected),
            "{text}\nexpected: {expected}\nfound: {}",
            error.message()
        );
    }
}

#[test]
fn a_span_outside_the_source_is_an_error() {
    let text = "module m.nx fingerprint 0\nentrypoints functions [] components []\n\nvalue v @1:1-3:1 =\n  1\n";
    let options = AssembleOptions {
        source: Some("x\n".into()),
        version: String::new(),
        schema: 5,
    };
    let error = assemble(text, &options).expect_err("refused");
    assert!(error
        .message()
        .starts_with("line 4, column 10: 3:1 is not a position in the source"));
}

#[test]
fn no_text_makes_the_assembler_panic() {
    let mut samples = vec![EVERY_KIND.to_string(), PRELUDE_TEXT.to_string()];
    samples.push(EVERY_KIND.replace("  ", " "));
    for sample in &samples {
        let boundaries: Vec<usize> = sample.char_indices().map(|(at, _)| at).collect();
        for &cut in &boundaries {
            let _ = assemble(&sample[..cut], &options());
            let next = sample[cut..].chars().next().map_or(0, char::len_utf8);
            let _ = assemble(
                &format!("{}{}", &sample[..cut], &sample[cut + next..]),
                &options(),
            );
        }
    }
    let deep = format!(
        "module m.nx fingerprint 0\nentrypoints functions [] components []\n\nvalue v =\n  {}1{}\n",
        "[".repeat(5000),
        "]".repeat(5000)
    );
    assert!(assemble_error(&deep).message().contains("nest too deeply"));
    let deep_type = format!(
        "module m.nx fingerprint 0\nentrypoints functions [] components []\n\nvalue v: {}int{} =\n  1\n",
        "(".repeat(5000),
        ")?".repeat(5000)
    );
    assert!(assemble_error(&deep_type)
        .message()
        .contains("nest too deeply"));
}

#[test]
fn linked_texts_tell_records_from_components() {
    let catalog = "module c.nx fingerprint 5\nentrypoints functions [] components []\n\n\
                   record Box\n  w: int required\n";
    let text = "module m.nx fingerprint 0\nlinks c.nx version \"\" fingerprint 5\n\
                entrypoints functions [f] components []\n\nfunction f() =\n  <c.nx:Box w=1 />\n";
    let guessed = assemble(text, &options()).expect("assembles");
    assert!(matches!(guessed.nodes.last(), Some(Node::Component { .. })));
    let told = assemble_with_links(text, &options(), &[catalog]).expect("assembles");
    assert!(matches!(told.nodes.last(), Some(Node::Record { .. })));
    let missing = text.replace("Box w=1", "Crate w=1");
    let error = assemble_with_links(&missing, &options(), &[catalog]).expect_err("refused");
    assert!(
        error.message().contains("`c.nx` declares no `Crate`"),
        "{}",
        error.message()
    );
}

/// A tag that names a declaration, a case or a call is made of names, since explain writes it
/// back as one (a case without properties as `Union.case`); an element's tag is free text.
#[test]
fn a_tag_that_names_something_is_made_of_names() {
    let text = |body: &str| {
        format!(
            "module m.nx fingerprint 0\nentrypoints functions [f] components []\n\n\
             union Shape\n  case box\n    side: int required\n  case dot\n\nfunction f() =\n  {body}\n"
        )
    };
    for body in ["<Shape.boxxside=2 />", "<Shape.dot=1 />"] {
        let error = assemble_error(&text(body));
        assert!(error.message().contains("is not a name"), "{body}: {}", error.message());
        assert!(error.message().starts_with("line 10, column 4:"), "{body}: {}", error.message());
    }
    for body in ["<Shape.box side=2 />", "Shape.dot", "<my-element a=1 />"] {
        round_trip(&text(body), &options());
    }
    let error = assemble_error(&text("<Shape.box side=2/>"));
    assert_eq!(error.message(), "line 10, column 20: expected a space");
}
