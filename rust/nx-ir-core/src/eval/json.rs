//! Canonical JSON for host values (ir-format §5): a small reader and writer, so the core needs no
//! JSON dependency. An integer outside ±(2^53−1) is written as `{"$type":"nx.int","value":"…"}`;
//! reading keeps such a record as a record (the runtime reads it as the integer at typed integer
//! sites, as the Rust reference does).

use super::host::{HostRecord, HostValue};
use crate::error::{codes, IrError, IrResult};

pub const MAX_SAFE_INTEGER: i64 = 9_007_199_254_740_991;

/// Parses one JSON document into a host value.
pub fn from_json(text: &str) -> IrResult<HostValue> {
    let mut parser = Parser { bytes: text.as_bytes(), at: 0, depth: 0 };
    parser.ws();
    let value = parser.value()?;
    parser.ws();
    if parser.at != parser.bytes.len() {
        return Err(parser.error("trailing characters"));
    }
    Ok(value)
}

struct Parser<'a> {
    bytes: &'a [u8],
    at: usize,
    depth: usize,
}

impl Parser<'_> {
    fn error(&self, what: &str) -> IrError {
        IrError::new(codes::BOUNDARY_TYPE, format!("Invalid JSON at byte {}: {what}.", self.at))
    }

    fn ws(&mut self) {
        while self.at < self.bytes.len() && matches!(self.bytes[self.at], b' ' | b'\t' | b'\n' | b'\r') {
            self.at += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> bool {
        if self.bytes.get(self.at) == Some(&byte) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn literal(&mut self, word: &str, value: HostValue) -> IrResult<HostValue> {
        if self.bytes[self.at..].starts_with(word.as_bytes()) {
            self.at += word.len();
            Ok(value)
        } else {
            Err(self.error("unexpected token"))
        }
    }

    fn value(&mut self) -> IrResult<HostValue> {
        self.depth += 1;
        if self.depth > 10_000 {
            return Err(self.error("nested too deeply"));
        }
        let result = match self.bytes.get(self.at) {
            Some(b'n') => self.literal("null", HostValue::Null),
            Some(b't') => self.literal("true", HostValue::Bool(true)),
            Some(b'f') => self.literal("false", HostValue::Bool(false)),
            Some(b'"') => Ok(HostValue::Str(self.string()?)),
            Some(b'[') => {
                self.at += 1;
                let mut items = Vec::new();
                self.ws();
                if !self.eat(b']') {
                    loop {
                        self.ws();
                        items.push(self.value()?);
                        self.ws();
                        if self.eat(b']') {
                            break;
                        }
                        if !self.eat(b',') {
                            return Err(self.error("expected ',' or ']'"));
                        }
                    }
                }
                Ok(HostValue::List(items))
            }
            Some(b'{') => {
                self.at += 1;
                let mut record = HostRecord::default();
                self.ws();
                if !self.eat(b'}') {
                    loop {
                        self.ws();
                        let key = self.string()?;
                        self.ws();
                        if !self.eat(b':') {
                            return Err(self.error("expected ':'"));
                        }
                        self.ws();
                        let value = self.value()?;
                        match (key.as_str(), value) {
                            ("$type", HostValue::Str(name)) => record.type_name = Some(name),
                            (_, value) => record.fields.push((key, value)),
                        }
                        self.ws();
                        if self.eat(b'}') {
                            break;
                        }
                        if !self.eat(b',') {
                            return Err(self.error("expected ',' or '}'"));
                        }
                    }
                }
                Ok(HostValue::Record(record))
            }
            Some(_) => self.number(),
            None => Err(self.error("unexpected end")),
        };
        self.depth -= 1;
        result
    }

    fn number(&mut self) -> IrResult<HostValue> {
        let start = self.at;
        let mut integral = true;
        while let Some(&c) = self.bytes.get(self.at) {
            match c {
                b'0'..=b'9' | b'-' | b'+' => {}
                b'.' | b'e' | b'E' => integral = false,
                _ => break,
            }
            self.at += 1;
        }
        let text = std::str::from_utf8(&self.bytes[start..self.at]).map_err(|_| self.error("bad number"))?;
        if text.is_empty() {
            return Err(self.error("unexpected character"));
        }
        if integral {
            if let Ok(value) = text.parse::<i64>() {
                return Ok(HostValue::Int(value));
            }
        }
        text.parse::<f64>().map(HostValue::Float).map_err(|_| self.error("bad number"))
    }

    fn string(&mut self) -> IrResult<String> {
        if !self.eat(b'"') {
            return Err(self.error("expected a string"));
        }
        let mut out = String::new();
        loop {
            let start = self.at;
            while let Some(&c) = self.bytes.get(self.at) {
                if c == b'"' || c == b'\\' {
                    break;
                }
                self.at += 1;
            }
            out.push_str(std::str::from_utf8(&self.bytes[start..self.at]).map_err(|_| self.error("bad UTF-8"))?);
            match self.bytes.get(self.at) {
                Some(b'"') => {
                    self.at += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.at += 1;
                    let c = *self.bytes.get(self.at).ok_or_else(|| self.error("bad escape"))?;
                    self.at += 1;
                    match c {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let first = self.hex4()?;
                            let code = if (0xD800..0xDC00).contains(&first)
                                && self.bytes[self.at..].starts_with(b"\\u")
                            {
                                self.at += 2;
                                let second = self.hex4()?;
                                0x10000 + ((first - 0xD800) << 10) + (second.wrapping_sub(0xDC00) & 0x3FF)
                            } else {
                                first
                            };
                            out.push(char::from_u32(code).unwrap_or('\u{FFFD}'));
                        }
                        _ => return Err(self.error("bad escape")),
                    }
                }
                _ => return Err(self.error("unterminated string")),
            }
        }
    }

    fn hex4(&mut self) -> IrResult<u32> {
        let digits = self.bytes.get(self.at..self.at + 4).ok_or_else(|| self.error("bad \\u escape"))?;
        let text = std::str::from_utf8(digits).map_err(|_| self.error("bad \\u escape"))?;
        self.at += 4;
        u32::from_str_radix(text, 16).map_err(|_| self.error("bad \\u escape"))
    }
}

/// Writes canonical JSON (`$type` first; integers outside the safe range as `nx.int`).
pub fn to_json(value: &HostValue) -> String {
    let mut out = String::new();
    write(value, &mut out);
    out
}

fn write(value: &HostValue, out: &mut String) {
    match value {
        HostValue::Null => out.push_str("null"),
        HostValue::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        HostValue::Int(i) if (-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER).contains(i) => out.push_str(&i.to_string()),
        HostValue::Int(i) => {
            out.push_str("{\"$type\":\"nx.int\",\"value\":\"");
            out.push_str(&i.to_string());
            out.push_str("\"}");
        }
        HostValue::Float(f) if f.is_finite() => out.push_str(&super::text::float64_text(*f)),
        HostValue::Float(_) => out.push_str("null"),
        HostValue::Str(s) => string(s, out),
        HostValue::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(item, out);
            }
            out.push(']');
        }
        HostValue::Record(record) => {
            out.push('{');
            let mut first = true;
            if let Some(name) = &record.type_name {
                out.push_str("\"$type\":");
                string(name, out);
                first = false;
            }
            for (key, item) in &record.fields {
                if !first {
                    out.push(',');
                }
                first = false;
                string(key, out);
                out.push(':');
                write(item, out);
            }
            out.push('}');
        }
    }
}

