//! A hostile network: clients and web pages that send what they should not. Each module takes
//! one part of the service (see DESIGN.md, "A network client may lie").

#[path = "../common/mod.rs"]
mod common;

mod edge;
