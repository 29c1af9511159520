//! The travel form of a prepared module or a linked program: the bytes a pickle carries from one
//! process to another. It holds the images and what linking needs, never a pointer; reading it
//! prepares every image again (each checked as any untrusted image is) and links them again.
//!
//! Layout (little-endian):
//!
//! ```text
//! "NXTR"  u8 format version (1)  u8 kind (1 module, 2 program)  u8 flags  u8 0
//! u32 payload length  u64 FNV-1a-64 of the payload  payload
//! payload: u32 module count, then per module, in link order (entry first):
//!   u8 source (0 image, 1 the built-in prelude)  u32 schema  str identity  str version
//!   image only: u32 length, the image bytes
//! str: u32 length, UTF-8 bytes
//! ```
//!
//! Flag bit 0 is `allow_version_mismatch`. The checksum makes any changed, lost or added byte
//! of the payload a refusal (`nx-ir-pickle`) before an image is read; the images are then
//! prepared and linked as if a host supplied them, so bytes that pass the checksum but are not
//! a valid program are refused with the reader's or the linker's code.

use std::collections::HashMap;
use std::sync::Arc;

use crate::error::{codes, IrError, IrResult};
use crate::image::PreparedModule;
use crate::link::{LinkOptions, Program};
use crate::prelude::{self, PRELUDE_IDENTITY};

const MAGIC: &[u8; 4] = b"NXTR";
const FORMAT_VERSION: u8 = 1;
const KIND_MODULE: u8 = 1;
const KIND_PROGRAM: u8 = 2;
const FLAG_ALLOW_VERSION_MISMATCH: u8 = 1;
const SOURCE_IMAGE: u8 = 0;
const SOURCE_PRELUDE: u8 = 1;
const HEADER: usize = 4 + 4 + 4 + 8;

fn refused(detail: impl std::fmt::Display) -> IrError {
    IrError::new(codes::PICKLE, format!("The pickled NX IR state cannot be read: {detail}."))
}

/// FNV-1a-64: each step is a bijection of the running hash, so any one changed byte changes it.
fn checksum(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |hash, &byte| (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3))
}

struct Writer(Vec<u8>);

impl Writer {
    fn u32(&mut self, value: usize) {
        // Images and names are far below 4 GiB: a prepared image's length fits its own u32 fields.
        self.0.extend_from_slice(&u32::try_from(value).unwrap_or(u32::MAX).to_le_bytes());
    }

    fn bytes(&mut self, bytes: &[u8]) {
        self.u32(bytes.len());
        self.0.extend_from_slice(bytes);
    }
}

fn envelope(kind: u8, flags: u8, modules: &[Arc<PreparedModule>]) -> Vec<u8> {
    let mut payload = Writer(Vec::with_capacity(modules.iter().map(|m| m.bytes().len() + 64).sum::<usize>() + 4));
    payload.u32(modules.len());
    for module in modules {
        let builtin = module.identity() == PRELUDE_IDENTITY
            && prelude::builtin(module.schema()).is_ok_and(|prelude| Arc::ptr_eq(&prelude, module));
        payload.0.push(if builtin { SOURCE_PRELUDE } else { SOURCE_IMAGE });
        payload.0.extend_from_slice(&module.schema().to_le_bytes());
        payload.bytes(module.identity().as_bytes());
        payload.bytes(module.version().as_bytes());
        if !builtin {
            payload.bytes(module.bytes());
        }
    }
    let payload = payload.0;
    let mut out = Vec::with_capacity(HEADER + payload.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[FORMAT_VERSION, kind, flags, 0]);
    out.extend_from_slice(&u32::try_from(payload.len()).unwrap_or(u32::MAX).to_le_bytes());
    out.extend_from_slice(&checksum(&payload).to_le_bytes());
    out.extend_from_slice(&payload);
    out
}

/// The travel form of one prepared module.
pub fn encode_module(module: &Arc<PreparedModule>) -> Vec<u8> {
    envelope(KIND_MODULE, 0, std::slice::from_ref(module))
}

/// The travel form of a linked program and the options it was linked with.
pub fn encode_program(program: &Program, options: LinkOptions) -> Vec<u8> {
    let flags = if options.allow_version_mismatch { FLAG_ALLOW_VERSION_MISMATCH } else { 0 };
    envelope(KIND_PROGRAM, flags, program.modules())
}

/// One module as the travel form records it.
struct Entry<'a> {
    identity: &'a str,
    version: &'a str,
    schema: u32,
    /// `None`: the built-in prelude of `schema`.
    image: Option<&'a [u8]>,
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> IrResult<&'a [u8]> {
        let end = self.at.checked_add(n).filter(|&end| end <= self.bytes.len()).ok_or_else(|| refused("it ends early"))?;
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Ok(slice)
    }

    fn u8(&mut self) -> IrResult<u8> {
        Ok(self.take(1)?[0])
    }

    fn u32(&mut self) -> IrResult<u32> {
        let mut word = [0; 4];
        word.copy_from_slice(self.take(4)?);
        Ok(u32::from_le_bytes(word))
    }

    fn bytes(&mut self) -> IrResult<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n)
    }

    fn str(&mut self) -> IrResult<&'a str> {
        std::str::from_utf8(self.bytes()?).map_err(|_| refused("a name is not UTF-8"))
    }
}

