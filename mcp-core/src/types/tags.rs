//! Tags on tools, prompts, resources and resource templates: `_meta.tags`, an array of
//! strings (FastMCP's representation), set by `#[mcp::tool(tags("admin"))]` and the like or
//! by `with_tags` on each type, and read by filters (the gateway's tool transform, the
//! visibility policy) with [`has_tag`].
//!
//! ```
//! use mcp_core::types::{Prompt, Tool};
//!
//! let tool = Tool::new("refund").with_tags(["billing", "admin"]);
//! assert!(tool.has_tag("admin") && !tool.has_tag("public"));
//! assert_eq!(tool.tags().collect::<Vec<_>>(), ["billing", "admin"]);
//! assert_eq!(
//!     serde_json::to_value(&tool).unwrap()["_meta"]["tags"],
//!     serde_json::json!(["billing", "admin"])
//! );
//! assert_eq!(Prompt::new("p").tags().count(), 0);
//! ```

use super::{Meta, Prompt, Resource, ResourceTemplate, Tool};
pub use crate::rules::check_tags;

/// The `_meta` key the tags are under.
pub const TAGS_KEY: &str = "tags";

/// The tags in a `_meta` object: the strings of its `tags` array (nothing when it has none,
/// or when `tags` is not an array; entries that are not strings are skipped).
pub fn tags_in(meta: Option<&Meta>) -> impl Iterator<Item = &str> {
    meta.and_then(|m| m.get(TAGS_KEY))
        .and_then(serde_json::Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(serde_json::Value::as_str)
}

/// Whether a `_meta` object's tags hold `tag`.
pub fn has_tag(meta: Option<&Meta>, tag: &str) -> bool {
    tags_in(meta).any(|t| t == tag)
}

/// Sets `_meta.tags` to `tags`, keeping the other `_meta` entries.
pub fn set_tags<S: Into<String>>(meta: &mut Option<Meta>, tags: impl IntoIterator<Item = S>) {
    let list = tags
        .into_iter()
        .map(|t| serde_json::Value::String(t.into()))
        .collect();
    meta.get_or_insert_with(Meta::new)
        .insert(TAGS_KEY.to_owned(), serde_json::Value::Array(list));
}

macro_rules! tagged {
    ($($ty:ty),*) => {$(
        impl $ty {
            /// Tags it (`_meta.tags`, replacing any tags it had; the other `_meta` entries
            /// stay). An empty tag or a repeated one makes the server's `try_build` fail.
            pub fn with_tags<S: Into<String>>(mut self, tags: impl IntoIterator<Item = S>) -> Self {
                set_tags(&mut self.meta, tags);
                self
            }

            /// Its tags (`_meta.tags`), in order.
            pub fn tags(&self) -> impl Iterator<Item = &str> {
                tags_in(self.meta.as_ref())
            }

            /// Whether it is tagged `tag`.
            pub fn has_tag(&self, tag: &str) -> bool {
                has_tag(self.meta.as_ref(), tag)
            }
        }
    )*};
}

tagged!(Tool, Prompt, Resource, ResourceTemplate);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_join_the_other_meta_entries_and_replace_earlier_tags() {
        let mut meta = Meta::new();
        meta.insert("ui".into(), serde_json::json!({"resourceUri": "ui://x"}));
        let mut r = Resource::new("data://a", "a");
        r.meta = Some(meta);
        let r = r.with_tags(["x"]).with_tags(["y", "z"]);
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["_meta"]["tags"], serde_json::json!(["y", "z"]));
        assert_eq!(v["_meta"]["ui"]["resourceUri"], "ui://x");
        let t = ResourceTemplate::new("data://{id}", "d").with_tags(["admin"]);
        assert!(t.has_tag("admin"));
    }

    #[test]
    fn malformed_tags_read_as_what_strings_they_hold() {
        let mut meta = Meta::new();
        meta.insert(TAGS_KEY.into(), serde_json::json!(["a", 1, null, "b"]));
        assert_eq!(tags_in(Some(&meta)).collect::<Vec<_>>(), ["a", "b"]);
        meta.insert(TAGS_KEY.into(), serde_json::json!("a"));
        assert!(!has_tag(Some(&meta), "a"));
        assert!(!has_tag(None, "a"));
    }
}
