//! GPU cards: one partner board of a GPU chip.

#[allow(clippy::wildcard_imports)]
use super::*;
use serde::{Deserialize, Serialize};

/// A GPU card: one partner (or founders/reference) board of a chip in `gpus`.
///
/// The chip entry ([`Gpu`]) holds what the whitepaper gives (tensor rates, memory, bandwidth,
/// NVLink, PCIe); the card adds what differs per board. `None` means the card's figure is
/// unknown, and the chip's reference figure is used for the resolved GPU only where that is the
/// same physical fact (see [`GpuCard::resolve`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuCard {
    /// Stable id.
    pub id: String,
    /// Board maker (`ASUS`, `MSI`).
    pub vendor: String,
    /// Board model (`ROG STRIX GeForce RTX 4090 OC`).
    pub name: String,
    /// Id of the chip entry in `gpus`.
    pub chip: String,
    /// Card length, mm.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub length_mm: Option<f64>,
    /// Expansion slots the card covers, rounded up (a 2.5-slot card is 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width_slots: Option<u8>,
    /// Power sockets on the card.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power_inputs: Option<GpuPowerInputs>,
    /// Cooler type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cooler: Option<GpuCooler>,
    /// Default board power of this card (factory-overclocked cards differ), W.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board_power_w: Option<f64>,
    /// Memory on this card, GiB, as its listing gives it (cross-checked against the chip).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_gib: Option<f64>,
    /// Source URL (vendor page, else the database entry).
    pub source: String,
    /// Dated price, USD.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_usd: Option<f64>,
    /// Date of `price_usd`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_date: Option<String>,
    /// Where the price comes from when it is not the part's own `source`: the street-price
    /// import (`docyx/pc-part-dataset@<commit>, PCPartPicker-derived, MIT`, with "median of N
    /// listings" where several were combined) or `user price file`; `None`: the part's `source`
    /// and `notes` (a curated launch MSRP or dated street price).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_source: Option<String>,
    /// Provenance notes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    /// Per-figure provenance.
    #[serde(default, skip_serializing_if = "Sources::is_default")]
    pub provenance: std::sync::Arc<Sources>,
    /// Where this part was loaded from (not in files).
    #[serde(skip)]
    pub origin: Origin,
}

/// Band around the chip's reference board power within which a card's own figure is taken:
/// factory-overclocked partner boards run up to about 1.15x reference (RTX 4090 and 3090 Ti
/// partner cards at 500-516 W against 450 W), so 0.8x-1.5x admits every real one, while the
/// figures outside it in OpenDB (an RTX 3090 Ti card at 850 W, the PSU recommendation; an
/// RTX 4090 at 300 W) are entry errors. Outside the band the chip's figure is used and
/// `catalog audit` lists the card.
pub(crate) const CARD_BOARD_POWER_BAND: (f64, f64) = (0.8, 1.5);

/// Whether a card's board power `card_w` is within [`CARD_BOARD_POWER_BAND`] of its chip's
/// `chip_w` (both W).
pub fn board_power_plausible(card_w: f64, chip_w: f64) -> bool {
    (CARD_BOARD_POWER_BAND.0 * chip_w..=CARD_BOARD_POWER_BAND.1 * chip_w).contains(&card_w)
}

impl GpuCard {
    /// The GPU the rules see for this card: `chip` with the card's known physical figures
    /// (length, slot width, power sockets, cooler, board power, price) laid over the chip's
    /// reference ones. Id, vendor, name and source become the card's.
    ///
    /// A card without a published length gets `None` (a partner board's length is not the
    /// reference board's); slot width, sockets and cooler fall back to the reference design,
    /// which the notes say.
    pub fn resolve(&self, chip: &Gpu) -> Gpu {
        let mut g = chip.clone();
        g.id.clone_from(&self.id);
        g.vendor.clone_from(&self.vendor);
        g.name = format!("{} ({})", self.name, chip.name);
        g.source.clone_from(&self.source);
        g.length_mm = self.length_mm;
        if let Some(w) = self.width_slots {
            g.width_slots = w;
        }
        if let Some(mut p) = self.power_inputs {
            // The vendor's rating of the reference board's inputs holds for a card with the
            // same connectors (workstation partner cards are the reference design).
            if let Some(chip_p) = chip.power_inputs
                && p.rated_w.is_none()
                && (p.hpwr_16pin, p.pcie_8pin, p.eps_8pin, p.pcie_6pin)
                    == (chip_p.hpwr_16pin, chip_p.pcie_8pin, chip_p.eps_8pin, chip_p.pcie_6pin)
            {
                p.rated_w = chip_p.rated_w;
            }
            g.power_inputs = Some(p);
        }
        if let Some(c) = self.cooler {
            g.cooler = c;
        }
        if let Some(w) = self.board_power_w.filter(|w| board_power_plausible(*w, chip.board_power_w)) {
            // A factory-overclocked card's default is its own; its max limit, where the chip's
            // is published, is at least that (an unknown maximum stays unknown).
            g.max_power_limit_w = g.max_power_limit_w.map(|m| m.max(w));
            g.board_power_w = w;
        }
        g.price_usd = self.price_usd;
        g.price_date.clone_from(&self.price_date);
        g.price_source.clone_from(&self.price_source);
        let refused = self
            .board_power_w
            .filter(|w| !board_power_plausible(*w, chip.board_power_w))
            .map(|w| {
                format!(
                    "; its listed board power of {w} W is outside {}-{}x the chip's {} W (an entry error), so the chip's figure is used",
                    CARD_BOARD_POWER_BAND.0, CARD_BOARD_POWER_BAND.1, chip.board_power_w
                )
            })
            .unwrap_or_default();
        g.notes = Some(format!(
            "card `{}` on chip `{}`; {}{refused}",
            self.id,
            chip.id,
            self.notes.as_deref().unwrap_or("card figures from its source; the rest from the chip")
        ));
        g.origin = self.origin.clone();
        g
    }
}
