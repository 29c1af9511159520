//! Where things lie in an image: the header and directory checks, the offset-array tables and
//! the module and debug sections, recorded as byte positions so that every later read is a
//! bounds-checked look at the caller's buffer.

use super::malformed;
use crate::error::{codes, IrError, IrResult};
use crate::model::kinds::{self, section};
use crate::model::NONE;

use super::decode::Table;

/// Bytes of the header: magic, schema version, total length, directory count.
pub(crate) const HEADER_LEN: usize = 16;
/// Bytes of one directory entry: kind, offset, length.
pub(crate) const DIRECTORY_ENTRY_LEN: usize = 12;

/// The little-endian cell at byte `at`, or `None` if it does not lie inside `bytes`.
pub(crate) fn cell(bytes: &[u8], at: usize) -> Option<u32> {
    let end = at.checked_add(4)?;
    let quad: [u8; 4] = bytes.get(at..end)?.try_into().ok()?;
    Some(u32::from_le_bytes(quad))
}

/// `n` rounded up to a multiple of four.
pub(crate) fn padded(n: usize) -> Option<usize> {
    n.checked_add(3).map(|n| n & !3)
}

/// `count` consecutive cells starting at byte `at`.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Run {
    pub at: usize,
    pub count: usize,
}

impl Run {
    /// Cell `index` of the run.
    pub fn get(&self, bytes: &[u8], index: usize) -> Option<u32> {
        if index >= self.count {
            return None;
        }
        cell(bytes, self.at.checked_add(index.checked_mul(4)?)?)
    }

    /// Every cell of the run, in order.
    pub fn iter<'a>(&self, bytes: &'a [u8]) -> impl Iterator<Item = u32> + 'a {
        let run = *self;
        (0..run.count).map_while(move |index| run.get(bytes, index))
    }
}

/// An offset-array table: `count`, `count + 1` offsets, then the pool (the string blob, or a
/// pool of cells). Offsets are in bytes for the string table and in cells otherwise.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct OffsetTable {
    pub count: usize,
    /// The `count + 1` offsets.
    pub offsets: Run,
    /// Byte position of the pool.
    pub pool: usize,
    /// Length of the pool in offset units (bytes or cells), which is the last offset.
    pub pool_len: usize,
}

impl OffsetTable {
    /// Entry `index` as a `(start, end)` range in offset units.
    pub fn range(&self, bytes: &[u8], index: usize) -> Option<(usize, usize)> {
        if index >= self.count {
            return None;
        }
        let start = self.offsets.get(bytes, index)? as usize;
        let end = self.offsets.get(bytes, index + 1)? as usize;
        (start <= end && end <= self.pool_len).then_some((start, end))
    }

    /// Entry `index` of a cell table, as its bytes.
    pub fn cells<'a>(&self, bytes: &'a [u8], index: usize) -> Option<&'a [u8]> {
        let (start, end) = self.range(bytes, index)?;
        let from = self.pool.checked_add(start.checked_mul(4)?)?;
        let to = self.pool.checked_add(end.checked_mul(4)?)?;
        bytes.get(from..to)
    }

    /// Entry `index` of the string table, as its bytes.
    pub fn blob_bytes<'a>(&self, bytes: &'a [u8], index: usize) -> Option<&'a [u8]> {
        let (start, end) = self.range(bytes, index)?;
        bytes.get(self.pool.checked_add(start)?..self.pool.checked_add(end)?)
    }
}

/// The module section, as runs of cells.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ModuleLayout {
    pub abi: u32,
    pub features: Run,
    /// Four cells per module: identity, version, fingerprint low, fingerprint high.
    pub modules: Run,
    pub function_entrypoints: Run,
    pub component_entrypoints: Run,
}

impl ModuleLayout {
    pub fn module_count(&self) -> usize {
        self.modules.count / 4
    }
}

/// The debug section: a `(start, end)` pair per declaration and per node, and the source.
#[derive(Debug, Clone, Copy)]
pub(crate) struct DebugLayout {
    pub declaration_spans: Run,
    pub node_spans: Run,
    pub source: usize,
    pub source_len: usize,
}

impl DebugLayout {
    pub fn declaration_span(&self, bytes: &[u8], index: usize) -> Option<(u32, u32)> {
        span(bytes, &self.declaration_spans, index)
    }

