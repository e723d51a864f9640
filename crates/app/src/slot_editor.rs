//! The slot-layout editor: for a board whose slot layout (or where its slots sit) is not in the
//! catalog, the user enters the slots top to bottom from the board's manual (name, position if
//! known, connector size, lanes, generation, CPU or chipset, sharing), checked as they type
//! ([`catalog::wiring::layout_problems`]); saving writes the board with that layout as a user
//! part (`<id>.ron`, atomically) and the checks run again.

use super::command::{Action, FileAction, ViewAction};
use super::state::AppState;
use eframe::egui;
use kraftwerk_catalog::{self as catalog, LaneShare, LaneSource, Motherboard, PcieSlot, Provenance};

/// One slot row as typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlotRow {
    /// Silkscreen name.
    pub name: String,
    /// Position (1 = nearest the CPU) as typed; empty = unknown.
    pub position: String,
    /// Connector size, lanes.
    pub physical: u8,
    /// Electrical lanes.
    pub electrical: u8,
    /// PCIe generation.
    pub pcie_gen: u8,
    /// CPU lanes (else chipset).
    pub cpu: bool,
    /// Sharing rules as typed: `M.2_2:8, PCIEX16_2:0` (when that is used, this runs at that).
    pub shares: String,
}

impl SlotRow {
    fn of(s: &PcieSlot) -> SlotRow {
        SlotRow {
            name: s.name.clone(),
            position: s.position.map_or_else(String::new, |p| p.to_string()),
            physical: s.physical_lanes,
            electrical: s.electrical_lanes,
            pcie_gen: s.pcie_gen,
            cpu: s.lane_source == LaneSource::Cpu,
            shares: s.shares.iter().map(|r| format!("{}:{}", r.when_used, r.lanes)).collect::<Vec<_>>().join(", "),
        }
    }

    /// The slot, or what is wrong with the row's text.
    fn slot(&self) -> Result<PcieSlot, String> {
        let name = self.name.trim().to_owned();
        let position = match self.position.trim() {
            "" => None,
            p => Some(
                p.parse::<u8>().map_err(|_| format!("slot {name}: position `{p}` is not a number from 1 to 255"))?,
            ),
        };
        if position == Some(0) {
            return Err(format!("slot {name}: positions start at 1 (nearest the CPU)"));
        }
        let mut shares = Vec::new();
        for part in self.shares.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (other, lanes) = part
                .rsplit_once(':')
                .ok_or_else(|| format!("slot {name}: sharing `{part}` is not `SLOT_OR_M.2:LANES`"))?;
            let lanes = lanes
                .trim()
                .parse::<u8>()
                .map_err(|_| format!("slot {name}: sharing `{part}`: `{lanes}` is not a lane count"))?;
            shares.push(LaneShare { when_used: other.trim().to_owned(), lanes });
        }
        Ok(PcieSlot {
            name,
            position,
            physical_lanes: self.physical,
            electrical_lanes: self.electrical,
            pcie_gen: self.pcie_gen,
            lane_source: if self.cpu { LaneSource::Cpu } else { LaneSource::Chipset },
            shares,
            lanes_by_cpu: Vec::new(),
            bifurcation: Vec::new(),
        })
    }
}

/// The editor's state: the board it edits and the rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlotEditor {
    /// Id of the board.
    pub board_id: String,
    /// The slots, top to bottom.
    pub rows: Vec<SlotRow>,
}

impl SlotEditor {
    /// An editor for `board`, starting from its slots where it has some, else one x16 CPU row.
    pub fn open(board: &Motherboard) -> SlotEditor {
        let mut rows: Vec<SlotRow> = board.pcie_slots.iter().map(SlotRow::of).collect();
        if rows.is_empty() {
            rows.push(SlotRow::new_row());
        }
        SlotEditor { board_id: board.id.clone(), rows }
    }

    /// The board with the entered layout (provenance: entered by the user), or every problem.
    ///
    /// # Errors
    /// The rows' text problems and [`catalog::wiring::layout_problems`].
    pub fn board(&self, base: &Motherboard, cpu_lanes: Option<u16>) -> Result<Motherboard, Vec<String>> {
        let (slots, errs): (Vec<_>, Vec<_>) = self.rows.iter().map(SlotRow::slot).partition(Result::is_ok);
        let mut problems: Vec<String> = errs.into_iter().filter_map(Result::err).collect();
        let slots: Vec<PcieSlot> = slots.into_iter().filter_map(Result::ok).collect();
        problems.extend(catalog::wiring::layout_problems(base, &slots, cpu_lanes));
        if !problems.is_empty() {
            return Err(problems);
        }
        let mut b = base.clone();
        b.pcie_slots = slots;
        std::sync::Arc::make_mut(&mut b.provenance)
            .figures
            .insert("pcie_slots".to_owned(), Provenance::Derived("entered by the user from the board's manual".into()));
        Ok(b)
    }
}

impl SlotRow {
    fn new_row() -> SlotRow {
        SlotRow {
            name: String::new(),
            position: String::new(),
            physical: 16,
            electrical: 16,
            pcie_gen: 4,
            cpu: true,
            shares: String::new(),
        }
    }
}

/// Lane counts a connector or a slot can have.
const LANES: [u8; 6] = [0, 1, 2, 4, 8, 16];

