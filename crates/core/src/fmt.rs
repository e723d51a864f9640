//! Small text helpers every part of the core writes with: plurals. The bottom of the core's
//! module order (it uses no other core module), so the rules, the estimates, the planner and the
//! renderers share one spelling; the window uses it too.

/// `"s"` unless `n` is 1, for plurals in messages (`1 adapter`, `2 adapters`, `0 notes`).
pub fn plural(n: impl Into<u64>) -> &'static str {
    if n.into() == 1 { "" } else { "s" }
}

/// [`plural`] for a `usize` count (lengths of lists).
pub fn plural_len(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_everything_else_plural() {
        assert_eq!(plural(1u32), "");
        assert_eq!(plural(0u32), "s");
        assert_eq!(plural(2u64), "s");
        assert_eq!(plural_len(1), "");
        assert_eq!(plural_len(7), "s");
    }
}
