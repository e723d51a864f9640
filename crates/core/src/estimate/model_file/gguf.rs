//! The GGUF header: metadata key-value pairs and tensor infos, read without touching the tensor
//! data.
//!
//! Layout (ggml `docs/gguf.md`, versions 2 and 3, little-endian): magic `GGUF`, `u32` version,
//! `u64` tensor count, `u64` metadata count; each metadata pair is a string key (`u64` length
//! then UTF-8), a `u32` value type and the value; each tensor info is a string name, `u32` number
//! of dimensions, that many `u64` dimensions, a `u32` ggml type and a `u64` offset into the
//! data section, which starts at the header's end rounded up to `general.alignment` (default
//! 32). Version 1 (`u32` counts and lengths, 2023) is refused.
//!
//! Every length is checked against the bytes left in the file before anything is allocated,
//! so a truncated or hostile file is an error, never a panic or a huge allocation.

use super::ModelFileError;
use std::collections::BTreeMap;
use std::io::Read;

/// `GGUF` in file order.
pub(crate) const MAGIC: [u8; 4] = *b"GGUF";
/// Data alignment when `general.alignment` is absent (`GGUF_DEFAULT_ALIGNMENT`, docs/gguf.md).
pub(crate) const DEFAULT_ALIGNMENT: u64 = 32;
/// Arrays longer than this keep only their length (the tokenizer's vocabulary has ~150k
/// strings; nothing the estimate needs is a long array).
const KEEP_ARRAY_MAX: u64 = 4096;

/// A metadata value. Arrays of numbers up to [`KEEP_ARRAY_MAX`] keep their values; longer
/// arrays and arrays of strings keep their length only.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// Any unsigned integer type.
    Uint(u64),
    /// Any signed integer type.
    Int(i64),
    /// `f32` or `f64`.
    Float(f64),
    /// Boolean.
    Bool(bool),
    /// UTF-8 string.
    Str(String),
    /// An array: its length and, for short numeric arrays, the values.
    Array {
        /// Elements.
        len: u64,
        /// Values (empty for strings and long arrays).
        values: Vec<Value>,
    },
}

impl Value {
    /// The value as an unsigned integer (non-negative integers and integral floats), or the
    /// first element of a numeric array (per-layer arrays whose layers agree).
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Value::Uint(v) => Some(*v),
            Value::Int(v) => u64::try_from(*v).ok(),
            Value::Array { values, .. } => values.first().and_then(Value::as_u64),
            Value::Float(_) | Value::Bool(_) | Value::Str(_) => None,
        }
    }

    /// The value as a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }
}

/// One tensor of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorInfo {
    /// Name (`blk.0.attn_q.weight`).
    pub name: String,
    /// Dimensions, innermost first (ggml order).
    pub dims: Vec<u64>,
    /// ggml type id (`ggml_type`).
    pub ggml_type: u32,
    /// Offset of the data from the start of the data section, bytes.
    pub offset: u64,
    /// Bytes of data (elements / block size × bytes per block).
    pub bytes: u64,
}

impl TensorInfo {
    /// Elements of the tensor.
    pub fn elements(&self) -> u64 {
        self.dims.iter().product()
    }
}

/// The parsed header.
#[derive(Debug, Clone, PartialEq)]
pub struct Header {
    /// Format version (2 or 3).
    pub version: u32,
    /// Metadata by key.
    pub metadata: BTreeMap<String, Value>,
    /// Tensor infos in file order.
    pub tensors: Vec<TensorInfo>,
    /// Offset of the data section from the start of the file, bytes.
    pub data_offset: u64,
}

/// Block size (elements) and bytes per block of a ggml type, from ggml's `type_traits` table
/// (ggml/src/ggml.c; the same figures as the Python `gguf` package's `GGML_QUANT_SIZES`).
/// `None` for ids ggml does not (or no longer) define.
pub(crate) fn ggml_type_size(ggml_type: u32) -> Option<(u64, u64, &'static str)> {
    Some(match ggml_type {
        0 => (1, 4, "F32"),
        1 => (1, 2, "F16"),
        2 => (32, 18, "Q4_0"),
        3 => (32, 20, "Q4_1"),
        6 => (32, 22, "Q5_0"),
        7 => (32, 24, "Q5_1"),
        8 => (32, 34, "Q8_0"),
        9 => (32, 40, "Q8_1"),
        10 => (256, 84, "Q2_K"),
        11 => (256, 110, "Q3_K"),
        12 => (256, 144, "Q4_K"),
        13 => (256, 176, "Q5_K"),
        14 => (256, 210, "Q6_K"),
        15 => (256, 292, "Q8_K"),
        16 => (256, 66, "IQ2_XXS"),
        17 => (256, 74, "IQ2_XS"),
        18 => (256, 98, "IQ3_XXS"),
        19 => (256, 50, "IQ1_S"),
        20 => (32, 18, "IQ4_NL"),
        21 => (256, 110, "IQ3_S"),
        22 => (256, 82, "IQ2_S"),
        23 => (256, 136, "IQ4_XS"),
        24 => (1, 1, "I8"),
        25 => (1, 2, "I16"),
        26 => (1, 4, "I32"),
        27 => (1, 8, "I64"),
        28 => (1, 8, "F64"),
        29 => (256, 56, "IQ1_M"),
        30 => (1, 2, "BF16"),
        34 => (256, 54, "TQ1_0"),
        35 => (256, 66, "TQ2_0"),
        39 => (32, 17, "MXFP4"),
        40 => (64, 36, "NVFP4"),
        _ => return None,
    })
}

