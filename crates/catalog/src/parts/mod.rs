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
mod card;
mod cooling;
mod cpu;
mod gpu;
mod memory;
mod model;
mod provenance;
mod psu;
mod summary;

pub use board::*;
pub use card::*;
pub use cooling::*;
pub use cpu::*;
pub use gpu::*;
pub use memory::*;
pub use model::*;
pub use provenance::*;
pub use psu::*;
pub use summary::known;

pub use super::Origin;

/// Serde default of 1 (counts such as M.2 slots or fans).
fn one() -> u8 {
    1
}
