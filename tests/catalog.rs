//! The built-in catalog loads, validates, and meets the foundation issue's minimums.

use kraftwerk::catalog::{self, HasId, LoadProblem, PartKind};

#[test]
fn builtin_catalog_loads_and_validates() {
    let c = catalog::builtin().expect("built-in catalog parses");
    let issues = catalog::validate(&c);
    assert!(issues.is_empty(), "catalog issues:\n{}", issues.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"));
}
