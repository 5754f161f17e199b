//! Skills extension (`io.modelcontextprotocol/skills`). It has no JSON schema: shapes are
//! asserted by hand from its specification; embedded `Resource` values are validated against
//! the 2026-07-28 core `Resource`, requests against the core JSON-RPC envelope.

mod common;

use mcp_core::types::*;
use mcp_core::version::ProtocolVersion as V;
use serde_json::{Value, json};

const REV: V = V::V2026_07_28;

fn digest(byte: &str) -> String {
    format!("sha256:{}", byte.repeat(32))
}

fn file(uri: &str, size: u64) -> SkillResource {
    SkillResource {
        uri: uri.into(),
        digest: digest("0f"),
        size,
    }
}

fn full_skill() -> Skill {
    let mut s = Skill::new(
        "skill://acme/billing/refunds/SKILL.md",
        "refunds",
        "Process customer refund requests per company policy",
        SkillResources::Files(vec![
            file("skill://acme/billing/refunds/SKILL.md", 3871),
            file("skill://acme/billing/refunds/examples/email.md", 962),
        ]),
    );
    s.frontmatter
        .other
        .insert("license".into(), json!("Apache-2.0"));
    s.frontmatter
        .other
        .insert("metadata".into(), json!({"version": "2.1.0"}));
    s
}

fn dynamic_skill() -> Skill {
    Skill::new(
        "skill://reports/daily/SKILL.md",
        "daily",
        "Assemble today's operational report from live data",
        SkillResources::Dynamic,
    )
}

fn request_meta() -> Meta {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    })
    .as_object()
    .cloned()
    .unwrap()
}

fn keys(v: &Value) -> Vec<&str> {
    let mut k: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    k.sort_unstable();
    k
}

#[test]
fn names_and_constants() {
    assert_eq!(SKILLS_EXTENSION, "io.modelcontextprotocol/skills");
    assert_eq!(SkillsExtensionSettings::NAME, SKILLS_EXTENSION);
    assert_eq!(ListSkillsParams::METHOD, "skills/list");
    assert_eq!(GetSkillParams::METHOD, "skills/get");
    assert_eq!(
        ReadResourceDirectoryParams::METHOD,
        "resources/directory/read"
    );
    assert_eq!(DIRECTORY_MIME_TYPE, "inode/directory");
    assert_eq!(SKILLS_META_PREFIX, "io.modelcontextprotocol.skills/");
    assert_eq!(MAX_SKILL_RESOURCES, 512);
    assert_eq!(MAX_SKILL_TOTAL_SIZE, 16_777_216);
}

