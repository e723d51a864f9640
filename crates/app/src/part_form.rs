//! The part form: add or edit a user part of any kind, validated as you type, saved
//! atomically to the user parts directory (`KRAFTWERK_PARTS_DIR`, else the config dir; see
//! [`catalog::user_parts_dir`]) as `<id>.ron`, after which the catalog is reloaded and the
//! checker runs again.
//!
//! The form is generic over [`PartKind`]: the part is turned into its serde fields (the same
//! names as in the RON files), each field is a text box, and every keystroke rebuilds the part
//! through serde (the same schema the loader uses, unknown keys refused) and the catalog's
//! validation ([`catalog::validate`]). A field whose own text breaks the part is marked. Text
//! fields hold plain text; numbers, booleans, lists and structures are written as JSON; an empty
//! box is "unknown" (`None`) where the field may be unknown.
//!
//! Opening the form at one field ([`FormTarget::field`]) is how "enter this figure" works: a
//! not-checked finding names a part and a field, [`figure_to_enter`] turns it into a target.

pub use super::command::FormTarget;
use super::state::AppState;
use kraftwerk_catalog::{self as catalog, Catalog, Origin, PartKind, PartsFile};
use kraftwerk_core::check::{Finding, PartRef};
use serde_json::{Map, Value};

/// How a field's text maps to its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FieldKind {
    /// A string: the text as is.
    Text,
    /// A value that may be unknown: empty is `null`, else JSON, else a string.
    Optional,
    /// Any other value, as JSON.
    Json,
}

/// One field of the form.
#[derive(Debug, Clone, PartialEq)]
pub struct FormField {
    /// Serde field name.
    pub name: String,
    /// Text in the box.
    pub text: String,
    /// Why this field's text is not valid, if it is not.
    pub error: Option<String>,
    kind: FieldKind,
}

/// The open form.
#[derive(Debug, Clone, PartialEq)]
pub struct PartForm {
    /// Kind of part.
    pub kind: PartKind,
    /// The id the part had when the form opened (`None` for a new part).
    pub original_id: Option<String>,
    /// Fields in serde order.
    pub fields: Vec<FormField>,
    /// Field to focus on the next frame (taken by the view).
    pub focus: Option<String>,
    /// Problems of the whole part (schema or catalog validation); empty when it can be saved.
    pub problems: Vec<String>,
    /// Whether the part is defined inline in the build file: such a part overrides the catalog
    /// and user parts of the same id, so saving updates the build's copy (an undoable edit),
    /// not the user parts directory, where it would be shadowed and change nothing.
    pub inline: bool,
    /// The value the form opened with (a valid part), to attribute errors to fields.
    base: Map<String, Value>,
}

fn to_kind(v: &Value) -> FieldKind {
    match v {
        Value::String(_) => FieldKind::Text,
        Value::Null => FieldKind::Optional,
        _ => FieldKind::Json,
    }
}

fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        v => v.to_string(),
    }
}

fn value_of(kind: FieldKind, text: &str) -> Result<Value, String> {
    let t = text.trim();
    match kind {
        FieldKind::Text => Ok(Value::String(text.to_owned())),
        FieldKind::Optional if t.is_empty() => Ok(Value::Null),
        FieldKind::Optional => Ok(serde_json::from_str(t).unwrap_or_else(|_| Value::String(t.to_owned()))),
        FieldKind::Json => serde_json::from_str(t).map_err(|e| format!("not a valid value: {e}")),
    }
}

/// Every part of `kind` as serde values: the build's inline parts first, then the catalog's.
fn parts_of(state: &AppState, kind: PartKind) -> Vec<Value> {
    let key = kind.plural();
    let mut out = Vec::new();
    for v in [serde_json::to_value(&state.build.parts), serde_json::to_value(&state.catalog)].into_iter().flatten() {
        if let Some(Value::Array(a)) = v.get(key) {
            out.extend(a.iter().cloned());
        }
    }
    out
}

/// Whether the build file defines a part of `kind` with this id inline.
fn is_inline(state: &AppState, kind: PartKind, id: &str) -> bool {
    serde_json::to_value(&state.build.parts).ok().and_then(|v| v.get(kind.plural()).cloned()).is_some_and(|a| {
        a.as_array().is_some_and(|a| a.iter().any(|p| p.get("id").and_then(Value::as_str) == Some(id)))
    })
}

