//! Kraftwerk: plan, check and validate multi-GPU machines for large language models.
//!
//! Crate map (data flows one way: files → domain types → pure functions → report → UI/CLI):
//! - [`catalog`]: part types, the embedded RON catalog and the user's parts directory.

pub mod catalog;