fn string(text: &str, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Canonical comparison of two host values: numbers by value (`3` equals `3.0`), an `nx.int`
/// record equal to the integer it spells, records by `$type` and the set of members.
pub fn canonical_eq(a: &HostValue, b: &HostValue) -> bool {
    fn wide(value: &HostValue) -> Option<i64> {
        match value {
            HostValue::Record(r) if r.type_name.as_deref() == Some("nx.int") && r.fields.len() == 1 => match r.get("value") {
                Some(HostValue::Str(s)) => s.parse().ok(),
                _ => None,
            },
            HostValue::Int(i) => Some(*i),
            _ => None,
        }
    }
    match (a, b) {
        (HostValue::Int(x), HostValue::Float(y)) | (HostValue::Float(y), HostValue::Int(x)) => (*x as f64) == *y,
        (HostValue::Float(x), HostValue::Float(y)) => x == y || (x.is_nan() && y.is_nan()),
        (HostValue::List(x), HostValue::List(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| canonical_eq(a, b))
        }
        (HostValue::Record(x), HostValue::Record(y)) if x.type_name == y.type_name => {
            x.fields.len() == y.fields.len()
                && x.fields.iter().all(|(k, v)| y.get(k).is_some_and(|w| canonical_eq(v, w)))
        }
        _ => match (wide(a), wide(b)) {
            (Some(x), Some(y)) => x == y,
            _ => a == b,
        },
    }
}