/// Draws the editor window while it is open.
pub fn show(ctx: &egui::Context, editor: &mut Option<SlotEditor>, state: &AppState, out: &mut Vec<Action>) {
    let Some(ed) = editor.as_mut() else { return };
    let Some(base) = state.catalog.motherboard(&ed.board_id).cloned() else {
        *editor = None;
        return;
    };
    let cpu_lanes = state.build.resolve(&state.catalog).cpu.map(|c| c.pcie_lanes.total());
    let mut open = true;
    egui::Window::new(format!("Slot layout: {} {}", base.vendor, base.name)).open(&mut open).show(ctx, |ui| {
        ui.label("Enter the PCIe slots top to bottom from the board's manual (its expansion-slot table and lane-sharing footnotes). Leave the position empty where the manual does not give it. Sharing: `M.2_2:8` means this slot runs x8 when M.2_2 is used (0 = off).");
        egui::Grid::new("slot-rows").striped(true).show(ui, |ui| {
            for h in ["name", "position", "connector", "lanes", "gen", "CPU", "sharing", ""] {
                ui.strong(h);
            }
            ui.end_row();
            let mut remove = None;
            for (k, r) in ed.rows.iter_mut().enumerate() {
                ui.add(egui::TextEdit::singleline(&mut r.name).desired_width(110.0).hint_text("PCIEX16_1"));
                ui.add(egui::TextEdit::singleline(&mut r.position).desired_width(40.0).hint_text("?"));
                lanes_box(ui, ("phys", k), &mut r.physical);
                lanes_box(ui, ("elec", k), &mut r.electrical);
                ui.add(egui::DragValue::new(&mut r.pcie_gen).range(1..=6));
                ui.checkbox(&mut r.cpu, "").on_hover_text("Checked: CPU lanes; unchecked: chipset lanes");
                ui.add(egui::TextEdit::singleline(&mut r.shares).desired_width(150.0).hint_text("M.2_2:8"));
                if ui.small_button("remove").clicked() {
                    remove = Some(k);
                }
                ui.end_row();
            }
            if let Some(k) = remove {
                ed.rows.remove(k);
            }
        });
        if ui.button("Add slot").clicked() {
            ed.rows.push(SlotRow::new_row());
        }
        let result = ed.board(&base, cpu_lanes);
        if let Err(problems) = &result {
            for p in problems {
                ui.colored_label(super::theme::ERROR, p);
            }
        }
        ui.horizontal(|ui| {
            let ok = result.as_ref().ok();
            if ui.add_enabled(ok.is_some(), egui::Button::new("Save as user part")).clicked()
                && let Some(b) = ok
            {
                out.push(Action::File(FileAction::SaveSlotLayout(Box::new(b.clone()))));
            }
            if ui.button("Cancel").clicked() {
                out.push(Action::View(ViewAction::CloseSlotEditor));
            }
        });
    });
    if !open {
        *editor = None;
    }
}

/// A lane-count chooser.
fn lanes_box(ui: &mut egui::Ui, id: (&str, usize), v: &mut u8) {
    egui::ComboBox::from_id_salt(id).selected_text(format!("x{v}")).width(50.0).show_ui(ui, |ui| {
        for l in LANES {
            ui.selectable_value(v, l, format!("x{l}"));
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board() -> Motherboard {
        catalog::builtin().expect("catalog").motherboard("asus-proart-b650-creator").expect("board").clone()
    }

    #[test]
    fn a_layout_is_parsed_checked_and_marked_as_entered_by_the_user() {
        let b = board();
        let mut ed = SlotEditor::open(&b);
        ed.rows[0].name = "PCIEX16_1".into();
        ed.rows[0].position = "1".into();
        ed.rows.push(SlotRow { name: "PCIEX16_2".into(), electrical: 8, ..SlotRow::new_row() });
        ed.rows[0].shares = "PCIEX16_2:8".into();
        let out = ed.board(&b, Some(24)).expect("valid");
        assert_eq!(out.pcie_slots.len(), 2);
        assert_eq!(out.pcie_slots[1].position, None);
        assert!(matches!(out.provenance.of("pcie_slots"), Provenance::Derived(_)));
    }

    #[test]
    fn bad_layouts_are_refused_with_what_is_wrong() {
        let b = board();
        let mut ed = SlotEditor::open(&b);
        ed.rows[0].name = "A".into();
        ed.rows[0].position = "1".into();
        ed.rows.push(SlotRow { name: "B".into(), position: "1".into(), ..SlotRow::new_row() });
        ed.rows.push(SlotRow { name: "C".into(), shares: "M.2_9:4".into(), ..SlotRow::new_row() });
        let e = ed.board(&b, Some(24)).expect_err("overlap, unknown socket, too many CPU lanes");
        assert!(e.iter().any(|m| m.contains("overlaps another slot at position 1")), "{e:?}");
        assert!(e.iter().any(|m| m.contains("`M.2_9`")), "{e:?}");
        assert!(e.iter().any(|m| m.contains("share no lanes need 32 CPU lanes")), "{e:?}");
        ed.rows[1].position = "x".into();
        assert!(ed.board(&b, None).expect_err("bad number").iter().any(|m| m.contains("`x` is not a number")));
    }
}