    pub fn node_span(&self, bytes: &[u8], index: usize) -> Option<(u32, u32)> {
        span(bytes, &self.node_spans, index)
    }

    pub fn source<'a>(&self, bytes: &'a [u8]) -> Option<&'a str> {
        let source = bytes.get(self.source..self.source.checked_add(self.source_len)?)?;
        std::str::from_utf8(source).ok()
    }
}

fn span(bytes: &[u8], run: &Run, index: usize) -> Option<(u32, u32)> {
    let start = run.get(bytes, index.checked_mul(2)?)?;
    let end = run.get(bytes, index.checked_mul(2)? + 1)?;
    (start != NONE && end != NONE).then_some((start, end))
}

/// A section's byte range, from the directory.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Section {
    pub at: usize,
    pub len: usize,
}

impl Section {
    fn end(&self) -> usize {
        self.at + self.len
    }
}

/// The sections the directory lists, by kind; kinds past `debug` were skipped.
pub(crate) struct Directory {
    /// The header's schema version, one of [`kinds::SCHEMAS`].
    pub schema: u32,
    /// Kinds 0 to 5, all present.
    pub required: [Section; 6],
    pub debug: Option<Section>,
}

/// Checks the header and the directory (§1.3 of the format, in its order) and finds the
/// sections.
pub(crate) fn read_directory(bytes: &[u8]) -> IrResult<Directory> {
    if bytes.get(..4) != Some(&kinds::MAGIC[..]) {
        return Err(IrError::new(codes::FORMAT, "The input is not an NX IR image."));
    }
    let header = |index: usize| cell(bytes, index * 4).ok_or_else(|| malformed("the header is cut short"));
    let schema = header(1)?;
    let total = header(2)?;
    let count = header(3)?;
    if !kinds::SCHEMAS.contains(&schema) {
        return Err(IrError::new(
            codes::SCHEMA_VERSION,
            format!(
                "NX IR schema version {schema} is not supported; this runtime reads schema versions {} and {}.",
                kinds::SCHEMA_5,
                kinds::SCHEMA_6
            ),
        ));
    }
    if total as usize != bytes.len() {
        return Err(malformed(format_args!(
            "the header gives the image {total} bytes, but the buffer holds {}",
            bytes.len()
        )));
    }
    let directory_end = (count as usize)
        .checked_mul(DIRECTORY_ENTRY_LEN)
        .and_then(|len| len.checked_add(HEADER_LEN))
        .filter(|end| *end <= bytes.len())
        .ok_or_else(|| malformed(format_args!("the directory of {count} entries does not fit the image")))?;

    let mut found: [Option<Section>; 7] = [None; 7];
    for entry in 0..count as usize {
        let at = HEADER_LEN + entry * DIRECTORY_ENTRY_LEN;
        let field = |offset: usize| cell(bytes, at + offset).ok_or_else(|| malformed("the directory is cut short"));
        let (kind, offset, len) = (field(0)?, field(4)? as usize, field(8)? as usize);
        if offset % 4 != 0 || len % 4 != 0 {
            return Err(malformed(format_args!("section {kind} is not aligned to four bytes")));
        }
        if !matches!(offset.checked_add(len), Some(end) if end <= bytes.len()) {
            return Err(malformed(format_args!("section {kind} lies outside the image")));
        }
        if offset < directory_end {
            return Err(malformed(format_args!("section {kind} overlaps the header or the directory")));
        }
        // Kinds past the debug section are skipped, so new sections need no schema change.
        let Some(slot) = found.get_mut(kind as usize) else { continue };
        if slot.is_some() {
            return Err(malformed(format_args!("section {kind} is listed twice")));
        }
        *slot = Some(Section { at: offset, len });
    }
    let mut required = [Section { at: 0, len: 0 }; 6];
    for (kind, slot) in required.iter_mut().enumerate() {
        *slot = found[kind].ok_or_else(|| malformed(format_args!("section {kind} is missing")))?;
    }
    Ok(Directory { schema, required, debug: found[section::DEBUG as usize] })
}

