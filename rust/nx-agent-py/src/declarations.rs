//! `PreparedModule.declarations()`: a module's declarations as plain Python data (dicts, lists
//! and tuples of str, int, float and bool), for `nx_agent.schema`. The core reads them once per
//! prepared module; this only converts.

use nx_ir_core::declarations::{
    BoundView, CaseView, DeclarationKind, DeclarationView, DefaultView, FieldView, Literal, Number, QualifiedName,
    TypeView,
};
use nx_ir_core::model::kinds::flags;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

/// The declarations, in declaration order, as a tuple of dicts.
pub fn to_python<'py>(py: Python<'py>, declarations: &[DeclarationView]) -> PyResult<Bound<'py, PyTuple>> {
    let items = declarations.iter().map(|d| declaration(py, d)).collect::<PyResult<Vec<_>>>()?;
    PyTuple::new(py, items)
}

fn qualified<'py>(py: Python<'py>, name: &QualifiedName) -> PyResult<Bound<'py, PyTuple>> {
    PyTuple::new(py, [name.module.as_str(), name.name.as_str()])
}

fn optional_qualified<'py>(py: Python<'py>, name: Option<&QualifiedName>) -> PyResult<Bound<'py, PyAny>> {
    match name {
        Some(name) => Ok(qualified(py, name)?.into_any()),
        None => Ok(py.None().into_bound(py)),
    }
}

fn qualified_list<'py>(py: Python<'py>, names: &[QualifiedName]) -> PyResult<Bound<'py, PyList>> {
    PyList::new(py, names.iter().map(|n| qualified(py, n)).collect::<PyResult<Vec<_>>>()?)
}

fn declaration<'py>(py: Python<'py>, view: &DeclarationView) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    let kind = match &view.kind {
        DeclarationKind::Function { .. } => "function",
        DeclarationKind::Value { .. } => "value",
        DeclarationKind::Record { .. } => "record",
        DeclarationKind::Component { .. } => "component",
        DeclarationKind::Union { .. } => "union",
        DeclarationKind::TypeAlias => "alias",
    };
    dict.set_item("kind", kind)?;
    dict.set_item("name", &view.name)?;
    dict.set_item("span", view.span)?;
    match &view.kind {
        DeclarationKind::Function { params, result, result_flags } => {
            dict.set_item("parameters", parameters(py, params)?)?;
            dict.set_item("result", optional_type(py, result.as_ref())?)?;
            dict.set_item("optional_result", result_flags & flags::RESULT_OPTIONAL != 0)?;
        }
        DeclarationKind::Value { ty } => dict.set_item("type", optional_type(py, ty.as_ref())?)?,
        DeclarationKind::Record { fields: own, bases, is_abstract, update_target } => {
            dict.set_item("fields", fields(py, own)?)?;
            dict.set_item("bases", qualified_list(py, bases)?)?;
            dict.set_item("abstract", *is_abstract)?;
            dict.set_item("update_of", optional_qualified(py, update_target.as_ref())?)?;
        }
        DeclarationKind::Component { props, state, flags: cell, state_record } => {
            dict.set_item("props", fields(py, props)?)?;
            dict.set_item("state", fields(py, state)?)?;
            dict.set_item("state_record", optional_qualified(py, state_record.as_ref())?)?;
            dict.set_item("abstract", cell & flags::COMPONENT_ABSTRACT != 0)?;
            dict.set_item("external", cell & flags::COMPONENT_EXTERNAL != 0)?;
        }
        DeclarationKind::Union { cases: own, bases, property_target } => {
            dict.set_item("cases", cases(py, own)?)?;
            dict.set_item("bases", qualified_list(py, bases)?)?;
            dict.set_item("property_of", optional_qualified(py, property_target.as_ref())?)?;
        }
        DeclarationKind::TypeAlias => {}
    }
    Ok(dict)
}

fn cases<'py>(py: Python<'py>, cases: &[CaseView]) -> PyResult<Bound<'py, PyList>> {
    let items = cases
        .iter()
        .map(|case| {
            let dict = PyDict::new(py);
            dict.set_item("name", &case.name)?;
            dict.set_item("constant", case.is_constant)?;
            dict.set_item("fields", fields(py, &case.fields)?)?;
            Ok(dict)
        })
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, items)
}

/// Record fields, component props and state, case fields: `required` and `content` flags.
fn fields<'py>(py: Python<'py>, fields: &[FieldView]) -> PyResult<Bound<'py, PyList>> {
    let items = fields
        .iter()
        .map(|field| {
            let dict = PyDict::new(py);
            dict.set_item("name", &field.name)?;
            dict.set_item("type", ty(py, &field.ty)?)?;
            dict.set_item("default", optional_default(py, field.default.as_ref())?)?;
            dict.set_item("required", field.flags & flags::FIELD_REQUIRED != 0)?;
            dict.set_item("content", field.flags & flags::FIELD_CONTENT != 0)?;
            Ok(dict)
        })
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, items)
}