#[test]
fn digest_format_validation() {
    assert!(is_valid_sha256_digest(&digest("ab")));
    assert!(is_valid_sha256_digest(
        "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    ));
    for bad in [
        "",
        "sha256:",
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        // uppercase hex
        "sha256:E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855",
        // 63 and 65 characters
        "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b85",
        "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b8555",
        // non-hex
        "sha256:g3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        // other algorithm / prefix spelling
        "sha512:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "SHA256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "sha256:a1b2c3d4...",
    ] {
        assert!(!is_valid_sha256_digest(bad), "{bad:?}");
    }
    assert!(file("skill://x/SKILL.md", 1).has_valid_digest());
}

#[test]
fn settings_shape() {
    let min = SkillsExtensionSettings::default();
    assert_eq!(to_value_for(&min, REV), json!({}));
    assert!(!min.supports_directory_read());
    let full = SkillsExtensionSettings {
        directory_read: Some(true),
    };
    let v = to_value_for(&full, REV);
    assert_eq!(v, json!({"directoryRead": true}));
    assert!(full.supports_directory_read());
    assert!(
        !SkillsExtensionSettings {
            directory_read: Some(false)
        }
        .supports_directory_read()
    );
    assert_eq!(
        serde_json::from_value::<SkillsExtensionSettings>(v.clone()).unwrap(),
        full
    );
    // Declared under the core `extensions` map.
    if let Some(spec) = common::spec() {
        spec.check(
            REV,
            "ServerCapabilities",
            &json!({"resources": {}, "extensions": {SKILLS_EXTENSION: v}}),
        );
    }
}

#[test]
fn skill_entry_shapes_minimal_full_dynamic() {
    let min = Skill::new(
        "skill://git-workflow/SKILL.md",
        "git-workflow",
        "Follow this team's Git conventions",
        SkillResources::Files(vec![file("skill://git-workflow/SKILL.md", 2314)]),
    );
    let v = to_value_for(&min, REV);
    assert_eq!(
        v,
        json!({
            "uri": "skill://git-workflow/SKILL.md",
            "frontmatter": {"name": "git-workflow", "description": "Follow this team's Git conventions"},
            "resources": [{"uri": "skill://git-workflow/SKILL.md", "digest": digest("0f"), "size": 2314}]
        })
    );
    assert_eq!(serde_json::from_value::<Skill>(v).unwrap(), min);

    // Frontmatter passes every other field through verbatim.
    let full = full_skill();
    let v = to_value_for(&full, REV);
    assert_eq!(keys(&v), ["frontmatter", "resources", "uri"]);
    assert_eq!(
        v["frontmatter"],
        json!({
            "name": "refunds",
            "description": "Process customer refund requests per company policy",
            "license": "Apache-2.0",
            "metadata": {"version": "2.1.0"}
        })
    );
    for r in v["resources"].as_array().unwrap() {
        assert_eq!(keys(r), ["digest", "size", "uri"]);
    }
    assert_eq!(serde_json::from_value::<Skill>(v).unwrap(), full);

    let dynamic = dynamic_skill();
    let v = to_value_for(&dynamic, REV);
    assert_eq!(v["resources"], json!("dynamic"));
    assert_eq!(serde_json::from_value::<Skill>(v).unwrap(), dynamic);
}

#[test]
fn skill_resources_reject_other_values() {
    let base =
        json!({"uri": "skill://a/SKILL.md", "frontmatter": {"name": "a", "description": "d"}});
    let with = |r: Value| {
        let mut v = base.clone();
        v["resources"] = r;
        serde_json::from_value::<Skill>(v)
    };
    assert!(with(json!("dynamic")).is_ok());
    assert!(with(json!([])).is_ok());
    for bad in [
        json!("static"),
        json!(null),
        json!({}),
        json!(1),
        json!([{"uri": "x"}]),
    ] {
        assert!(with(bad.clone()).is_err(), "{bad}");
    }
    // `resources` is required.
    assert!(serde_json::from_value::<Skill>(base).is_err());
    // Frontmatter needs name and description.
    assert!(
        serde_json::from_value::<Skill>(json!({
            "uri": "skill://a/SKILL.md", "frontmatter": {"name": "a"}, "resources": "dynamic"
        }))
        .is_err()
    );
}

#[test]
fn skill_validation_and_limits() {
    assert_eq!(full_skill().validate(), Ok(()));
    assert_eq!(dynamic_skill().validate(), Ok(()));
    assert_eq!(
        full_skill().root_uri(),
        Some("skill://acme/billing/refunds")
    );
    assert_eq!(full_skill().totals(), Some((2, 3871 + 962)));
    assert_eq!(dynamic_skill().totals(), None);

    let mut s = full_skill();
    s.uri = "skill://acme/billing/refunds/README.md".into();
    assert_eq!(s.validate(), Err(SkillError::NotSkillMdUri));
    let mut s = full_skill();
    s.frontmatter.name = "chargebacks".into();
    assert_eq!(s.validate(), Err(SkillError::NameMismatch));
    let mut s = full_skill();
    if let SkillResources::Files(f) = &mut s.resources {
        f[1].digest = "sha256:c3d4e5f6...".into();
    }
    assert_eq!(
        s.validate(),
        Err(SkillError::InvalidDigest {
            uri: "skill://acme/billing/refunds/examples/email.md".into()
        })
    );
    let mut s = full_skill();
    if let SkillResources::Files(f) = &mut s.resources {
        f.remove(0);
    }
    assert_eq!(s.validate(), Err(SkillError::MissingSkillMd));

    // 512 files are fine, 513 are not.
    let many = |n: usize, size: u64| {
        let mut files = vec![file("skill://big/SKILL.md", size)];
        files.extend((1..n).map(|i| file(&format!("skill://big/f{i}.md"), size)));
        Skill::new(
            "skill://big/SKILL.md",
            "big",
            "d",
            SkillResources::Files(files),
        )
    };
    assert_eq!(many(MAX_SKILL_RESOURCES, 1).validate(), Ok(()));
    assert_eq!(
        many(MAX_SKILL_RESOURCES + 1, 1).check_limits(),
        Err(SkillError::TooManyResources { count: 513 })
    );
    // Exactly 16 MiB is fine, one byte more is not.
    assert_eq!(many(16, 1024 * 1024).validate(), Ok(()));
    let mut over = many(16, 1024 * 1024);
    if let SkillResources::Files(f) = &mut over.resources {
        f[0].size += 1;
    }
    assert_eq!(
        over.check_limits(),
        Err(SkillError::TooLarge {
            total: MAX_SKILL_TOTAL_SIZE + 1
        })
    );
    assert!(
        over.check_limits()
            .unwrap_err()
            .to_string()
            .contains("16777216")
    );
    // Sizes near u64::MAX do not overflow.
    let huge = many(2, u64::MAX);
    assert_eq!(
        huge.check_limits(),
        Err(SkillError::TooLarge { total: u64::MAX })
    );
}

#[test]
fn list_skills_request_and_result() {
    let min = ListSkillsParams::default();
    assert_eq!(to_value_for(&min, REV), json!({}));
    let full = ListSkillsParams {
        meta: Some(request_meta()),
        cursor: Some("c1".into()),
    };
    let v = to_value_for(&full, REV);
    assert_eq!(keys(&v), ["_meta", "cursor"]);
    assert_eq!(
        serde_json::from_value::<ListSkillsParams>(v.clone()).unwrap(),
        full
    );
    if let Some(spec) = common::spec() {
        spec.check(REV, "PaginatedRequestParams", &v);
        spec.check(
            REV,
            "JSONRPCRequest",
            &json!({"jsonrpc": "2.0", "id": 4, "method": ListSkillsParams::METHOD, "params": v}),
        );
    }

    // Minimal: resultType and the required cache hints are filled.
    let v = to_value_for(&ListSkillsResult::default(), REV);
    assert_eq!(
        v,
        json!({"resultType": "complete", "skills": [], "ttlMs": 0, "cacheScope": "private"})
    );
    let full = ListSkillsResult {
        meta: Some(json!({"k": 1}).as_object().cloned().unwrap()),
        result_type: Some(ResultType::Complete),
        skills: vec![full_skill(), dynamic_skill()],
        next_cursor: Some("page-2".into()),
        ttl_ms: Some(300_000),
        cache_scope: Some(CacheScope::Public),
    };
    let v = to_value_for(&full, REV);
    assert_eq!(
        keys(&v),
        [
            "_meta",
            "cacheScope",
            "nextCursor",
            "resultType",
            "skills",
            "ttlMs"
        ]
    );
    assert_eq!(v["ttlMs"], 300_000);
    assert_eq!(v["cacheScope"], "public");
    assert_eq!(v["skills"][1]["resources"], "dynamic");
    assert_eq!(
        serde_json::from_value::<ListSkillsResult>(v.clone()).unwrap(),
        full
    );
    // Idempotent, and only 2026 knows resultType / cache hints.
    let mut twice = full.clone();
    twice.adapt(REV);
    twice.adapt(REV);
    assert_eq!(serde_json::to_value(&twice).unwrap(), v);
    let legacy = to_value_for(&full, V::V2025_11_25);
    assert_eq!(keys(&legacy), ["_meta", "nextCursor", "skills"]);

    // The listing example of the specification reads (digests there are elided on purpose,
    // so the entries do not validate).
    let spec_example = json!({
        "resultType": "complete",
        "skills": [{
            "uri": "skill://git-workflow/SKILL.md",
            "frontmatter": {"name": "git-workflow", "description": "Follow this team's Git conventions for branching and commits"},
            "resources": [{"uri": "skill://git-workflow/SKILL.md", "digest": "sha256:a1b2c3d4...", "size": 2314}]
        }, {
            "uri": "skill://reports/daily/SKILL.md",
            "frontmatter": {"name": "daily", "description": "Assemble today's operational report from live data"},
            "resources": "dynamic"
        }],
        "ttlMs": 300000,
        "cacheScope": "public"
    });
    let parsed: ListSkillsResult = serde_json::from_value(spec_example.clone()).unwrap();
    assert_eq!(to_value_for(&parsed, REV), spec_example);
    assert!(matches!(
        parsed.skills[0].validate(),
        Err(SkillError::InvalidDigest { .. })
    ));
    assert_eq!(parsed.skills[1].validate(), Ok(()));
}

#[test]
fn get_skill_request_and_result() {
    let min = GetSkillParams::new("skill://pdf-processing/SKILL.md");
    let v = to_value_for(&min, REV);
    assert_eq!(v, json!({"uri": "skill://pdf-processing/SKILL.md"}));
    let full = GetSkillParams {
        meta: Some(request_meta()),
        ..min
    };
    let v = to_value_for(&full, REV);
    assert_eq!(keys(&v), ["_meta", "uri"]);
    assert_eq!(
        serde_json::from_value::<GetSkillParams>(v.clone()).unwrap(),
        full
    );
    if let Some(spec) = common::spec() {
        spec.check(REV, "RequestMetaObject", &v["_meta"]);
        spec.check(
            REV,
            "JSONRPCRequest",
            &json!({"jsonrpc": "2.0", "id": 5, "method": GetSkillParams::METHOD, "params": v}),
        );
    }

    let v = to_value_for(&GetSkillResult::new(dynamic_skill()), REV);
    assert_eq!(keys(&v), ["cacheScope", "resultType", "skill", "ttlMs"]);
    assert_eq!(v["resultType"], "complete");
    assert_eq!(v["ttlMs"], 0);
    assert_eq!(v["cacheScope"], "private");
    let full = GetSkillResult {
        meta: Some(json!({"x": 1}).as_object().cloned().unwrap()),
        result_type: Some(ResultType::Complete),
        skill: full_skill(),
        ttl_ms: Some(300_000),
        cache_scope: Some(CacheScope::Public),
    };
    let v = to_value_for(&full, REV);
    // No pagination cursor on skills/get.
    assert_eq!(
        keys(&v),
        ["_meta", "cacheScope", "resultType", "skill", "ttlMs"]
    );
    assert_eq!(serde_json::from_value::<GetSkillResult>(v).unwrap(), full);
    let legacy = to_value_for(&full, V::V2025_11_25);
    assert_eq!(keys(&legacy), ["_meta", "skill"]);
}

#[test]
fn directory_read_request_and_result() {
    // Directory URIs have no trailing slash.
    assert_eq!(
        directory_uri("skill://pdf-processing/templates/"),
        "skill://pdf-processing/templates"
    );
    assert_eq!(
        directory_uri("skill://pdf-processing"),
        "skill://pdf-processing"
    );
    assert_eq!(directory_uri("skill://x//"), "skill://x");
    let min = ReadResourceDirectoryParams::new("skill://pdf-processing/templates/");
    let v = to_value_for(&min, REV);
    assert_eq!(v, json!({"uri": "skill://pdf-processing/templates"}));
    let full = ReadResourceDirectoryParams {
        meta: Some(request_meta()),
        cursor: Some("c".into()),
        ..min
    };
    let v = to_value_for(&full, REV);
    assert_eq!(keys(&v), ["_meta", "cursor", "uri"]);
    assert_eq!(
        serde_json::from_value::<ReadResourceDirectoryParams>(v.clone()).unwrap(),
        full
    );

    let dir = directory_resource("skill://pdf-processing/templates/regional/", "regional");
    assert!(is_directory(&dir));
    assert_eq!(dir.uri, "skill://pdf-processing/templates/regional");
    let md = Resource {
        mime_type: Some("text/markdown".into()),
        size: Some(1210),
        ..Resource::new("skill://pdf-processing/templates/invoice.md", "invoice.md")
    };
    assert!(!is_directory(&md));

    let min = ReadResourceDirectoryResult::default();
    let v = to_value_for(&min, REV);
    // Not cacheable: no ttlMs / cacheScope. An empty directory is an empty array.
    assert_eq!(v, json!({"resultType": "complete", "resources": []}));
    let full = ReadResourceDirectoryResult {
        meta: Some(json!({"k": "v"}).as_object().cloned().unwrap()),
        result_type: Some(ResultType::Complete),
        resources: vec![md.clone(), dir.clone()],
        next_cursor: Some("more".into()),
    };
    let v = to_value_for(&full, REV);
    assert_eq!(keys(&v), ["_meta", "nextCursor", "resources", "resultType"]);
    assert_eq!(v["resources"][1]["mimeType"], "inode/directory");
    assert_eq!(
        serde_json::from_value::<ReadResourceDirectoryResult>(v.clone()).unwrap(),
        full
    );
    let Some(spec) = common::spec() else { return };
    spec.check(REV, "PaginatedResult", &without_resources(&v));
    for r in v["resources"].as_array().unwrap() {
        spec.check(REV, "Resource", r);
    }
    // A fully populated child resource validates too.
    let rich = Resource {
        title: Some("Invoice".into()),
        description: Some("Invoice template".into()),
        annotations: Some(Annotations {
            audience: Some(vec![Role::Assistant]),
            priority: Some(0.5),
            last_modified: Some("2026-08-01T00:00:00Z".into()),
        }),
        icons: Some(vec![Icon {
            src: "https://example.com/i.png".into(),
            mime_type: Some("image/png".into()),
            sizes: Some(vec!["48x48".into()]),
            theme: Some(IconTheme::Light),
        }]),
        meta: Some(
            json!({"io.modelcontextprotocol.skills/x": 1})
                .as_object()
                .cloned()
                .unwrap(),
        ),
        ..md
    };
    let res = ReadResourceDirectoryResult {
        resources: vec![rich],
        ..Default::default()
    };
    let v = to_value_for(&res, REV);
    spec.check(REV, "Resource", &v["resources"][0]);

    // The specification's response example reads back unchanged.
    let example = json!({
        "resultType": "complete",
        "resources": [
            {"uri": "skill://pdf-processing/templates/invoice.md", "name": "invoice.md", "mimeType": "text/markdown"},
            {"uri": "skill://pdf-processing/templates/regional", "name": "regional", "mimeType": "inode/directory"}
        ]
    });
    let parsed: ReadResourceDirectoryResult = serde_json::from_value(example.clone()).unwrap();
    assert!(is_directory(&parsed.resources[1]));
    assert_eq!(to_value_for(&parsed, REV), example);
    for r in example["resources"].as_array().unwrap() {
        spec.check(REV, "Resource", r);
    }
}

fn without_resources(v: &Value) -> Value {
    let mut v = v.clone();
    v.as_object_mut().unwrap().remove("resources");
    v
}
