//! A host value whose records keep their members in the order given (a Python dict's way),
//! for tests of how the reader takes a `$type` that is not a record's first member.

use std::borrow::Cow;

use nx_ir_core::error::IrError;
use nx_ir_core::eval::{HostRead, HostValue, HostValueSource, Member};

/// A host value whose records keep their members in the order given, the `$type` among them
/// (a Python dict's way): a string `$type` is handed over as the type name where it stands.
#[derive(Debug, Clone)]
pub enum Ordered {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    List(Vec<Ordered>),
    Rec(Vec<(String, Ordered)>),
}

impl<'v> HostValueSource for &'v Ordered {
    type Child = &'v Ordered;

    fn read(&self) -> Result<HostRead<'_, &'v Ordered>, IrError> {
        let value: &'v Ordered = self;
        Ok(match value {
            Ordered::Null => HostRead::Null,
            Ordered::Bool(b) => HostRead::Bool(*b),
            Ordered::Int(i) => HostRead::Int(*i),
            Ordered::Float(f) => HostRead::Float(*f),
            Ordered::Str(s) => HostRead::Str(Cow::Borrowed(s)),
            Ordered::List(items) => HostRead::List(items.iter().collect()),
            Ordered::Rec(members) => {
                let mut type_name = None;
                let mut fields = Vec::new();
                for (key, item) in members {
                    match item {
                        Ordered::Str(name) if key == "$type" => type_name = Some(Cow::Borrowed(name.as_str())),
                        _ => fields.push((Cow::Borrowed(key.as_str()), item)),
                    }
                }
                HostRead::Record { type_name, fields }
            }
        })
    }

    fn visit_members<F>(&self, mut visit: F) -> Option<Result<(), IrError>>
    where
        F: FnMut(Member<'_, &'v Ordered>) -> Result<bool, IrError>,
    {
        let value: &'v Ordered = self;
        let Ordered::Rec(members) = value else { return None };
        for (key, item) in members {
            let member = match item {
                Ordered::Str(name) if key == "$type" => Member::TypeName(name),
                _ => Member::Field(Cow::Borrowed(key.as_str()), item),
            };
            match visit(member) {
                Ok(true) => {}
                Ok(false) => break,
                Err(error) => return Some(Err(error)),
            }
        }
        Some(Ok(()))
    }
}

/// `value` with each record's `$type` (a string) after its other members.
pub fn type_last(value: &HostValue) -> Ordered {
    match value {
        HostValue::Null => Ordered::Null,
        HostValue::Bool(b) => Ordered::Bool(*b),
        HostValue::Int(i) => Ordered::Int(*i),
        HostValue::Float(f) => Ordered::Float(*f),
        HostValue::Str(s) => Ordered::Str(s.clone()),
        HostValue::List(items) => Ordered::List(items.iter().map(type_last).collect()),
        HostValue::Record(record) => {
            let mut members: Vec<(String, Ordered)> = record.fields.iter().map(|(key, item)| (key.clone(), type_last(item))).collect();
            members.extend(record.type_name.iter().map(|name| ("$type".to_string(), Ordered::Str(name.clone()))));
            Ordered::Rec(members)
        }
    }
}