/// Function parameters: `optional` and `content` flags.
fn parameters<'py>(py: Python<'py>, params: &[FieldView]) -> PyResult<Bound<'py, PyList>> {
    let items = params
        .iter()
        .map(|param| {
            let dict = PyDict::new(py);
            dict.set_item("name", &param.name)?;
            dict.set_item("type", ty(py, &param.ty)?)?;
            dict.set_item("default", optional_default(py, param.default.as_ref())?)?;
            dict.set_item("optional", param.flags & flags::PARAM_OPTIONAL != 0)?;
            dict.set_item("content", param.flags & flags::PARAM_CONTENT != 0)?;
            Ok(dict)
        })
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, items)
}

fn optional_type<'py>(py: Python<'py>, view: Option<&TypeView>) -> PyResult<Bound<'py, PyAny>> {
    match view {
        Some(view) => Ok(ty(py, view)?.into_any()),
        None => Ok(py.None().into_bound(py)),
    }
}

fn ty<'py>(py: Python<'py>, view: &TypeView) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    match view {
        TypeView::Primitive(name) => {
            dict.set_item("kind", "primitive")?;
            dict.set_item("name", name)?;
        }
        TypeView::Nominal(name) => {
            dict.set_item("kind", "nominal")?;
            dict.set_item("module", &name.module)?;
            dict.set_item("name", &name.name)?;
        }
        TypeView::Seq { item, occurrence } => {
            dict.set_item("kind", "seq")?;
            dict.set_item("item", ty(py, item)?)?;
            let mark = match occurrence {
                1 => "?",
                2 => "+",
                _ => "*",
            };
            dict.set_item("occurrence", mark)?;
        }
        TypeView::Function { params, result } => {
            dict.set_item("kind", "function")?;
            let items = params
                .iter()
                .map(|param| {
                    let p = PyDict::new(py);
                    p.set_item("name", &param.name)?;
                    p.set_item("type", ty(py, &param.ty)?)?;
                    p.set_item("optional", param.optional)?;
                    p.set_item("content", param.content)?;
                    Ok(p)
                })
                .collect::<PyResult<Vec<_>>>()?;
            dict.set_item("parameters", PyList::new(py, items)?)?;
            dict.set_item("result", ty(py, result)?)?;
        }
        TypeView::AnyFunction { result } => {
            dict.set_item("kind", "any-function")?;
            dict.set_item("result", ty(py, result)?)?;
        }
        TypeView::Constrained { base, low, high } => {
            dict.set_item("kind", "constrained")?;
            dict.set_item("base", ty(py, base)?)?;
            dict.set_item("low", bound(py, low.as_ref())?)?;
            dict.set_item("high", bound(py, high.as_ref())?)?;
        }
        TypeView::Invalid => dict.set_item("kind", "invalid")?,
    }
    Ok(dict)
}

/// One end of a constrained type's interval: `{"value": int | float, "exclusive": bool, "text":
/// str}`, or None when open. The value keeps the constant's nature (an `int` for an integer
/// bound); `text` is the constant as explain spells it (`10`, `0.5`, `1.0`).
fn bound<'py>(py: Python<'py>, view: Option<&BoundView>) -> PyResult<Bound<'py, PyAny>> {
    let Some(view) = view else { return Ok(py.None().into_bound(py)) };
    let dict = PyDict::new(py);
    match view.value {
        Number::Int(value) => dict.set_item("value", value)?,
        Number::Float(value) => dict.set_item("value", value)?,
    }
    dict.set_item("exclusive", view.exclusive)?;
    dict.set_item("text", view.value.text())?;
    Ok(dict.into_any())
}

fn optional_default<'py>(py: Python<'py>, view: Option<&DefaultView>) -> PyResult<Bound<'py, PyAny>> {
    let Some(view) = view else { return Ok(py.None().into_bound(py)) };
    let dict = PyDict::new(py);
    match view {
        DefaultView::Literal(literal) => {
            dict.set_item("kind", "literal")?;
            match literal {
                Literal::Int(value) => dict.set_item("value", value)?,
                Literal::BigInt(digits) => {
                    let int = py.import("builtins")?.getattr("int")?.call1((digits.as_str(),))?;
                    dict.set_item("value", int)?
                }
                Literal::Float(value) => dict.set_item("value", value)?,
                Literal::String(value) => dict.set_item("value", value)?,
                Literal::Bool(value) => dict.set_item("value", value)?,
            }
        }
        DefaultView::Case { union, case } => {
            dict.set_item("kind", "case")?;
            dict.set_item("union", qualified(py, union)?)?;
            dict.set_item("case", case)?;
        }
        DefaultView::Computed => dict.set_item("kind", "computed")?,
    }
    Ok(dict.into_any())
}