/// The part as a one-part [`PartsFile`], checked by serde and the catalog's validation.
///
/// # Errors
/// The schema error, or the validation messages joined.
fn parse_part(kind: PartKind, obj: &Map<String, Value>) -> Result<PartsFile, String> {
    let mut file = Map::new();
    file.insert(kind.plural().to_owned(), Value::Array(vec![Value::Object(obj.clone())]));
    let parts: PartsFile = serde_json::from_value(Value::Object(file)).map_err(|e| e.to_string())?;
    let mut cat = Catalog::default();
    // A card names its chip: validate it beside the built-in chip it names.
    let chips: Vec<catalog::Gpu> =
        parts.gpu_cards.iter().filter_map(|c| builtin_catalog().and_then(|b| b.gpu(&c.chip)).cloned()).collect();
    cat.merge(PartsFile { gpus: chips, ..PartsFile::default() }, &Origin::Unknown);
    cat.merge(parts.clone(), &Origin::Unknown);
    let issues: Vec<String> = catalog::validate(&cat).into_iter().map(|i| i.message).collect();
    if issues.is_empty() { Ok(parts) } else { Err(issues.join("; ")) }
}

impl PartForm {
    /// A form for `target`; `None` when the part (or, for a new one, any part of the kind to
    /// copy) is not found.
    pub fn open(state: &AppState, target: &FormTarget) -> Option<PartForm> {
        let parts = parts_of(state, target.kind);
        let found = match &target.id {
            Some(id) => parts.into_iter().find(|p| p.get("id").and_then(Value::as_str) == Some(id.as_str())),
            None => parts.into_iter().next().map(|mut p| {
                let id = format!("my-{}", p.get("id").and_then(Value::as_str).unwrap_or("part"));
                p["id"] = Value::String(id);
                p
            }),
        }?;
        let Value::Object(base) = found else { return None };
        let inline = target.id.as_deref().is_some_and(|id| is_inline(state, target.kind, id));
        let fields = base
            .iter()
            .map(|(k, v)| FormField { name: k.clone(), text: text_of(v), error: None, kind: to_kind(v) })
            .collect();
        let mut form = PartForm {
            kind: target.kind,
            original_id: target.id.clone(),
            fields,
            focus: target.field.clone(),
            problems: Vec::new(),
            inline,
            base,
        };
        form.validate();
        Some(form)
    }

    /// The part's id as typed.
    pub fn id(&self) -> &str {
        self.fields.iter().find(|f| f.name == "id").map_or("", |f| f.text.trim())
    }

    /// The value of field `f`: for a field that may be unknown, text that reads as a number
    /// but is refused there (an unknown text field such as `compute_capability`) is a string.
    fn field_value(&self, f: &FormField) -> Result<Value, String> {
        let v = value_of(f.kind, &f.text)?;
        if f.kind == FieldKind::Optional && !v.is_string() && !v.is_null() {
            let mut one = self.base.clone();
            one.insert(f.name.clone(), v.clone());
            if parse_part(self.kind, &one).is_err() {
                let as_text = Value::String(f.text.trim().to_owned());
                one.insert(f.name.clone(), as_text.clone());
                if parse_part(self.kind, &one).is_ok() {
                    return Ok(as_text);
                }
            }
        }
        Ok(v)
    }

    /// Re-validates every field and the whole part (call after each edit).
    pub fn validate(&mut self) {
        let mut whole = self.base.clone();
        let mut bad_text = false;
        let values: Vec<Result<Value, String>> = self.fields.iter().map(|f| self.field_value(f)).collect();
        for (f, value) in self.fields.iter_mut().zip(values) {
            f.error = None;
            match value {
                Ok(v) => {
                    // Attribute errors: this field alone on the valid base.
                    let mut one = self.base.clone();
                    one.insert(f.name.clone(), v.clone());
                    if let Err(e) = parse_part(self.kind, &one) {
                        f.error = Some(e);
                    }
                    whole.insert(f.name.clone(), v);
                }
                Err(e) => {
                    f.error = Some(e);
                    bad_text = true;
                }
            }
        }
        self.problems.clear();
        let id = self.id();
        if id.is_empty() || !id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-') {
            self.problems.push("the id must be lower-case letters, digits and dashes".to_owned());
        }
        if !bad_text && let Err(e) = parse_part(self.kind, &whole) {
            self.problems.push(e);
        }
        if bad_text {
            self.problems.push("some fields are not valid values".to_owned());
        }
    }

    /// The part as a parts file, when it is valid.
    ///
    /// # Errors
    /// The problems shown in the form.
    pub fn parts_file(&self) -> Result<PartsFile, String> {
        if !self.problems.is_empty() {
            return Err(self.problems.join("; "));
        }
        let mut obj = self.base.clone();
        for f in &self.fields {
            obj.insert(f.name.clone(), self.field_value(f)?);
        }
        parse_part(self.kind, &obj)
    }

    /// RON text of the part's parts file, as the loader reads it.
    ///
    /// # Errors
    /// The form's problems, or a RON encoding error.
    pub fn ron_text(&self) -> Result<String, String> {
        let file = self.parts_file()?;
        catalog::load::ron_options()
            .to_string_pretty(&file, ron::ser::PrettyConfig::default())
            .map_err(|e| format!("cannot encode: {e}"))
    }
}

