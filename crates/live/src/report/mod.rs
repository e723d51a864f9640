//! Every text renderer of the live layer, one file per command: `gpus`/`monitor`, `links`,
//! `probe`, `validate`, `fleet`. The CLI prints what these return; the window shows the same
//! words. Counts, watts and plurals come from [`kraftwerk_core::fmt`].

pub mod fleet;
pub mod gpus;
pub mod links;
pub mod probe;
pub mod validate;

/// A value, or `n/a` when NVML did not report it.
pub fn na<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(|| "n/a".to_owned(), |x| x.to_string())
}

/// A power reading with one decimal (`312.4 W`), or `n/a` when NVML did not report it.
pub(crate) fn watts_or_na(v: Option<f64>) -> String {
    v.map_or_else(|| "n/a".to_owned(), |w| format!("{w:.1} W"))
}