/// A reader that counts bytes and knows how many are left.
struct Cursor<R> {
    inner: R,
    pos: u64,
    len: u64,
}

impl<R: Read> Cursor<R> {
    fn bytes<const N: usize>(&mut self, what: &str) -> Result<[u8; N], ModelFileError> {
        let mut buf = [0u8; N];
        self.inner.read_exact(&mut buf).map_err(|e| self.short(what, &e))?;
        self.pos += N as u64;
        Ok(buf)
    }

    fn short(&self, what: &str, e: &std::io::Error) -> ModelFileError {
        if e.kind() == std::io::ErrorKind::UnexpectedEof {
            ModelFileError::Truncated(format!("the file ends at byte {} inside {what}", self.len))
        } else {
            ModelFileError::Io(format!("reading {what} at byte {}: {e}", self.pos))
        }
    }

    fn left(&self) -> u64 {
        self.len.saturating_sub(self.pos)
    }

    fn u32(&mut self, what: &str) -> Result<u32, ModelFileError> {
        Ok(u32::from_le_bytes(self.bytes(what)?))
    }

    fn u64(&mut self, what: &str) -> Result<u64, ModelFileError> {
        Ok(u64::from_le_bytes(self.bytes(what)?))
    }

    /// A count of items of at least `min_item` bytes each, checked against the bytes left.
    fn count(&mut self, what: &str, min_item: u64) -> Result<u64, ModelFileError> {
        let n = self.u64(what)?;
        if n.saturating_mul(min_item.max(1)) > self.left() {
            return Err(ModelFileError::Truncated(format!(
                "{what} is {n}, more than the {} bytes left in the file hold",
                self.left()
            )));
        }
        Ok(n)
    }

    fn string(&mut self, what: &str) -> Result<String, ModelFileError> {
        let n = self.count(what, 1)?;
        let mut buf = Vec::with_capacity(n as usize);
        (&mut self.inner).take(n).read_to_end(&mut buf).map_err(|e| self.short(what, &e))?;
        if (buf.len() as u64) < n {
            return Err(ModelFileError::Truncated(format!("the file ends at byte {} inside {what}", self.len)));
        }
        self.pos += n;
        String::from_utf8(buf).map_err(|_| ModelFileError::Invalid(format!("{what} at byte {} is not UTF-8", self.pos)))
    }

    /// Bytes of one element of value type `t` (0 for strings and arrays, which vary).
    fn scalar_size(t: u32) -> Option<u64> {
        Some(match t {
            0 | 1 | 7 => 1,
            2 | 3 => 2,
            4..=6 => 4,
            10..=12 => 8,
            8 | 9 => 0,
            _ => return None,
        })
    }

    fn value(&mut self, t: u32, key: &str, depth: u32) -> Result<Value, ModelFileError> {
        Ok(match t {
            0 => Value::Uint(u64::from(self.bytes::<1>(key)?[0])),
            1 => Value::Int(i64::from(i8::from_le_bytes(self.bytes(key)?))),
            2 => Value::Uint(u64::from(u16::from_le_bytes(self.bytes(key)?))),
            3 => Value::Int(i64::from(i16::from_le_bytes(self.bytes(key)?))),
            4 => Value::Uint(u64::from(self.u32(key)?)),
            5 => Value::Int(i64::from(i32::from_le_bytes(self.bytes(key)?))),
            6 => Value::Float(f64::from(f32::from_le_bytes(self.bytes(key)?))),
            7 => Value::Bool(self.bytes::<1>(key)?[0] != 0),
            8 => Value::Str(self.string(key)?),
            9 => self.array(key, depth)?,
            10 => Value::Uint(self.u64(key)?),
            11 => Value::Int(i64::from_le_bytes(self.bytes(key)?)),
            12 => Value::Float(f64::from_le_bytes(self.bytes(key)?)),
            _ => return Err(ModelFileError::Invalid(format!("metadata `{key}` has unknown value type {t}"))),
        })
    }

