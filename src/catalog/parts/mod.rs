//! Part types. Field names carry their units (`_w`, `_mm`, `_gb_s`, `_gib`, `_tflops`).
//!
//! Conventions shared by every part:
//! - `id`: stable kebab-case slug, unique within its kind (`nvidia-geforce-rtx-4090`).
//! - `source`: URL of the vendor datasheet or spec page the figures come from (first choice),
//!   else the review or whitepaper that quotes them. `notes` says which figure came from where
//!   when there is more than one source, and what is derived.
//! - `price_usd` with `price_date` (`YYYY-MM` or `YYYY-MM-DD`): launch MSRP or a dated street
//!   price, `None` when unpublished.
//! - `Option` figures are `None` when no source publishes them; never guessed.

mod board;
mod cooling;
mod cpu;
mod gpu;
mod memory;
mod model;
mod psu;

pub use board::*;
pub use cooling::*;
pub use cpu::*;
pub use gpu::*;
pub use memory::*;
pub use model::*;
pub use psu::*;

use super::Origin;
use serde::{Deserialize, Serialize};

/// Access to the fields every part has, for generic catalog code.
pub trait HasId {
    /// The part's id.
    fn id(&self) -> &str;
    /// Display name (vendor + model).
    fn display_name(&self) -> String;
    /// Source URL.
    fn source(&self) -> &str;
    /// Where the part was loaded from.
    fn origin(&self) -> &Origin;
    /// Sets where the part was loaded from.
    fn set_origin(&mut self, origin: Origin);
}

macro_rules! has_id {
    ($($ty:ty),*) => {$(
        impl HasId for $ty {
            fn id(&self) -> &str { &self.id }
            fn display_name(&self) -> String { format!("{} {}", self.vendor, self.name) }
            fn source(&self) -> &str { &self.source }
            fn origin(&self) -> &Origin { &self.origin }
            fn set_origin(&mut self, origin: Origin) { self.origin = origin; }
        }
    )*};
}
has_id!(Gpu, Cpu, Motherboard, Psu, Cooler, Case, MemoryKit, Storage, LlmModel);

/// One RON parts file: any mix of kinds, each list optional.
///
/// Built-in files hold one kind each (`catalog/gpus.ron` is `(gpus: [ ... ])`); a user's file
/// may hold several. Unknown keys are errors.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct PartsFile {
    /// GPUs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub gpus: Vec<Gpu>,
    /// CPUs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cpus: Vec<Cpu>,
    /// Motherboards.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub motherboards: Vec<Motherboard>,
    /// PSUs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub psus: Vec<Psu>,
    /// CPU coolers.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub coolers: Vec<Cooler>,
    /// Cases.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cases: Vec<Case>,
    /// Memory kits.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub memory: Vec<MemoryKit>,
    /// NVMe drives.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub storage: Vec<Storage>,
    /// LLM model presets.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub models: Vec<LlmModel>,
}

/// Serde default of 1 (counts such as M.2 slots or fans).
fn one() -> u8 {
    1
}
