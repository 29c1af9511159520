//! `PreparedModule.declarations()`: a module's declarations as plain Python data (dicts, lists
//! and tuples of str, int, float and bool), for `nx_agent.schema`. The core reads them once per
//! prepared module; this only converts.
//!
//! The view shares each name's text among all the places that name it; so does the Python data
//! (one `str` per text), so an image whose fields all name one long string converts in
//! proportion to its size.

use std::collections::HashMap;

use nx_ir_core::declarations::{
    BoundView, CaseView, DeclarationKind, DeclarationView, DefaultView, FieldView, Literal, Number, QualifiedName,
    Text, TypeView,
};
use nx_ir_core::model::kinds::flags;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};

/// The declarations, in declaration order, as a tuple of dicts.
pub fn to_python<'py>(py: Python<'py>, declarations: &[DeclarationView]) -> PyResult<Bound<'py, PyTuple>> {
    let mut convert = Converter { py, texts: HashMap::new(), ints: HashMap::new() };
    let items = declarations.iter().map(|d| convert.declaration(d)).collect::<PyResult<Vec<_>>>()?;
    PyTuple::new(py, items)
}

/// Converts a view, making one Python object per shared text.
struct Converter<'py> {
    py: Python<'py>,
    /// Each text's `str`, by the text's address.
    texts: HashMap<*const u8, Bound<'py, PyString>>,
    /// Each wide integer's `int` (None where Python will not read its digits), by the digits'
    /// address.
    ints: HashMap<*const u8, Option<Bound<'py, PyAny>>>,
}

