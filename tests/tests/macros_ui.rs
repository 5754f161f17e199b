//! Compile-time behaviour of the macros: `tests/ui/pass` must compile, every
//! `tests/ui/fail/*.rs` must fail with exactly the `.stderr` beside it.
//! Regenerate with `TRYBUILD=overwrite cargo test --test macros_ui` and read each file.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass/*.rs");
    t.compile_fail("tests/ui/fail/*.rs");
}
