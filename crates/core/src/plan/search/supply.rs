//! The parts that feed a machine: a memory kit set that fills the board's channels (and, for a
//! hybrid split, holds the experts), and the PSU sets that carry the system and the cards under
//! the sustained guideline, with enough cables and through the GPUs' 1 ms peaks.

use super::assemble::{Failure, Retry};
use super::{MAX_PSUS, PSU_OPTIONS, PsuChoice, PsuOption, State, Unknown, cmp_price};
use crate::estimate::power;
use crate::plan::Constraint;
use crate::plan::views::{BoardView, CardPlugs, CardView, CpuView, KitView};
use kraftwerk_catalog::PartKind;

/// A PSU option: figures known, whether every unit keeps the recommended headroom at full
/// load ([`power::PSU_RECOMMENDED_HEADROOM_W`]), total price, id, the PSUs, the PSU feeding
/// each card.
type PsuSet<'a> = (bool, bool, Option<f64>, &'a str, Vec<usize>, Vec<usize>);

/// Spreads `n` cards of `gpu_w` over `k` PSUs of `per_w` sustained each, the system load on
/// the first: each card to the least loaded PSU. `None` when one would be over `per_w`.
fn pack(system_w: f64, gpu_w: f64, n: u32, k: usize, per_w: f64) -> Option<Vec<usize>> {
    let mut load = vec![0.0; k];
    load[0] = system_w;
    let mut feeds = Vec::new();
    for _ in 0..n {
        let (j, _) = load.iter().enumerate().min_by(|a, b| a.1.total_cmp(b.1))?;
        load[j] += gpu_w;
        feeds.push(j);
    }
    load.iter().all(|&l| l <= per_w).then_some(feeds)
}