/// The part a finding names as (kind, id): GPU, CPU, board, PSU, case, cooler, memory or drive.
pub fn part_of(state: &AppState, part: PartRef) -> Option<(PartKind, String)> {
    let b = &state.build;
    match part {
        PartRef::Gpu(i) => b.gpus.get(i).map(|g| (PartKind::Gpu, g.gpu.clone())),
        PartRef::Cpu => b.cpu.clone().map(|id| (PartKind::Cpu, id)),
        PartRef::Motherboard => b.motherboard.clone().map(|id| (PartKind::Motherboard, id)),
        PartRef::Psu(i) => b.psus.get(i).map(|p| (PartKind::Psu, p.psu.clone())),
        PartRef::Case => b.case.clone().map(|id| (PartKind::Case, id)),
        PartRef::Cooler => b.cooler.clone().map(|id| (PartKind::Cooler, id)),
        PartRef::Memory => b.memory.as_ref().map(|m| (PartKind::Memory, m.kit.clone())),
        PartRef::Storage(i) => b.storage.get(i).map(|s| (PartKind::Storage, s.drive.clone())),
        PartRef::Slot(_) | PartRef::Circuit(_) | PartRef::Bridge(_) => None,
    }
}

/// The unknown figure of the report's coverage that a not-checked finding `f` is about: its
/// rule, on the first part it names.
pub fn unknown_figure_of<'a>(state: &'a AppState, f: &Finding) -> Option<&'a kraftwerk_core::check::UnknownFigure> {
    let part = f.parts.first()?;
    state
        .report
        .coverage
        .not_checked
        .iter()
        .filter(|r| r.rule == f.rule)
        .flat_map(|r| r.unknown.iter())
        .find(|u| &u.part == part)
}

/// The figure a not-checked finding asks for, as a form target; `None` for other findings.
///
/// A `not-checked` finding names the part (`parts[0]`); the figure it lacks comes from the
/// report's coverage entry for the same rule and part. The Checks tab shows "Enter this figure"
/// for each finding that yields a target.
pub fn figure_to_enter(state: &AppState, f: &Finding) -> Option<FormTarget> {
    if f.kind != kraftwerk_core::check::FindingKind::NotChecked {
        return None;
    }
    let part = *f.parts.first()?;
    let field = unknown_figure_of(state, f)?.figure;
    // Which card an owned GPU named by its chip is: not a figure of the chip's part (a user
    // part of the chip's id would change the chip for every build); the finding's fix says how
    // to name the card.
    if field == kraftwerk_core::check::Figure::GpuCardUnnamed.field() {
        return None;
    }
    let (kind, id) = part_of(state, part)?;
    // A nested figure (`pcie_slots.position`, `connectors.pcie_8pin`) is entered in its
    // top-level field, the box the form has.
    let field = field.split('.').next().unwrap_or(field);
    Some(FormTarget { kind, id: Some(id), field: Some(field.to_owned()) })
}

/// How the Catalog tab marks a part by where it came from: `user` for a part from the user's
/// parts directory, `user override` when it replaces a built-in part of the same id,
/// `inline` for a part defined in the build file; `None` for built-in parts.
pub fn origin_mark(origin: &Origin, overrides_builtin: bool) -> Option<&'static str> {
    match origin {
        Origin::User(_) if overrides_builtin => Some("user override"),
        Origin::User(_) => Some("user"),
        Origin::Inline(_) => Some("inline"),
        Origin::Builtin(_) | Origin::Unknown => None,
    }
}

/// The built-in catalog, loaded once (for references a part names, such as a card's chip).
fn builtin_catalog() -> Option<&'static Catalog> {
    static CAT: std::sync::OnceLock<Option<Catalog>> = std::sync::OnceLock::new();
    CAT.get_or_init(|| catalog::builtin().ok()).as_ref()
}