impl<'py> Converter<'py> {
    fn text(&mut self, text: &Text) -> Bound<'py, PyString> {
        let py = self.py;
        self.texts.entry(text.as_ptr()).or_insert_with(|| PyString::new(py, text)).clone()
    }

    /// The digits as an `int`; None where Python refuses them (past its digit limit).
    fn wide(&mut self, digits: &Text) -> PyResult<Option<Bound<'py, PyAny>>> {
        if let Some(int) = self.ints.get(&digits.as_ptr()) {
            return Ok(int.clone());
        }
        let text = self.text(digits);
        let int = self.py.import("builtins")?.getattr("int")?.call1((text,)).ok();
        self.ints.insert(digits.as_ptr(), int.clone());
        Ok(int)
    }

    fn qualified(&mut self, name: &QualifiedName) -> PyResult<Bound<'py, PyTuple>> {
        let (module, name) = (self.text(&name.module), self.text(&name.name));
        PyTuple::new(self.py, [module, name])
    }

    fn optional_qualified(&mut self, name: Option<&QualifiedName>) -> PyResult<Bound<'py, PyAny>> {
        match name {
            Some(name) => Ok(self.qualified(name)?.into_any()),
            None => Ok(self.py.None().into_bound(self.py)),
        }
    }

    fn qualified_list(&mut self, names: &[QualifiedName]) -> PyResult<Bound<'py, PyList>> {
        let items = names.iter().map(|n| self.qualified(n)).collect::<PyResult<Vec<_>>>()?;
        PyList::new(self.py, items)
    }

    fn declaration(&mut self, view: &DeclarationView) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(self.py);
        let kind = match &view.kind {
            DeclarationKind::Function { .. } => "function",
            DeclarationKind::Value { .. } => "value",
            DeclarationKind::Record { .. } => "record",
            DeclarationKind::Component { .. } => "component",
            DeclarationKind::Union { .. } => "union",
            DeclarationKind::TypeAlias => "alias",
        };
        dict.set_item("kind", kind)?;
        dict.set_item("name", self.text(&view.name))?;
        dict.set_item("span", view.span)?;
        match &view.kind {
            DeclarationKind::Function { params, result, result_flags } => {
                dict.set_item("parameters", self.parameters(params)?)?;
                dict.set_item("result", self.optional_type(result.as_ref())?)?;
                dict.set_item("optional_result", result_flags & flags::RESULT_OPTIONAL != 0)?;
            }
            DeclarationKind::Value { ty } => dict.set_item("type", self.optional_type(ty.as_ref())?)?,
            DeclarationKind::Record { fields: own, bases, is_abstract, update_target } => {
                dict.set_item("fields", self.fields(own)?)?;
                dict.set_item("bases", self.qualified_list(bases)?)?;
                dict.set_item("abstract", *is_abstract)?;
                dict.set_item("update_of", self.optional_qualified(update_target.as_ref())?)?;
            }
            DeclarationKind::Component { props, state, flags: cell, state_record } => {
                dict.set_item("props", self.fields(props)?)?;
                dict.set_item("state", self.fields(state)?)?;
                dict.set_item("state_record", self.optional_qualified(state_record.as_ref())?)?;
                dict.set_item("abstract", cell & flags::COMPONENT_ABSTRACT != 0)?;
                dict.set_item("external", cell & flags::COMPONENT_EXTERNAL != 0)?;
            }
            DeclarationKind::Union { cases: own, bases, property_target } => {
                dict.set_item("cases", self.cases(own)?)?;
                dict.set_item("bases", self.qualified_list(bases)?)?;
                dict.set_item("property_of", self.optional_qualified(property_target.as_ref())?)?;
            }
            DeclarationKind::TypeAlias => {}
        }
        Ok(dict)
    }

    fn cases(&mut self, cases: &[CaseView]) -> PyResult<Bound<'py, PyList>> {
        let items = cases
            .iter()
            .map(|case| {
                let dict = PyDict::new(self.py);
                dict.set_item("name", self.text(&case.name))?;
                dict.set_item("constant", case.is_constant)?;
                dict.set_item("fields", self.fields(&case.fields)?)?;
                Ok(dict)
            })
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(self.py, items)
    }

    /// Record fields, component props and state, case fields: `required` and `content` flags.
    fn fields(&mut self, fields: &[FieldView]) -> PyResult<Bound<'py, PyList>> {
        self.members(fields, [("required", flags::FIELD_REQUIRED), ("content", flags::FIELD_CONTENT)])
    }

    /// Function parameters: `optional` and `content` flags.
    fn parameters(&mut self, params: &[FieldView]) -> PyResult<Bound<'py, PyList>> {
        self.members(params, [("optional", flags::PARAM_OPTIONAL), ("content", flags::PARAM_CONTENT)])
    }

    /// Each member's name, type and default, and its two flags by key and bit.
    fn members(&mut self, members: &[FieldView], keys: [(&'static str, u32); 2]) -> PyResult<Bound<'py, PyList>> {
        let items = members
            .iter()
            .map(|member| {
                let dict = PyDict::new(self.py);
                dict.set_item("name", self.text(&member.name))?;
                dict.set_item("type", self.ty(&member.ty)?)?;
                dict.set_item("default", self.optional_default(member.default.as_ref())?)?;
                for (key, bit) in keys {
                    dict.set_item(key, member.flags & bit != 0)?;
                }
                Ok(dict)
            })
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(self.py, items)
    }

    fn optional_type(&mut self, view: Option<&TypeView>) -> PyResult<Bound<'py, PyAny>> {
        match view {
            Some(view) => Ok(self.ty(view)?.into_any()),
            None => Ok(self.py.None().into_bound(self.py)),
        }
    }

    fn ty(&mut self, view: &TypeView) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(self.py);
        match view {
            TypeView::Primitive(name) => {
                dict.set_item("kind", "primitive")?;
                dict.set_item("name", self.text(name))?;
            }
            TypeView::Nominal(name) => {
                dict.set_item("kind", "nominal")?;
                dict.set_item("module", self.text(&name.module))?;
                dict.set_item("name", self.text(&name.name))?;
            }
            TypeView::Seq { item, occurrence } => {
                dict.set_item("kind", "seq")?;
                dict.set_item("item", self.ty(item)?)?;
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
                        let p = PyDict::new(self.py);
                        p.set_item("name", self.text(&param.name))?;
                        p.set_item("type", self.ty(&param.ty)?)?;
                        p.set_item("optional", param.optional)?;
                        p.set_item("content", param.content)?;
                        Ok(p)
                    })
                    .collect::<PyResult<Vec<_>>>()?;
                dict.set_item("parameters", PyList::new(self.py, items)?)?;
                dict.set_item("result", self.ty(result)?)?;
            }
            TypeView::AnyFunction { result } => {
                dict.set_item("kind", "any-function")?;
                dict.set_item("result", self.ty(result)?)?;
            }
            TypeView::Constrained { base, low, high } => {
                dict.set_item("kind", "constrained")?;
                dict.set_item("base", self.ty(base)?)?;
                dict.set_item("low", self.bound(low.as_ref())?)?;
                dict.set_item("high", self.bound(high.as_ref())?)?;
            }
            TypeView::Invalid => dict.set_item("kind", "invalid")?,
        }
        Ok(dict)
    }

    /// One end of a constrained type's interval: `{"value": int | float, "exclusive": bool, "text":
    /// str}`, or None when open. The value keeps the constant's nature (an `int` for an integer
    /// bound); `text` is the constant as explain spells it (`10`, `0.5`, `1.0`).
    fn bound(&self, view: Option<&BoundView>) -> PyResult<Bound<'py, PyAny>> {
        let Some(view) = view else { return Ok(self.py.None().into_bound(self.py)) };
        let dict = PyDict::new(self.py);
        match view.value {
            Number::Int(value) => dict.set_item("value", value)?,
            Number::Float(value) => dict.set_item("value", value)?,
        }
        dict.set_item("exclusive", view.exclusive)?;
        dict.set_item("text", view.value.text())?;
        Ok(dict.into_any())
    }

    fn optional_default(&mut self, view: Option<&DefaultView>) -> PyResult<Bound<'py, PyAny>> {
        let Some(view) = view else { return Ok(self.py.None().into_bound(self.py)) };
        let dict = PyDict::new(self.py);
        match view {
            DefaultView::Literal(literal) => {
                let value = match literal {
                    Literal::Int(value) => Some(value.into_pyobject(self.py)?.into_any()),
                    // Digits Python will not read as an `int` (past its limit on digits) state
                    // no value: the default reads as computed.
                    Literal::BigInt(digits) => self.wide(digits)?,
                    Literal::Float(value) => Some(value.into_pyobject(self.py)?.into_any()),
                    Literal::String(value) => Some(self.text(value).into_any()),
                    Literal::Bool(value) => Some(value.into_pyobject(self.py)?.to_owned().into_any()),
                };
                match value {
                    Some(value) => {
                        dict.set_item("kind", "literal")?;
                        dict.set_item("value", value)?;
                    }
                    None => dict.set_item("kind", "computed")?,
                }
            }
            DefaultView::Case { union, case } => {
                dict.set_item("kind", "case")?;
                dict.set_item("union", self.qualified(union)?)?;
                dict.set_item("case", self.text(case))?;
            }
            DefaultView::Computed => dict.set_item("kind", "computed")?,
        }
        Ok(dict.into_any())
    }
}
