//! The keyboard shortcuts, declared once ([`all`]): the keys, the action each sends and the
//! tab it is limited to. The app consumes them once a frame in this order (so Ctrl+Shift+S is
//! seen before Ctrl+S), and the menus take their shortcut labels from the same list ([`text`]),
//! so a label can never name a key that does something else.

use super::command::{Action, EditAction, FileAction, LiveAction, Tab, ViewAction};
use eframe::egui::{Key, KeyboardShortcut, ModifierNames, Modifiers};
use std::sync::LazyLock;

/// One keyboard shortcut.
#[derive(Debug, Clone, PartialEq)]
pub struct Shortcut {
    /// The keys (Ctrl is Cmd on macOS: [`Modifiers::COMMAND`]).
    pub keys: KeyboardShortcut,
    /// What pressing them sends.
    pub action: Action,
    /// The tab it works on (`None`: everywhere).
    pub only_on: Option<Tab>,
}

/// Ctrl+1 … Ctrl+9 select the tabs in display order.
const TAB_KEYS: [Key; 9] =
    [Key::Num1, Key::Num2, Key::Num3, Key::Num4, Key::Num5, Key::Num6, Key::Num7, Key::Num8, Key::Num9];

const CMD: Modifiers = Modifiers::COMMAND;
const CMD_SHIFT: Modifiers = Modifiers::COMMAND.plus(Modifiers::SHIFT);

static SHORTCUTS: LazyLock<Vec<Shortcut>> = LazyLock::new(|| {
    let key =
        |m: Modifiers, k: Key, action: Action| Shortcut { keys: KeyboardShortcut::new(m, k), action, only_on: None };
    let mut v = vec![
        key(CMD_SHIFT, Key::S, Action::File(FileAction::SaveAsDialog)),
        key(CMD, Key::S, Action::File(FileAction::Save)),
        key(CMD, Key::O, Action::File(FileAction::OpenDialog)),
        key(CMD, Key::N, Action::File(FileAction::New)),
        key(CMD_SHIFT, Key::Z, Action::Edit(EditAction::Redo)),
        key(CMD, Key::Y, Action::Edit(EditAction::Redo)),
        key(CMD, Key::Z, Action::Edit(EditAction::Undo)),
    ];
    for (t, k) in Tab::ALL.into_iter().zip(TAB_KEYS) {
        v.push(key(CMD, k, Action::View(ViewAction::SelectTab(t))));
    }
    v.extend([
        key(CMD, Key::B, Action::View(ViewAction::ToggleBuildPanel)),
        key(CMD, Key::E, Action::File(FileAction::ExportDialog)),
        key(Modifiers::NONE, Key::F1, Action::View(ViewAction::ToggleRuleDocs)),
        // On the Live tab: F5 runs the probe, F6 validates against the open build.
        Shortcut { only_on: Some(Tab::Live), ..key(Modifiers::NONE, Key::F5, Action::Live(LiveAction::RunProbe)) },
        Shortcut { only_on: Some(Tab::Live), ..key(Modifiers::NONE, Key::F6, Action::Live(LiveAction::Validate)) },
    ]);
    v
});

/// Every shortcut, in the order the app consumes them.
pub fn all() -> &'static [Shortcut] {
    &SHORTCUTS
}

/// The label of the first shortcut that sends `action` ("Ctrl+Shift+S", "F1"), for menus and
/// hints; `None` when no key sends it. Spelt the same on every system, as the menus always were.
pub fn text(action: &Action) -> Option<String> {
    all().iter().find(|s| &s.action == action).map(|s| s.keys.format(&ModifierNames::NAMES, false))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_come_from_the_keys() {
        assert_eq!(text(&Action::File(FileAction::SaveAsDialog)).as_deref(), Some("Ctrl+Shift+S"));
        assert_eq!(text(&Action::File(FileAction::Save)).as_deref(), Some("Ctrl+S"));
        assert_eq!(text(&Action::Edit(EditAction::Redo)).as_deref(), Some("Ctrl+Shift+Z"));
        assert_eq!(text(&Action::View(ViewAction::SelectTab(Tab::Plan))).as_deref(), Some("Ctrl+7"));
        assert_eq!(text(&Action::View(ViewAction::ToggleRuleDocs)).as_deref(), Some("F1"));
        assert_eq!(text(&Action::File(FileAction::Quit)), None, "no key quits");
    }

    #[test]
    fn no_two_shortcuts_share_keys() {
        for (i, a) in all().iter().enumerate() {
            for b in &all()[i + 1..] {
                assert!(a.keys != b.keys || a.only_on != b.only_on, "{:?} is declared twice", a.keys);
            }
        }
    }
}
