//! Review: what a person reads and decides about the tools — the hints file on disk
//! ([`hints_file`]), lint findings ([`lint`]), the review table ([`report`]), and a converted tools
//! file read back into the tool model ([`readback`]) so that lint and review need no spec.

pub mod fit;
pub mod hints_file;
pub mod lint;
pub mod readback;
pub mod report;

pub use hints_file::{HintEntry, HintsFile, UpdateReport, render, update, update_resolved};
