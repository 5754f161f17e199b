//! The harness must catch what it claims to catch, or every schema test built on it is void.

mod common;

use mcp_core::version::ProtocolVersion as V;
use serde_json::json;

#[test]
fn strict_validation_rejects_undefined_fields_and_accepts_defined_ones() {
    let Some(spec) = common::spec() else { return };
    let ok = json!({"name": "x", "version": "1"});
    spec.check(V::V2024_11_05, "Implementation", &ok);
    // `title` arrived in 2025-06-18: strictly, 2024-11-05 must reject it.
    let titled = json!({"name": "x", "version": "1", "title": "X"});
    assert!(
        spec.check_in("2024-11-05", "Implementation", &titled)
            .is_err()
    );
    spec.check(V::V2025_06_18, "Implementation", &titled);
    // 2020-12 revisions: `icons` on 2025-06-18 is rejected, accepted on 2025-11-25.
    let icons = json!({"name": "x", "version": "1", "icons": [{"src": "https://a/b.png"}]});
    assert!(
        spec.check_in("2025-06-18", "Implementation", &icons)
            .is_err()
    );
    spec.check(V::V2025_11_25, "Implementation", &icons);
    assert!(
        spec.check_in("2026-07-28", "Implementation", &json!({"name": "x"}))
            .is_err()
    );
    // `_meta` stays open.
    spec.check(
        V::V2026_07_28,
        "CallToolResult",
        &json!({"content": [], "resultType": "complete", "_meta": {"anything": [1]}}),
    );
    // An undefined top-level result field is caught on 2026 as well.
    assert!(
        spec.check_in(
            "2026-07-28",
            "CallToolResult",
            &json!({"content": [], "resultType": "complete", "bogus": 1})
        )
        .is_err()
    );
}
