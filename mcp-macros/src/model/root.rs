//! Where the `mcp` crate is (`::mcp`, or `crate = "..."`) and which paths are ours: an
//! attribute or an injected type is recognised by its whole path, never by its last
//! segment alone, so `#[other::tool]` and `other::Context` are left to their owners.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};

/// Crates whose paths name our items whatever `crate = "..."` says: the facade and the
/// crates it re-exports.
const OURS: &[&str] = &["mcp", "mcp_macros", "mcp_runtime"];

/// The path generated code names the `mcp` crate by: `::mcp` unless the attribute says
/// `crate = "my_reexport::mcp"` (for crates that re-export `mcp` under another name).
#[derive(Clone)]
pub struct Root {
    path: syn::Path,
    /// Whether the user set it (then it also counts as one of ours when recognising paths).
    custom: bool,
}

impl Default for Root {
    fn default() -> Self {
        Root {
            path: syn::parse_quote!(::mcp),
            custom: false,
        }
    }
}

impl Root {
    /// The root written as `crate = "..."`.
    pub fn custom(path: syn::Path) -> Self {
        Root { path, custom: true }
    }

    /// `<root>::__private`, the module all generated code names.
    pub fn private(&self) -> TokenStream {
        let path = &self.path;
        quote!(#path::__private)
    }

    /// `<root>::__private::<item>` as a string, for attributes that take a path in a
    /// string (`#[serde(crate = "...")]`).
    pub fn private_str(&self, item: &str) -> String {
        let root = self.path.to_token_stream().to_string().replace(' ', "");
        format!("{root}::__private::{item}")
    }

    /// Whether `path` names our item `name`: `name` as imported, or a path into one of our
    /// crates (`mcp::name`, `::mcp::prelude::name`, `<crate = "...">::name`).
    pub fn names(&self, path: &syn::Path, name: &str) -> bool {
        let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        let Some((last, prefix)) = segs.split_last() else {
            return false;
        };
        if last != name {
            return false;
        }
        if prefix.is_empty() {
            return path.leading_colon.is_none();
        }
        if OURS.contains(&prefix[0].as_str()) {
            return true;
        }
        self.custom && {
            let root: Vec<String> = self
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            prefix.starts_with(&root)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Root;

    fn names(root: &Root, path: &str, name: &str) -> bool {
        root.names(&syn::parse_str(path).unwrap(), name)
    }

    #[test]
    fn ours_by_whole_path() {
        let r = Root::default();
        for p in [
            "tool",
            "mcp::tool",
            "::mcp::tool",
            "mcp::prelude::tool",
            "mcp_macros::tool",
        ] {
            assert!(names(&r, p, "tool"), "{p}");
        }
        for p in [
            "other::tool",
            "::tool",
            "tools",
            "mcp::tools",
            "my::mcp::tool",
        ] {
            assert!(!names(&r, p, "tool"), "{p}");
        }
    }

    #[test]
    fn custom_root_counts_as_ours() {
        let r = Root::custom(syn::parse_str("my::mcp").unwrap());
        assert!(names(&r, "my::mcp::Context", "Context"));
        assert!(names(&r, "my::mcp::prelude::Context", "Context"));
        assert!(!names(&r, "my::other::Context", "Context"));
        assert_eq!(r.private_str("serde"), "my::mcp::__private::serde");
    }
}