impl State<'_> {
    /// A memory kit filling the board's channels, raised towards the VRAM total; for a hybrid
    /// split (`hybrid_gib`: the split's whole system-RAM part, experts and the rest) enough RAM
    /// for it and the fit code's reserve ([`crate::estimate::llm::search::HostRam::holds`]), fastest first at the speed the kit runs at beside `cpu` (the experts are read
    /// at the RAM's bandwidth; [`crate::estimate::fit::ram_speed_of`] caps the kit's rating at
    /// the CPU's, as the fit does), then the cheapest. Kit counts keep the module count a
    /// multiple of the board's channels (the memory-population rule warns otherwise), or
    /// fill every slot.
    pub(super) fn memory_for(
        &self,
        board: &BoardView,
        cpu: &CpuView,
        card: &CardView,
        n: u32,
        hybrid_gib: Option<f64>,
    ) -> Result<(usize, u8), Failure> {
        let channels = (u32::from(board.memory_channels) * u32::from(board.cpu_sockets.max(1))).max(1);
        let slots = u32::from(board.memory_slots);
        let gpu_memory_gib = card.memory_gib * f64::from(n);
        let vram_gb = match hybrid_gib {
            // Kit capacities are binary GB (a "32 GB" DIMM holds 32 GiB), as the fit code counts.
            // What `HostRam::holds` asks of the build (`fit`'s own test): the split's whole
            // system-RAM part plus the reserve; and no less than the VRAM, below which `check`'s
            // system-ram rule warns (a split of 18 GiB on two 24 GB cards bought 32 GB).
            Some(gib) => crate::estimate::llm::search::HostRam::installed_to_hold_gib(gib).max(gpu_memory_gib),
            // As much as `check`'s system-ram rule asks for (twice the VRAM), by its own
            // function: a plan that `check` then tells to "install at least 128 GB" was short.
            None => crate::check::system_ram_wanted_gb(gpu_memory_gib),
        };
        let catalog_cpu = self.catalog.cpus.get(cpu.idx);
        // The data rate a kit set runs at beside the CPU (the fit's capped speed); the kit's
        // rating when the CPU is not in the catalog.
        // Two or more DIMMs per channel with no rating of the CPU for them: the speed is
        // unknown (the kit's rating is not reached there: AMD rates Ryzen 7000 at DDR5-3600 with
        // two, see `plan::estimate`'s hybrid caveat), so such a set ranks as the slowest (0) for a
        // hybrid split. (With one DIMM per channel and no CPU rating the kit's rating is used,
        // said unverified in the plan's hybrid line: `RamSpeed::which`.)
        let speed = |k: &KitView, kits: u32| -> u32 {
            match (catalog_cpu, self.catalog.memory.get(k.idx)) {
                (Some(c), Some(m)) => {
                    let s = crate::estimate::fit::ram_speed_of(
                        c,
                        m,
                        u8::try_from(kits).unwrap_or(u8::MAX),
                        u32::from(board.cpu_sockets),
                    );
                    if s.cpu_rated_mt_s.is_none() && s.dimms_per_channel >= 2 { 0 } else { s.mt_s }
                }
                _ => k.speed_mt_s,
            }
        };
        self.parts
            .kits
            .iter()
            .filter(|k| k.memory_type == board.memory_type && k.modules > 0)
            .filter(|k| {
                self.musts.get(&PartKind::Memory).is_none_or(|id| &k.id == id)
                    && self.priced_or_owned(&k.id, k.price_usd, 1)
            })
            .filter_map(|k| {
                let per = u32::from(k.modules);
                // Within the board's published maximum (the memory-capacity rule fails above it).
                let fits_board = |kits: u32| board.max_memory_gb.is_none_or(|max| kits * k.total_gb <= max);
                // Module counts that fill the channels evenly, or every slot.
                let even = |kits: u32| (kits * per).is_multiple_of(channels) || kits * per == slots;
                // Kits bought beyond those owned need a price (owned ones cost $0): an owned kit
                // without a price is used in the counts the user owns.
                let counts: Vec<u32> = (1..=slots / per)
                    .filter(|&kits| even(kits) && fits_board(kits) && self.priced_or_owned(&k.id, k.price_usd, kits))
                    .collect();
                let kits = counts
                    .iter()
                    .copied()
                    .find(|&kits| kits * per >= channels.min(slots) && f64::from(kits * k.total_gb) >= vram_gb)
                    .or_else(|| counts.last().copied())?;
                let reached = f64::from(kits * k.total_gb) >= vram_gb;
                let enough = hybrid_gib.is_none() || reached;
                enough.then_some((k, kits, reached))
            })
            .min_by(|a, b| {
                let rate = |(k, kits, _): &(&KitView, u32, bool)| {
                    if hybrid_gib.is_some() { speed(k, *kits) } else { 0 }
                };
                // A kit set that reaches the VRAM total first (the system-ram rule warns below
                // it: weights pass through host memory when loading); where none does (192 GB
                // of VRAM on a 128 GB board), the largest, not the cheapest (it was 16 GB); then
                // the fastest at the speed the build runs it for a hybrid split, then the
                // cheapest.
                let total = |(k, kits, _): &(&KitView, u32, bool)| kits * k.total_gb;
                let short = |x: &(&KitView, u32, bool)| if x.2 { 0 } else { total(x) };
                b.2.cmp(&a.2)
                    .then(short(b).cmp(&short(a)))
                    .then(rate(b).cmp(&rate(a)))
                    .then(cmp_price(
                        a.0.price_usd.map(|p| p * f64::from(a.1)),
                        b.0.price_usd.map(|p| p * f64::from(b.1)),
                    ))
                    .then(a.0.id.cmp(&b.0.id))
            })
            .map(|(k, kits, _)| (k.idx, u8::try_from(kits).unwrap_or(u8::MAX)))
            .ok_or((Constraint::Checks, format!("no {} kit in the catalog", board.memory_type), Retry::Board))
    }

    /// PSU sets: k identical units that carry the system (on the first) and the cards, each
    /// under the sustained guideline; units whose figures the checker needs are known first
    /// (connector counts, efficiency, the rating at the site's mains: `PsuOption::checkable`),
    /// then cheapest first; with the PSU feeding each card. `board_eps`: the board's EPS 8-pin
    /// inputs, fed by the first unit (the system PSU).
    pub(super) fn psu_sets(
        &mut self,
        system_w: f64,
        gpu_w: f64,
        plugs: CardPlugs,
        n: u32,
        bays: u8,
        board_eps: u8,
    ) -> PsuChoice {
        let key = (system_w.to_bits(), gpu_w.to_bits(), plugs, n, bays, board_eps, self.priced_only);
        if let Some(hit) = self.psu_memo.get(&key) {
            return hit.clone();
        }
        let sets = self.psu_sets_uncached(system_w, gpu_w, plugs, n, bays, board_eps);
        self.psu_memo.insert(key, sets.clone());
        sets
    }

    fn psu_sets_uncached(
        &self,
        system_w: f64,
        gpu_w: f64,
        plugs: CardPlugs,
        n: u32,
        bays: u8,
        board_eps: u8,
    ) -> PsuChoice {
        // PSUs are sorted once per search (known figures, then unit price); a set of k costs at
        // least one unit, so the scan of a group stops once a unit costs more than the dearest
        // of the sets kept that keep the recommended headroom (a set without it ranks after
        // every set with it, so a dearer unit may still come first).
        let mut sets: Vec<PsuSet<'_>> = Vec::new();
        for p in &self.psus {
            let keeping: Vec<Option<f64>> = sets.iter().filter(|s| s.1).map(|s| s.2).collect();
            if keeping.len() >= PSU_OPTIONS {
                let worst = keeping.iter().copied().max_by(|a, b| cmp_price(*a, *b)).flatten();
                let dearer = p.price_usd.is_none() || p.price_usd.zip(worst).is_some_and(|(u, w)| u > w);
                if dearer || !p.figures_known {
                    break;
                }
            }
            if self.unknown.contains(&Unknown::Psu(p.idx)) || !self.priced_or_owned(&p.id, p.price_usd, 1) {
                continue;
            }
            let per = p.rated_w * power::PSU_SUSTAINED_GUIDELINE;
            let found = (1..=bays.clamp(1, MAX_PSUS)).find_map(|k| {
                // Units bought beyond those owned need a price (owned ones cost $0).
                if !self.priced_or_owned(&p.id, p.price_usd, u32::from(k)) {
                    return None;
                }
                let feeds = pack(system_w, gpu_w, n, usize::from(k), per)?;
                // Enough PCIe cables for the cards each unit feeds (where the PSU's count is
                // published), as `psu-connectors` counts them: a set that rule would fail is
                // not offered (the search tried only the cheapest few sets, all short of cables
                // for a card with three 8-pin sockets, and gave up).
                let cabled = (0..usize::from(k)).all(|j| {
                    let m = feeds.iter().filter(|&&f| f == j).count() as u32;
                    let board = if j == 0 { u32::from(board_eps) } else { 0 };
                    p.pcie_8pin.is_none_or(|have| plugs.pcie_needed(m, p.hpwr_16pin) <= u32::from(have))
                        && plugs.eps_fits(m, board, p.hpwr_16pin, p.pcie_8pin, p.eps_8pin)
                });
                if !cabled {
                    return None;
                }
                // Each unit through its GPUs' 1 ms and longer peaks (`psu-transient`): a set the
                // rule would flag is not offered; more units of it may be.
                let peaks = (0..usize::from(k)).all(|j| {
                    let m = feeds.iter().filter(|&&f| f == j).count();
                    crate::plan::power::psu_rides_peaks(
                        self.catalog,
                        p.idx,
                        p.rated_w,
                        if j == 0 { system_w } else { 0.0 },
                        gpu_w,
                        m,
                    )
                });
                if !peaks {
                    return None;
                }
                // Each unit's full-load DC: the system on the first, the cards it feeds.
                let margin = (0..usize::from(k)).all(|j| {
                    let load =
                        if j == 0 { system_w } else { 0.0 } + gpu_w * feeds.iter().filter(|&&f| f == j).count() as f64;
                    load + power::PSU_RECOMMENDED_HEADROOM_W <= p.rated_w
                });
                Some((
                    p.figures_known,
                    margin,
                    p.price_usd.map(|x| x * f64::from(k)),
                    p.id.as_str(),
                    vec![p.idx; usize::from(k)],
                    feeds,
                ))
            });
            sets.extend(found);
        }
        // Known figures first, then sets that keep the recommended headroom, then the cheapest.
        sets.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(cmp_price(a.2, b.2)).then(a.3.cmp(b.3)));
        sets.into_iter().take(PSU_OPTIONS).map(|s| PsuOption { psus: s.4, feeds: s.5, checkable: s.0 }).collect()
    }
}
