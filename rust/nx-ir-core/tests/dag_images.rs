//! Images from strangers (issue 15): an image whose nodes or types refer to an earlier entry more
//! than once (a DAG) is a small file describing an exponentially large tree. Walking it as a tree
//! (`explain`, `declarations()`) must stay in proportion to the image or refuse with a code under
//! a limit the caller can set; a deep tree that is not shared still reads in full.

mod support;

use nx_ir_core::declarations::{DeclarationKind, TypeView, TYPE_VIEWS_BASE, TYPE_VIEWS_PER_BYTE};
use nx_ir_core::error::codes;
use nx_ir_core::explain::{explain_image, explain_image_within};
use nx_ir_core::image::PreparedModule;
use nx_ir_core::model::{Node, Type, TypeParam};
use nx_ir_core::writer::encode;
use support::Builder;

const CONCAT: u32 = 7;

/// A function whose body is `levels` concatenations, each of the node before with itself: a
/// tree of 2^levels leaves in `levels + 1` nodes.
fn node_dag(levels: u32) -> Vec<u8> {
    let mut b = Builder::new("dag.nx", "");
    let text = b.s("ab");
    let mut node = b.node(Node::String { value: text });
    for _ in 0..levels {
        node = b.node(Node::Binary { op: CONCAT, lhs: node, rhs: node });
    }
    b.function("grow", node);
    encode(&b.build())
}

/// A chain of `levels` concatenations, each of the node before and a fresh leaf: a tree.
fn node_chain(levels: u32) -> Vec<u8> {
    let mut b = Builder::new("chain.nx", "");
    let text = b.s("ab");
    let mut node = b.node(Node::String { value: text });
    for _ in 0..levels {
        let leaf = b.node(Node::String { value: text });
        node = b.node(Node::Binary { op: CONCAT, lhs: node, rhs: leaf });
    }
    b.function("grow", node);
    encode(&b.build())
}

#[test]
fn explaining_a_node_dag_stops_at_the_output_limit() {
    let image = node_dag(48);
    assert!(image.len() < 2048, "the image is {} bytes", image.len());
    PreparedModule::from_slice(&image).expect("the image is valid");
    let error = explain_image(&image).expect_err("2^48 leaves are past the default limit");
    assert_eq!(error.code(), codes::RESOURCE_LIMIT);
    assert_eq!(error.diagnostics[0].limit.as_ref().map(|l| l.name), Some("maxOutput"));
    let error = explain_image_within(&image, 1 << 16).expect_err("past a caller's limit");
    let limit = error.diagnostics[0].limit.as_ref().expect("a limit");
    assert_eq!((limit.name, limit.value), ("maxOutput", 1 << 16));
    // A small DAG fits: the limit is on the text, not on sharing.
    let text = explain_image(&node_dag(4)).expect("16 leaves explain");
    assert_eq!(text.matches("\"ab\"").count(), 16);
}

#[test]
fn a_deep_tree_that_is_not_shared_explains_in_full() {
    let text = explain_image(&node_chain(900)).expect("900 nested nodes explain");
    assert_eq!(text.matches("\"ab\"").count(), 901);
}

/// Counts a type view's nodes.
fn views(ty: &TypeView) -> u64 {
    1 + match ty {
        TypeView::Seq { item, .. } => views(item),
        TypeView::Function { params, result } => params.iter().map(|p| views(&p.ty)).sum::<u64>() + views(result),
        TypeView::AnyFunction { result } => views(result),
        TypeView::Constrained { base, .. } => views(base),
        _ => 0,
    }
}

/// `take(f)`, `f` of a function type 60 levels deep whose every level names the level below in
/// two parameters and its result: 3^60 type views as a tree.
fn type_dag() -> Vec<u8> {
    let mut b = Builder::new("types.nx", "");
    b.feature("function-values-v1");
    b.feature("function-reference-type-v1");
    let mut ty = b.primitive("int");
    for _ in 0..60 {
        let (p, q) = (b.s("p"), b.s("q"));
        ty = b.ty(Type::Function {
            result: ty,
            params: vec![TypeParam { name: p, ty, flags: 0 }, TypeParam { name: q, ty, flags: 0 }],
        });
    }
    let param = b.field("f", ty, None, 0);
    let name = b.s("take");
    let body = b.node(Node::Bool { value: 1 });
    let index = b.decl(nx_ir_core::model::Decl::Function { name, params: vec![param], body, result: None, result_flags: 0 });
    b.module.function_entrypoints.push(index);
    encode(&b.build())
}

/// The Python tests (`tests/test_dag_images.py`) read these images from `tests/fixtures/dag/`:
/// each must be what the generators here write (`NX_WRITE_DAG_FIXTURES=1` writes them again).
#[test]
fn the_python_fixtures_are_these_images() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/dag");
    for (name, image) in [("nodes.nxir", node_dag(48)), ("types.nxir", type_dag())] {
        let path = dir.join(name);
        if std::env::var_os("NX_WRITE_DAG_FIXTURES").is_some() {
            std::fs::create_dir_all(&dir).expect("the fixture folder");
            std::fs::write(&path, &image).expect("a fixture written");
        }
        assert_eq!(std::fs::read(&path).expect("the fixture"), image, "{name}");
    }
}

#[test]
fn declarations_of_a_type_dag_stay_within_the_image_budget() {
    let image = type_dag();
    assert!(image.len() < 4096, "the image is {} bytes", image.len());
    let module = PreparedModule::from_slice(&image).expect("the image is valid");
    let declarations = module.declarations();
    let DeclarationKind::Function { params, .. } = &declarations[0].kind else { panic!("a function") };
    let read = views(&params[0].ty);
    let budget = TYPE_VIEWS_BASE + TYPE_VIEWS_PER_BYTE * image.len() as u64;
    // Every view beyond the budget is one Invalid leaf where a subtree would have been.
    assert!(read <= 3 * budget, "{read} type views for a {}-byte image", image.len());
    assert!(format!("{:?}", params[0].ty).contains("Invalid"));
}
