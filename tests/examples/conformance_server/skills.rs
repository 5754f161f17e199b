//! The skills extension fixture (`sep-2640-*` scenarios): the `skills/` folder beside this
//! file, loaded from disk, with `resources/directory/read`.

use mcp::ServerBuilder;
use mcp::skills::SkillSet;

/// Serves `examples/conformance_server/skills/`.
pub fn install(builder: ServerBuilder) -> ServerBuilder {
    let root = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/conformance_server/skills"
    );
    let skills = SkillSet::from_dir(root).unwrap_or_else(|e| panic!("skills fixture: {e}"));
    builder.skills(skills)
}
