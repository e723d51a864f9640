//! Where a part was defined ([`Origin`]): printed beside every figure a finding cites.

use serde::Serialize;

/// Where a part was defined: a built-in catalog file, a user's parts file, or inline in a build
/// file.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub enum Origin {
    /// Embedded catalog file, e.g. `catalog/gpus.ron`.
    Builtin(String),
    /// A file in the user's parts directory (absolute path as loaded).
    User(String),
    /// Defined inline in a build file (path of the build file).
    Inline(String),
    /// Made in code (tests, the GUI's custom-part editor before saving).
    #[default]
    Unknown,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::Builtin(p) => write!(f, "built-in {p}"),
            Origin::User(p) => write!(f, "user file {p}"),
            Origin::Inline(p) => write!(f, "inline in {p}"),
            Origin::Unknown => f.write_str("unknown"),
        }
    }
}
