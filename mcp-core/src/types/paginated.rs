//! The shape every paginated list shares (`tools/list`, `prompts/list`, `resources/list`,
//! `resources/templates/list`): params with a `cursor`, a result with one page of items,
//! `nextCursor` and the 2026 cache hints. Written once as macros so each list stays its own
//! named type (its `METHOD`, its items' field name) with exactly the fields on the wire.

/// The params struct of a paginated list method: the `PaginatedRequestParams` definition
/// (`cursor`, `_meta`), with `METHOD`; adapting changes nothing.
macro_rules! list_params {
    ($(#[$doc:meta])* $name:ident, $method:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Default, PartialEq, ::serde::Serialize, ::serde::Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct $name {
            /// Where to continue from (a previous `nextCursor`).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub cursor: Option<$crate::types::Cursor>,
            /// Request metadata (required on 2026-07-28; filled by the envelope code).
            #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
            pub meta: Option<$crate::types::Meta>,
        }

        impl $name {
            /// The method name.
            pub const METHOD: &'static str = $method;
        }

        impl $crate::types::Adapt for $name {
            fn adapt(&mut self, _rev: $crate::version::ProtocolVersion) {}
        }
    };
}

/// The result struct of a paginated list method: one page of items in `$field`,
/// `nextCursor`, `_meta`, and the 2026-07-28 `resultType`, `ttlMs` and `cacheScope`;
/// adapting shapes each item and the 2026 fields for the revision.
macro_rules! list_result {
    ($(#[$doc:meta])* $name:ident, $(#[$field_doc:meta])* $field:ident: $item:ty) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Default, PartialEq, ::serde::Serialize, ::serde::Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct $name {
            $(#[$field_doc])*
            pub $field: Vec<$item>,
            /// The cursor of the next page; absent on the last page.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub next_cursor: Option<$crate::types::Cursor>,
            /// Result metadata.
            #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
            pub meta: Option<$crate::types::Meta>,
            /// 2026-07-28 result type.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub result_type: Option<$crate::types::ResultType>,
            /// 2026-07-28 cache lifetime in milliseconds.
            #[serde(
                default,
                skip_serializing_if = "Option::is_none",
                deserialize_with = "crate::types::lenient_ttl"
            )]
            pub ttl_ms: Option<u64>,
            /// 2026-07-28 cache scope.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub cache_scope: Option<$crate::types::CacheScope>,
        }

        impl $crate::types::Adapt for $name {
            fn adapt(&mut self, rev: $crate::version::ProtocolVersion) {
                self.$field.adapt(rev);
                $crate::types::shape_result_type(&mut self.result_type, rev);
                $crate::types::shape_cache(&mut self.ttl_ms, &mut self.cache_scope, rev);
            }
        }
    };
}
