//! `PreparedModule::declarations`: a module's declarations as typed data, read once.

use std::sync::Arc;

use nx_ir_core::assemble::{assemble_image, AssembleOptions};
use nx_ir_core::declarations::{DeclarationKind, DefaultView, Literal, QualifiedName, TypeView};
use nx_ir_core::image::PreparedModule;

const TEXT: &str = r#"module main.nx fingerprint 1
entrypoints functions [pick] components []

union Status
  case active constant
  case paused constant

record Base abstract
  id: int required

record Item extends Base
  id: int required
  n: int = -3
  f: float64 = 1.5
  label: string = "x"
  status: Status = Status.paused
  note: string?
  tags: string*
  total: int = (id add 1)

function pick(item: Item, limit?: int): Item? (optional result) =
  item
"#;

fn module() -> PreparedModule {
    PreparedModule::from_vec(assemble_image(TEXT, &AssembleOptions::default()).unwrap()).unwrap()
}

#[test]
fn records_unions_and_functions_are_read_with_their_types_and_defaults() {
    let module = module();
    let declarations = module.declarations();
    let names: Vec<&str> = declarations.iter().map(|d| &*d.name).collect();
    assert_eq!(names, ["Status", "Base", "Item", "pick"]);
    let DeclarationKind::Record { fields, bases, is_abstract, update_target } = &declarations[2].kind else {
        panic!("Item is a record")
    };
    assert!(!is_abstract && update_target.is_none());
    assert_eq!(bases, &[QualifiedName { module: "main.nx".into(), name: "Base".into() }]);
    let defaults: Vec<Option<&DefaultView>> = fields.iter().map(|f| f.default.as_ref()).collect();
    assert_eq!(defaults[0], None);
    assert_eq!(defaults[1], Some(&DefaultView::Literal(Literal::Int(-3))));
    assert_eq!(defaults[2], Some(&DefaultView::Literal(Literal::Float(1.5))));
    assert_eq!(defaults[3], Some(&DefaultView::Literal(Literal::String("x".into()))));
    assert_eq!(
        defaults[4],
        Some(&DefaultView::Case {
            union: QualifiedName { module: "main.nx".into(), name: "Status".into() },
            case: "paused".into()
        })
    );
    assert_eq!(defaults[7], Some(&DefaultView::Computed));
    assert!(matches!(&fields[5].ty, TypeView::Seq { occurrence: 1, .. }));
    assert!(matches!(&fields[6].ty, TypeView::Seq { occurrence: 3, .. }));
    let DeclarationKind::Function { params, result, result_flags } = &declarations[3].kind else {
        panic!("pick is a function")
    };
    assert_eq!(params.len(), 2);
    assert!(matches!(&params[0].ty, TypeView::Nominal(name) if &*name.name == "Item"));
    assert!(matches!(result, Some(TypeView::Seq { occurrence: 1, .. })));
    assert_eq!(result_flags & 1, 1);
}

#[test]
fn the_declarations_are_read_once_per_module() {
    let module = module();
    assert!(Arc::ptr_eq(&module.declarations(), &module.declarations()));
}
