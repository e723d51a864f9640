//! The view state: what the window shows and how ([`ViewState`]: the shown tab, highlights,
//! each tab's and window's own state, caches), apart from the document ([`super::state`]).
//! Nothing here is saved in the build file.
//!
//! A leaf above the tabs' own state types: the tabs that need the whole view state import it
//! from here, and the tabs whose state is held here take only their part (so no tab imports a
//! module that imports it back).

use super::command::Tab;
use super::files::PathPrompt;
use super::part_form::PartForm;
use super::paste_list::PasteList;
use super::slot_editor::SlotEditor;
use super::widgets::PickCache;
use crate::tabs::catalog::CatalogView;
use crate::tabs::compare::CompareView;
use crate::tabs::fit::FitView;
use crate::tabs::plan::PlanTab;
use kraftwerk_core::check::PartRef;

/// View state of the widgets that is not part of the document: tab, highlight, table sort,
/// editors, caches. Nothing here is saved in the build file.
#[derive(Debug, Default)]
pub struct ViewState {
    /// Shown tab.
    pub tab: Tab,
    /// Parts outlined (from a clicked finding).
    pub highlight: Vec<PartRef>,
    /// Show the rule docs window.
    pub show_rule_docs: bool,
    /// Rule docs window filter.
    pub rule_filter: String,
    /// One power limit for all GPUs.
    pub link_limits: bool,
    /// Catalog tab state.
    pub catalog: CatalogView,
    /// LLM-fit tab state.
    pub fit: FitView,
    /// Cached picker entries, per picker, for one state revision.
    pub picks: PickCache,
    /// Name field being edited.
    pub name_edit: Option<String>,
    /// Compare tab: the other builds and the model.
    pub compare: CompareView,
    /// Plan tab: the goal form, a running search and its answer.
    pub plan: PlanTab,
    /// The part form, when open.
    pub part_form: Option<PartForm>,
    /// The in-app path field, when shown.
    pub path_prompt: Option<PathPrompt>,
    /// The Paste parts list window, when open.
    pub paste_list: Option<PasteList>,
    /// The slot-layout editor, when open.
    pub slot_editor: Option<SlotEditor>,
}

impl ViewState {
    /// Whether `part` is outlined.
    pub fn is_highlighted(&self, part: PartRef) -> bool {
        self.highlight.contains(&part)
    }
}
