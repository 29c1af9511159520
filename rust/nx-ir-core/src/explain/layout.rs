//! Building blocks of the explained text: a rendering is a list of lines, each relative to the
//! indentation of the rendering's first line. Parents indent, prefix and suffix their children's
//! renderings; a rendering that fits on one line is one line.

pub(super) type Lines = Vec<String>;

/// Every line two spaces further in.
pub(super) fn indent(lines: Lines) -> Lines {
    lines.into_iter().map(|line| format!("  {line}")).collect()
}

/// `prefix` written before the first line.
pub(super) fn prefix(prefix: &str, mut lines: Lines) -> Lines {
    match lines.first_mut() {
        Some(first) => first.insert_str(0, prefix),
        None => lines.push(prefix.to_string()),
    }
    lines
}

/// `suffix` written after the last line.
pub(super) fn suffix(mut lines: Lines, suffix: &str) -> Lines {
    match lines.last_mut() {
        Some(last) => last.push_str(suffix),
        None => lines.push(suffix.to_string()),
    }
    lines
}

/// Parts between `open` and `close`: on one line joined by `separator` when every part is one
/// line, else `open` and `close` on lines of their own (trimmed, and left out when empty) around
/// the parts, each indented, with no separator.
pub(super) fn group(parts: Vec<Lines>, open: &str, separator: &str, close: &str) -> Lines {
    if parts.iter().all(|part| part.len() == 1) {
        let joined: Vec<&str> = parts.iter().map(|part| part[0].as_str()).collect();
        return vec![format!("{open}{}{close}", joined.join(separator))];
    }
    let mut lines = Lines::new();
    let open = open.trim_end();
    if !open.is_empty() {
        lines.push(open.to_string());
    }
    for part in parts {
        lines.extend(indent(part));
    }
    let close = close.trim_start();
    if !close.is_empty() {
        lines.push(close.to_string());
    }
    lines
}

/// `head(arguments)`: on one line when every argument is, else one argument per indented line
/// between `head(` and `)`.
pub(super) fn call(head: &str, arguments: Vec<Lines>) -> Lines {
    if arguments.iter().all(|argument| argument.len() == 1) {
        let joined: Vec<&str> = arguments
            .iter()
            .map(|argument| argument[0].as_str())
            .collect();
        return vec![format!("{head}({})", joined.join(", "))];
    }
    let mut lines = vec![format!("{head}(")];
    for argument in arguments {
        lines.extend(indent(argument));
    }
    lines.push(")".to_string());
    lines
}
