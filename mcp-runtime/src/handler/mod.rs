//! What the server offers and how to call it: the handler table ([`ServerHandler`],
//! [`Registry`]) and tool, prompt, resource and completion definitions. Imports `chain` and below.

mod argument_path;
pub(crate) mod cell;
pub mod completion;
mod declare;
pub(crate) mod forwarded;
pub mod overlay;
mod portable_schema;
pub mod prompt_def;
pub mod resource_def;
#[cfg(feature = "schema-validation")]
pub mod schema_check;
mod table;
pub mod tool;
pub mod tool_def;
pub mod tool_result;
mod tool_schema;

pub use declare::{CacheTarget, Declarations};
pub use overlay::Overlay;
#[cfg(feature = "openapi")]
pub(crate) use portable_schema::make_portable;
pub use portable_schema::portability_problems;
pub use table::*;