/// The header checked and the module entries read; no image is prepared yet.
fn read(bytes: &[u8], kind: u8) -> IrResult<(u8, Vec<Entry<'_>>)> {
    if bytes.len() < HEADER || &bytes[..4] != MAGIC {
        return Err(refused("it does not begin with the travel header"));
    }
    if bytes[4] != FORMAT_VERSION {
        return Err(refused(format_args!("its format version is {}, not {FORMAT_VERSION}", bytes[4])));
    }
    if bytes[5] != kind {
        let name = |k: u8| match k {
            KIND_MODULE => "a prepared module".to_string(),
            KIND_PROGRAM => "a program".to_string(),
            other => format!("kind {other}"),
        };
        return Err(refused(format_args!("it holds {}, not {}", name(bytes[5]), name(kind))));
    }
    let flags = bytes[6];
    if flags & !FLAG_ALLOW_VERSION_MISMATCH != 0 || bytes[7] != 0 {
        return Err(refused("it has unknown flags"));
    }
    let mut header = Reader { bytes, at: 8 };
    let length = header.u32()? as usize;
    let mut sum = [0; 8];
    sum.copy_from_slice(header.take(8)?);
    let payload = &bytes[HEADER..];
    if payload.len() != length {
        return Err(refused(format_args!("its payload is {} bytes, where the header says {length}", payload.len())));
    }
    if checksum(payload) != u64::from_le_bytes(sum) {
        return Err(refused("its checksum does not match: the bytes were changed"));
    }
    let mut reader = Reader { bytes: payload, at: 0 };
    let count = reader.u32()? as usize;
    // Each entry takes at least 13 bytes, so a count beyond that is refused before allocating.
    if count == 0 || count > payload.len() / 13 {
        return Err(refused(format_args!("it records {count} modules")));
    }
    let mut entries = Vec::with_capacity(count);
    for _ in 0..count {
        let source = reader.u8()?;
        let schema = reader.u32()?;
        let identity = reader.str()?;
        let version = reader.str()?;
        let image = match source {
            SOURCE_IMAGE => Some(reader.bytes()?),
            SOURCE_PRELUDE => None,
            other => return Err(refused(format_args!("a module's source is {other}"))),
        };
        entries.push(Entry { identity, version, schema, image });
    }
    if reader.at != payload.len() {
        return Err(refused("bytes follow the last module"));
    }
    Ok((flags, entries))
}

/// The module an entry records, prepared (or the built-in prelude), and checked to be the
/// identity and version recorded beside it.
fn prepare(entry: &Entry<'_>) -> IrResult<Arc<PreparedModule>> {
    let module = match entry.image {
        Some(image) => Arc::new(PreparedModule::from_vec(image.to_vec())?),
        None if entry.identity == PRELUDE_IDENTITY => prelude::builtin(entry.schema)?,
        None => return Err(refused(format_args!("'{}' is recorded as the built-in prelude", entry.identity))),
    };
    if module.identity() != entry.identity || module.version() != entry.version || module.schema() != entry.schema {
        return Err(refused(format_args!(
            "the image recorded as '{}' version '{}' (schema {}) is '{}' version '{}' (schema {})",
            entry.identity,
            entry.version,
            entry.schema,
            module.identity(),
            module.version(),
            module.schema()
        )));
    }
    Ok(module)
}

/// A prepared module back from its travel form.
pub fn decode_module(bytes: &[u8]) -> IrResult<Arc<PreparedModule>> {
    let (_, entries) = read(bytes, KIND_MODULE)?;
    match entries.as_slice() {
        [entry] => prepare(entry),
        _ => Err(refused(format_args!("it records {} modules for one", entries.len()))),
    }
}

/// A linked program back from its travel form, with the options it is linked with: every image
/// prepared, then linked from the entry as a host's resolver would, and the link order checked
/// to be the recorded one.
pub fn decode_program(bytes: &[u8]) -> IrResult<(Program, LinkOptions)> {
    let (flags, entries) = read(bytes, KIND_PROGRAM)?;
    let options = LinkOptions { allow_version_mismatch: flags & FLAG_ALLOW_VERSION_MISMATCH != 0 };
    let mut by_identity: HashMap<&str, Arc<PreparedModule>> = HashMap::with_capacity(entries.len());
    let mut entry_module = None;
    for entry in &entries {
        let module = prepare(entry)?;
        entry_module.get_or_insert_with(|| Arc::clone(&module));
        if by_identity.insert(entry.identity, module).is_some() {
            return Err(refused(format_args!("'{}' is recorded twice", entry.identity)));
        }
    }
    let entry_module = entry_module.ok_or_else(|| refused("it records no module"))?;
    let program = Program::link(entry_module, &mut |identity| Ok(by_identity.get(identity).cloned()), options)?;
    let linked = program.modules().iter().map(|m| m.identity());
    if program.modules().len() != entries.len() || !linked.zip(&entries).all(|(a, b)| a == b.identity) {
        return Err(refused("its modules do not link in the recorded order"));
    }
    Ok((program, options))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_is_fnv1a_64() {
        // The published FNV-1a-64 test vectors.
        assert_eq!(checksum(b""), 0xcbf29ce484222325);
        assert_eq!(checksum(b"a"), 0xaf63dc4c8601ec8c);
        assert_eq!(checksum(b"foobar"), 0x85944171f73967e8);
    }

    #[test]
    fn a_module_travels_and_every_damaged_byte_is_refused() {
        let prelude = prelude::builtin(6).unwrap();
        let copy = Arc::new(PreparedModule::from_vec(prelude.bytes().to_vec()).unwrap());
        let travel = encode_module(&copy);
        let back = decode_module(&travel).unwrap();
        assert_eq!(back.bytes(), copy.bytes());
        for at in 0..travel.len() {
            let mut damaged = travel.clone();
            damaged[at] ^= 0x41;
            assert_eq!(decode_module(&damaged).unwrap_err().code(), codes::PICKLE, "byte {at}");
            assert_eq!(decode_module(&travel[..at]).unwrap_err().code(), codes::PICKLE, "cut at {at}");
        }
        assert_eq!(decode_program(&travel).unwrap_err().code(), codes::PICKLE);
    }
}