/// Ids of every built-in part (any kind), loaded once: a user part with one of these ids is
/// an override.
fn builtin_ids() -> &'static std::collections::BTreeSet<String> {
    static IDS: std::sync::OnceLock<std::collections::BTreeSet<String>> = std::sync::OnceLock::new();
    IDS.get_or_init(|| {
        let Ok(c) = catalog::builtin() else { return std::collections::BTreeSet::new() };
        let Ok(Value::Object(kinds)) = serde_json::to_value(&c) else { return std::collections::BTreeSet::new() };
        kinds
            .values()
            .filter_map(Value::as_array)
            .flatten()
            .filter_map(|p| p.get("id").and_then(Value::as_str).map(str::to_owned))
            .collect()
    })
}

/// A part's display name with its [`origin_mark`] appended (`… (user override)`), for tables
/// that list catalog parts.
pub fn marked_name(part: &impl catalog::HasId) -> String {
    let overrides = builtin_ids().contains(part.id());
    match origin_mark(part.origin(), overrides) {
        Some(m) => format!("{} ({m})", part.display_name()),
        None => part.display_name(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kraftwerk_core::rig::Build;

    fn state() -> AppState {
        AppState::new(catalog::builtin().expect("catalog"), Build::default(), None)
    }

    #[test]
    fn every_kind_opens_as_a_valid_new_part_and_round_trips_through_ron() {
        let s = state();
        for kind in PartKind::ALL {
            let form = PartForm::open(&s, &FormTarget { kind, id: None, field: None }).expect("a template");
            assert!(form.problems.is_empty(), "{kind:?}: {:?}", form.problems);
            let text = form.ron_text().expect("ron");
            let back = catalog::parse_parts_file("form.ron", &text).expect("the loader reads what the form writes");
            assert_eq!(back, form.parts_file().expect("valid"), "{kind:?}");
        }
    }

    #[test]
    fn a_bad_figure_is_marked_on_its_field() {
        let s = state();
        let id = s.catalog.gpus[0].id.clone();
        let target = FormTarget { kind: PartKind::Gpu, id: Some(id), field: Some("board_power_w".into()) };
        let mut form = PartForm::open(&s, &target).expect("form");
        assert_eq!(form.focus.as_deref(), Some("board_power_w"));
        let f = form.fields.iter_mut().find(|f| f.name == "board_power_w").expect("field");
        f.text = "lots".into();
        form.validate();
        let f = form.fields.iter().find(|f| f.name == "board_power_w").expect("field");
        assert!(f.error.is_some(), "the field is marked");
        assert!(form.parts_file().is_err(), "and the part cannot be saved");
        let f = form.fields.iter_mut().find(|f| f.name == "board_power_w").expect("field");
        f.text = "99999".into();
        form.validate();
        assert!(!form.problems.is_empty(), "catalog validation refuses 99999 W: {:?}", form.problems);
    }

    #[test]
    fn marked_names() {
        let mut g = catalog::builtin().expect("catalog").gpus[0].clone();
        let plain = catalog::HasId::display_name(&g);
        assert_eq!(marked_name(&g), plain, "built-in parts carry no mark");
        g.origin = Origin::User("/parts/a.ron".into());
        assert_eq!(marked_name(&g), format!("{plain} (user override)"));
        g.id = "my-own-card".into();
        assert_eq!(marked_name(&g), format!("{plain} (user)"));
    }

    #[test]
    fn an_unknown_text_field_takes_text_that_looks_like_a_number() {
        let s = state();
        let g = s.catalog.gpus.iter().find(|g| g.compute_capability.is_none()).expect("a GPU without one");
        let target = FormTarget { kind: PartKind::Gpu, id: Some(g.id.clone()), field: None };
        let mut form = PartForm::open(&s, &target).expect("form");
        let f = form.fields.iter_mut().find(|f| f.name == "compute_capability").expect("field");
        f.text = "8.9".into();
        form.validate();
        assert!(form.problems.is_empty(), "{:?}", form.problems);
        assert_eq!(form.parts_file().expect("valid").gpus[0].compute_capability.as_deref(), Some("8.9"));
    }

    #[test]
    fn origin_marks() {
        assert_eq!(origin_mark(&Origin::User("a.ron".into()), true), Some("user override"));
        assert_eq!(origin_mark(&Origin::User("a.ron".into()), false), Some("user"));
        assert_eq!(origin_mark(&Origin::Builtin("gpus.ron".into()), false), None);
    }
}