/// Reads the head of an offset-array section: the count and `count + 1` non-decreasing offsets
/// starting at zero. The pool is what follows; the caller checks its length.
fn read_offsets(bytes: &[u8], section: Section, what: &str) -> IrResult<OffsetTable> {
    let cells = section.len / 4;
    let count = cell(bytes, section.at).ok_or_else(|| malformed(format_args!("the {what} section is empty")))? as usize;
    let head = count
        .checked_add(2)
        .filter(|head| *head <= cells)
        .ok_or_else(|| malformed(format_args!("the {what} offsets do not fit their section")))?;
    let offsets = Run { at: section.at + 4, count: count + 1 };
    if offsets.get(bytes, 0) != Some(0) {
        return Err(malformed(format_args!("the {what} offsets do not start at zero")));
    }
    let mut previous = 0;
    for offset in offsets.iter(bytes) {
        if offset < previous {
            return Err(malformed(format_args!("the {what} offsets decrease")));
        }
        previous = offset;
    }
    Ok(OffsetTable { count, offsets, pool: section.at + head * 4, pool_len: previous as usize })
}

/// Checks the string table (§1.4): offsets, the blob's padded length, UTF-8 and character
/// boundaries.
pub(crate) fn read_strings(bytes: &[u8], section: Section) -> IrResult<OffsetTable> {
    let table = read_offsets(bytes, section, "string")?;
    let room = section.end() - table.pool;
    if padded(table.pool_len) != Some(room) {
        return Err(malformed(format_args!(
            "the string blob is {} bytes, but its section leaves {room} bytes for it",
            table.pool_len
        )));
    }
    let blob = bytes
        .get(table.pool..table.pool + table.pool_len)
        .ok_or_else(|| malformed("the string blob lies outside the image"))?;
    let blob =
        std::str::from_utf8(blob).map_err(|error| malformed(format_args!("the string blob is not UTF-8 ({error})")))?;
    if let Some(offset) = table.offsets.iter(bytes).find(|offset| !blob.is_char_boundary(*offset as usize)) {
        return Err(malformed(format_args!("string offset {offset} falls inside a character")));
    }
    Ok(table)
}

/// Checks one of the four cell tables (§1.4): offsets, and a pool exactly as long as the last
/// offset says.
pub(crate) fn read_cell_table(bytes: &[u8], section: Section, what: &str) -> IrResult<OffsetTable> {
    let table = read_offsets(bytes, section, what)?;
    let pool_cells = (section.end() - table.pool) / 4;
    if pool_cells != table.pool_len {
        return Err(malformed(format_args!(
            "the {what} pool holds {pool_cells} cells, but its offsets end at {}",
            table.pool_len
        )));
    }
    Ok(table)
}

/// The counts an index read from the module section must stay below.
pub(crate) struct ModuleBounds {
    pub strings: usize,
    pub declarations: usize,
}

/// Reads a section that has no offset array (module, debug) front to back.
struct SectionCursor<'a> {
    bytes: &'a [u8],
    at: usize,
    end: usize,
    section: &'static str,
}

impl SectionCursor<'_> {
    fn next(&mut self, what: &str) -> IrResult<u32> {
        let value = if self.at < self.end { cell(self.bytes, self.at) } else { None };
        self.at += 4;
        value.ok_or_else(|| malformed(format_args!("the {} section ends before its {what}", self.section)))
    }

    /// The next `count` elements of `width` cells each, which must fit the section.
    fn run(&mut self, count: u32, width: usize, what: &str) -> IrResult<Run> {
        let cells = (count as usize).checked_mul(width);
        let stop = cells.and_then(|cells| cells.checked_mul(4)).and_then(|len| self.at.checked_add(len));
        match (cells, stop) {
            (Some(cells), Some(stop)) if stop <= self.end => {
                let run = Run { at: self.at, count: cells };
                self.at = stop;
                Ok(run)
            }
            _ => {
                Err(malformed(format_args!("the {what} of {count} entries does not fit the {} section", self.section)))
            }
        }
    }

    /// A count cell and the list it counts.
    fn list(&mut self, width: usize, what: &str) -> IrResult<Run> {
        let count = self.next(&format!("{what} count"))?;
        self.run(count, width, what)
    }
}

