//! The window's tabs, one module each: what the build is ([`build`], [`parts`]), what the
//! checker found ([`checks`]), power and heat ([`power`]), the LLM fit ([`fit`]), builds side
//! by side ([`compare`]), the planner ([`plan`]), the parts catalog ([`catalog`]) and the live
//! machine ([`live`]: cards, links and the GEMM probe). Each draws state and sends actions.

pub mod build;
pub mod catalog;
pub mod checks;
pub mod compare;
pub mod fit;
pub mod live;
pub mod parts;
pub mod plan;
pub mod power;