    fn array(&mut self, key: &str, depth: u32) -> Result<Value, ModelFileError> {
        if depth > 2 {
            return Err(ModelFileError::Invalid(format!("metadata `{key}` nests arrays too deep")));
        }
        let t = self.u32(key)?;
        let size = Self::scalar_size(t)
            .ok_or_else(|| ModelFileError::Invalid(format!("metadata `{key}` has unknown array type {t}")))?;
        // Strings take at least their 8-byte length; nested arrays 12 bytes.
        let min = match t {
            8 => 8,
            9 => 12,
            _ => size,
        };
        let len = self.count(&format!("the length of array `{key}`"), min)?;
        let keep = len <= KEEP_ARRAY_MAX && !matches!(t, 8 | 9);
        let mut values = Vec::new();
        for _ in 0..len {
            let v = self.value(t, key, depth + 1)?;
            if keep {
                values.push(v);
            }
        }
        Ok(Value::Array { len, values })
    }
}

/// Reads the header of a GGUF file of `len` bytes from `reader` (positioned at its start).
///
/// Errors: [`ModelFileError::NotAModel`] without the `GGUF` magic, [`ModelFileError::Truncated`]
/// when the header or the tensor data it describes runs past `len`, and
/// [`ModelFileError::Invalid`] for unknown value or tensor types, version 1, or overlapping
/// sizes.
pub fn read_header(reader: impl Read, len: u64) -> Result<Header, ModelFileError> {
    let mut c = Cursor { inner: reader, pos: 0, len };
    let magic: [u8; 4] = c.bytes("the magic number").map_err(|_| not_gguf())?;
    if magic != MAGIC {
        return Err(not_gguf());
    }
    let version = c.u32("the version")?;
    if !(2..=3).contains(&version) {
        return Err(ModelFileError::Invalid(format!("GGUF version {version} (versions 2 and 3 are read)")));
    }
    // A tensor info takes at least 8 (name) + 4 + 4 + 8 bytes; a metadata pair 8 + 4 + 1.
    let n_tensors = c.count("the tensor count", 24)?;
    let n_kv = c.count("the metadata count", 13)?;
    let mut metadata = BTreeMap::new();
    for _ in 0..n_kv {
        let key = c.string("a metadata key")?;
        let t = c.u32(&key)?;
        let v = c.value(t, &key, 0)?;
        metadata.insert(key, v);
    }
    let mut tensors = Vec::new();
    for _ in 0..n_tensors {
        tensors.push(tensor_info(&mut c)?);
    }
    let alignment = metadata.get("general.alignment").and_then(Value::as_u64).unwrap_or(DEFAULT_ALIGNMENT);
    if alignment == 0 || !alignment.is_power_of_two() {
        return Err(ModelFileError::Invalid(format!("general.alignment {alignment} is not a power of two")));
    }
    let data_offset = c.pos.div_ceil(alignment) * alignment;
    let end = tensors.iter().map(|t| t.offset.saturating_add(t.bytes)).max().unwrap_or(0);
    if !tensors.is_empty() && data_offset.saturating_add(end) > len {
        return Err(ModelFileError::Truncated(format!(
            "the tensor data ends at byte {} but the file has {len} bytes",
            data_offset.saturating_add(end)
        )));
    }
    Ok(Header { version, metadata, tensors, data_offset })
}

fn not_gguf() -> ModelFileError {
    ModelFileError::NotAModel("no GGUF magic number at the start of the file".into())
}

fn tensor_info<R: Read>(c: &mut Cursor<R>) -> Result<TensorInfo, ModelFileError> {
    let name = c.string("a tensor name")?;
    let n_dims = c.u32(&name)?;
    if n_dims == 0 || n_dims > 8 {
        return Err(ModelFileError::Invalid(format!("tensor `{name}` has {n_dims} dimensions (1-8)")));
    }
    let mut dims = Vec::with_capacity(n_dims as usize);
    for _ in 0..n_dims {
        dims.push(c.u64(&name)?);
    }
    let ggml_type = c.u32(&name)?;
    let offset = c.u64(&name)?;
    let (block, per_block, type_name) = ggml_type_size(ggml_type)
        .ok_or_else(|| ModelFileError::Invalid(format!("tensor `{name}` has unknown ggml type {ggml_type}")))?;
    let elements = dims
        .iter()
        .try_fold(1u64, |a, &d| a.checked_mul(d))
        .ok_or_else(|| ModelFileError::Invalid(format!("tensor `{name}` is larger than 2^64 elements")))?;
    if !elements.is_multiple_of(block) {
        return Err(ModelFileError::Invalid(format!(
            "tensor `{name}` has {elements} elements, not a whole number of {type_name} blocks of {block}"
        )));
    }
    let bytes = (elements / block)
        .checked_mul(per_block)
        .ok_or_else(|| ModelFileError::Invalid(format!("tensor `{name}` is larger than 2^64 bytes")))?;
    Ok(TensorInfo { name, dims, ggml_type, offset, bytes })
}