/// Checks the module section (§1.5): every string and entrypoint index in range, a non-empty
/// module table, and nothing after the entrypoints.
pub(crate) fn read_module(bytes: &[u8], section: Section, bounds: &ModuleBounds) -> IrResult<ModuleLayout> {
    let mut cursor = SectionCursor { bytes, at: section.at, end: section.end(), section: "module" };
    let abi = cursor.next("runtime ABI")?;
    check_index(abi, "runtime ABI string", bounds.strings)?;
    let features = cursor.list(1, "required feature list")?;
    for feature in features.iter(bytes) {
        check_index(feature, "required feature string", bounds.strings)?;
    }
    let module_count = cursor.next("module count")?;
    if module_count == 0 {
        return Err(malformed("the module table is empty"));
    }
    let modules = cursor.run(module_count, 4, "module table")?;
    for slot in 0..module_count as usize {
        check_index(modules.get(bytes, slot * 4).unwrap_or(NONE), "module identity string", bounds.strings)?;
        check_index(modules.get(bytes, slot * 4 + 1).unwrap_or(NONE), "module version string", bounds.strings)?;
    }
    let mut entrypoints = |what: &str| -> IrResult<Run> {
        let run = cursor.list(1, &format!("{what} list"))?;
        for index in run.iter(bytes) {
            check_index(index, &format!("{what} declaration"), bounds.declarations)?;
        }
        Ok(run)
    };
    let function_entrypoints = entrypoints("function entrypoint")?;
    let component_entrypoints = entrypoints("component entrypoint")?;
    if cursor.at != cursor.end {
        return Err(malformed("the module section has cells after the entrypoints"));
    }
    Ok(ModuleLayout { abi, features, modules, function_entrypoints, component_entrypoints })
}

fn check_index(index: u32, what: &str, count: usize) -> IrResult<()> {
    if (index as usize) < count {
        Ok(())
    } else {
        Err(malformed(format_args!("{what} index {index} is out of range (the table has {count})")))
    }
}

/// Checks the debug section (§1.7): one span per declaration and per node, then the source,
/// UTF-8, padded to exactly the section's end. Spans are not checked against the source.
pub(crate) fn read_debug(bytes: &[u8], section: Section, declarations: usize, nodes: usize) -> IrResult<DebugLayout> {
    let mut cursor = SectionCursor { bytes, at: section.at, end: section.end(), section: "debug" };
    let mut spans = |what: &str, expected: usize| -> IrResult<Run> {
        let count = cursor.next(&format!("{what} span count"))?;
        if count as usize != expected {
            return Err(malformed(format_args!("the debug section has {count} {what} spans for {expected} {what}s")));
        }
        cursor.run(count, 2, &format!("{what} span list"))
    };
    let declaration_spans = spans("declaration", declarations)?;
    let node_spans = spans("node", nodes)?;
    let source_len = cursor.next("source length")? as usize;
    let source = cursor.at;
    let room = cursor.end.saturating_sub(source);
    if padded(source_len) != Some(room) {
        return Err(malformed(format_args!(
            "the source is {source_len} bytes, but the debug section leaves {room} bytes for it"
        )));
    }
    let text = bytes.get(source..source + source_len).ok_or_else(|| malformed("the source lies outside the image"))?;
    std::str::from_utf8(text).map_err(|error| malformed(format_args!("the source is not UTF-8 ({error})")))?;
    Ok(DebugLayout { declaration_spans, node_spans, source, source_len })
}

/// Everything validation found: where each table and section lies.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ImageLayout {
    /// The schema the header names (5 or 6).
    pub schema: u32,
    pub strings: OffsetTable,
    pub module: ModuleLayout,
    /// Types, constants, nodes, declarations, in [`Table::ALL`] order.
    pub tables: [OffsetTable; 4],
    pub debug: Option<DebugLayout>,
}

impl ImageLayout {
    pub fn table(&self, table: Table) -> &OffsetTable {
        &self.tables[table as usize]
    }

    /// String `index` as bytes (validated UTF-8).
    pub fn string_bytes<'a>(&self, bytes: &'a [u8], index: u32) -> Option<&'a [u8]> {
        self.strings.blob_bytes(bytes, index as usize)
    }

    /// String `index`, read in place.
    pub fn string<'a>(&self, bytes: &'a [u8], index: u32) -> Option<&'a str> {
        std::str::from_utf8(self.string_bytes(bytes, index)?).ok()
    }

    /// Entry `index` of `table`, as its cells.
    pub fn entry<'a>(&self, bytes: &'a [u8], table: Table, index: u32) -> Option<&'a [u8]> {
        self.table(table).cells(bytes, index as usize)
    }

    /// Cell `at` of entry `index` of `table`.
    pub fn entry_cell(&self, bytes: &[u8], table: Table, index: u32, at: usize) -> Option<u32> {
        cell(self.entry(bytes, table, index)?, at.checked_mul(4)?)
    }
}
