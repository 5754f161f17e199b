//! The skills extension `io.modelcontextprotocol/skills` (SEP-2640, base revision 2026-07-28).
//!
//! A server declaring `extensions["io.modelcontextprotocol/skills"]`
//! ([`SkillsExtensionSettings`]) serves Agent Skills as resources (conventionally
//! `skill://<skill-path>/<file-path>`, read with `resources/read`) and implements
//! `skills/list` ([`ListSkillsParams`] → [`ListSkillsResult`]) and `skills/get`
//! ([`GetSkillParams`] → [`GetSkillResult`]); with `directoryRead: true` also
//! `resources/directory/read` ([`ReadResourceDirectoryParams`] →
//! [`ReadResourceDirectoryResult`]). It must also declare the `resources` capability.
//! Unknown skills and non-directories are `-32602`.
//!
//! The extension publishes no JSON schema; these types follow its specification text. It
//! exists only on 2026-07-28: shaping for a legacy revision only removes `resultType` and the
//! cache hints.
//!
//! ```
//! use mcp_core::types::{is_valid_sha256_digest, Skill, SkillResource, SkillResources};
//!
//! let digest = format!("sha256:{}", "ab".repeat(32));
//! assert!(is_valid_sha256_digest(&digest));
//! assert!(!is_valid_sha256_digest("sha256:AB"));
//! let skill = Skill::new(
//!     "skill://git-workflow/SKILL.md",
//!     "git-workflow",
//!     "Follow the team's Git conventions",
//!     SkillResources::Files(vec![SkillResource {
//!         uri: "skill://git-workflow/SKILL.md".into(),
//!         digest,
//!         size: 2314,
//!     }]),
//! );
//! assert_eq!(skill.validate(), Ok(()));
//! assert_eq!(skill.root_uri(), Some("skill://git-workflow"));
//! ```

use std::fmt;

use serde::{Deserialize, Serialize};

use super::{
    Adapt, CacheScope, Cursor, Meta, Resource, ResultType, shape_cache, shape_result_type,
};
pub use crate::rules::SKILLS_EXTENSION;
use crate::version::ProtocolVersion;

/// The `_meta` key prefix reserved for this extension on skill resources.
pub const SKILLS_META_PREFIX: &str = "io.modelcontextprotocol.skills/";

/// The MIME type of a directory resource.
pub const DIRECTORY_MIME_TYPE: &str = "inode/directory";

/// The file every skill has at its root.
pub const SKILL_MD: &str = "SKILL.md";

/// Hosts must accept skills of up to this many files (`SKILL.md` included).
pub const MAX_SKILL_RESOURCES: usize = 512;

/// Hosts must accept skills of up to this many bytes in total (16 MiB).
pub const MAX_SKILL_TOTAL_SIZE: u64 = 16 * 1024 * 1024;

/// Whether `digest` is `sha256:` followed by exactly 64 lowercase hexadecimal characters.
pub fn is_valid_sha256_digest(digest: &str) -> bool {
    digest.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 64 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    })
}

/// The server's settings under `extensions["io.modelcontextprotocol/skills"]`. `{}` declares
/// the extension with no optional feature.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillsExtensionSettings {
    /// The server implements `resources/directory/read` (default `false`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub directory_read: Option<bool>,
}

impl SkillsExtensionSettings {
    /// The key under `capabilities.extensions`.
    pub const NAME: &'static str = SKILLS_EXTENSION;

    /// Whether clients may call `resources/directory/read`.
    pub fn supports_directory_read(&self) -> bool {
        self.directory_read == Some(true)
    }
}

impl Adapt for SkillsExtensionSettings {
    fn adapt(&mut self, _rev: ProtocolVersion) {}
}

/// A skill's `SKILL.md` YAML frontmatter as a JSON object, verbatim: `name` and
/// `description` are always there, every other field passes through in `other`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SkillFrontmatter {
    /// The skill name (equals the final segment of the skill path).
    pub name: String,
    /// What the skill does.
    pub description: String,
    /// Every other field the author wrote (`license`, `metadata`, ...).
    #[serde(flatten)]
    pub other: serde_json::Map<String, serde_json::Value>,
}

/// One file of a skill with the digest and size of its raw bytes (`SkillResource`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillResource {
    /// The file's resource URI.
    pub uri: String,
    /// `sha256:<64 lowercase hex>` of the raw bytes.
    pub digest: String,
    /// Length of the raw bytes.
    pub size: u64,
}

impl SkillResource {
    /// Whether `digest` is well formed.
    pub fn has_valid_digest(&self) -> bool {
        is_valid_sha256_digest(&self.digest)
    }
}

/// A skill's `resources`: the complete list of its files, or `"dynamic"` when its content is
/// generated and no stable digests exist. Any other value fails to deserialize (an entry with
/// such a value must not be loaded).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkillResources {
    /// Every file of the skill, `SKILL.md` included, each once.
    Files(Vec<SkillResource>),
    /// `"dynamic"`: no manifest, no integrity.
    Dynamic,
}

impl Serialize for SkillResources {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Files(files) => files.serialize(s),
            Self::Dynamic => s.serialize_str("dynamic"),
        }
    }
}

impl<'de> Deserialize<'de> for SkillResources {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Files(Vec<SkillResource>),
            Word(String),
        }
        match Raw::deserialize(d) {
            Ok(Raw::Files(f)) => Ok(Self::Files(f)),
            Ok(Raw::Word(w)) if w == "dynamic" => Ok(Self::Dynamic),
            _ => Err(serde::de::Error::custom(
                "skill resources must be an array of {uri, digest, size} or \"dynamic\"",
            )),
        }
    }
}

/// Why a [`Skill`] entry breaks a rule of the extension.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkillError {
    /// `uri` does not end in `/SKILL.md`.
    NotSkillMdUri,
    /// The final skill-path segment differs from `frontmatter.name`.
    NameMismatch,
    /// `resources` has no entry for the skill's own `SKILL.md`.
    MissingSkillMd,
    /// A digest is not `sha256:<64 lowercase hex>`.
    InvalidDigest {
        /// The file's URI.
        uri: String,
    },
    /// More than [`MAX_SKILL_RESOURCES`] files.
    TooManyResources {
        /// The number of files.
        count: usize,
    },
    /// More than [`MAX_SKILL_TOTAL_SIZE`] bytes in total.
    TooLarge {
        /// The sum of the files' sizes.
        total: u64,
    },
}

impl fmt::Display for SkillError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotSkillMdUri => f.write_str("skill uri does not name a SKILL.md"),
            Self::NameMismatch => f.write_str("skill path does not end in the frontmatter name"),
            Self::MissingSkillMd => f.write_str("skill resources do not list SKILL.md"),
            Self::InvalidDigest { uri } => write!(f, "invalid sha256 digest for {uri}"),
            Self::TooManyResources { count } => {
                write!(f, "skill has {count} files (limit {MAX_SKILL_RESOURCES})")
            }
            Self::TooLarge { total } => {
                write!(f, "skill has {total} bytes (limit {MAX_SKILL_TOTAL_SIZE})")
            }
        }
    }
}

impl std::error::Error for SkillError {}

/// One skill (`Skill`), as `skills/list` and `skills/get` return it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Skill {
    /// The resource URI of the skill's `SKILL.md`.
    pub uri: String,
    /// The `SKILL.md` frontmatter, verbatim.
    pub frontmatter: SkillFrontmatter,
    /// The skill's files, or `"dynamic"`.
    pub resources: SkillResources,
}

impl Skill {
    /// A skill entry with only `name` and `description` in its frontmatter.
    pub fn new(
        uri: impl Into<String>,
        name: impl Into<String>,
        description: impl Into<String>,
        resources: SkillResources,
    ) -> Self {
        Self {
            uri: uri.into(),
            frontmatter: SkillFrontmatter {
                name: name.into(),
                description: description.into(),
                other: Default::default(),
            },
            resources,
        }
    }

    /// The skill's root directory URI: `uri` without `/SKILL.md` (no trailing slash).
    pub fn root_uri(&self) -> Option<&str> {
        self.uri
            .strip_suffix(SKILL_MD)
            .and_then(|r| r.strip_suffix('/'))
            .filter(|r| !r.is_empty())
    }

    /// The number of files and their total size; `None` for `"dynamic"`.
    pub fn totals(&self) -> Option<(usize, u64)> {
        match &self.resources {
            SkillResources::Files(files) => Some((
                files.len(),
                files.iter().fold(0u64, |acc, f| acc.saturating_add(f.size)),
            )),
            SkillResources::Dynamic => None,
        }
    }

    /// Checks the per-skill limits (512 files, 16 MiB); a `"dynamic"` skill passes.
    pub fn check_limits(&self) -> Result<(), SkillError> {
        let Some((count, total)) = self.totals() else {
            return Ok(());
        };
        if count > MAX_SKILL_RESOURCES {
            return Err(SkillError::TooManyResources { count });
        }
        if total > MAX_SKILL_TOTAL_SIZE {
            return Err(SkillError::TooLarge { total });
        }
        Ok(())
    }

    /// Checks the rules an entry can be checked against on its own: the URI names a
    /// `SKILL.md` whose directory is named like the skill, every digest is well formed, the
    /// manifest lists `SKILL.md`, and the limits hold.
    pub fn validate(&self) -> Result<(), SkillError> {
        let root = self.root_uri().ok_or(SkillError::NotSkillMdUri)?;
        let last = root.rsplit('/').next().unwrap_or(root);
        if last != self.frontmatter.name {
            return Err(SkillError::NameMismatch);
        }
        if let SkillResources::Files(files) = &self.resources {
            if let Some(bad) = files.iter().find(|f| !f.has_valid_digest()) {
                return Err(SkillError::InvalidDigest {
                    uri: bad.uri.clone(),
                });
            }
            if !files.iter().any(|f| f.uri == self.uri) {
                return Err(SkillError::MissingSkillMd);
            }
        }
        self.check_limits()
    }
}

impl Adapt for Skill {
    fn adapt(&mut self, _rev: ProtocolVersion) {}
}

/// `skills/list` params (`ListSkillsRequest.params`, a `PaginatedRequest`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListSkillsParams {
    /// Request metadata (the 2026 per-request envelope).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Where to continue.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<Cursor>,
}

impl ListSkillsParams {
    /// `skills/list`.
    pub const METHOD: &'static str = "skills/list";
}

impl Adapt for ListSkillsParams {
    fn adapt(&mut self, _rev: ProtocolVersion) {}
}

/// The answer to `skills/list` (`ListSkillsResult`: paginated and cacheable).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListSkillsResult {
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// `"complete"` (filled when shaping).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The skills of this page (may be empty or partial).
    pub skills: Vec<Skill>,
    /// Where the next page starts, if there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
    /// Freshness hint in milliseconds (required; filled with 0 when shaping).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "super::lenient_ttl"
    )]
    pub ttl_ms: Option<u64>,
    /// Who may reuse the listing (required; filled with `private` when shaping).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
}

impl Adapt for ListSkillsResult {
    fn adapt(&mut self, rev: ProtocolVersion) {
        shape_result_type(&mut self.result_type, rev);
        shape_cache(&mut self.ttl_ms, &mut self.cache_scope, rev);
        self.skills.adapt(rev);
    }
}

/// `skills/get` params (`GetSkillRequest.params`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetSkillParams {
    /// Request metadata (the 2026 per-request envelope).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The URI of the skill's `SKILL.md`.
    pub uri: String,
}

impl GetSkillParams {
    /// `skills/get`.
    pub const METHOD: &'static str = "skills/get";

    /// Params for the skill at `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        Self {
            meta: None,
            uri: uri.into(),
        }
    }
}

impl Adapt for GetSkillParams {
    fn adapt(&mut self, _rev: ProtocolVersion) {}
}

/// The answer to `skills/get` (`GetSkillResult`: cacheable, no cursor).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetSkillResult {
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// `"complete"` (filled when shaping).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The skill.
    pub skill: Skill,
    /// Freshness hint in milliseconds (required; filled with 0 when shaping).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "super::lenient_ttl"
    )]
    pub ttl_ms: Option<u64>,
    /// Who may reuse the entry (required; filled with `private` when shaping).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
}

impl GetSkillResult {
    /// The result for `skill`, without cache hints.
    pub fn new(skill: Skill) -> Self {
        Self {
            meta: None,
            result_type: None,
            skill,
            ttl_ms: None,
            cache_scope: None,
        }
    }
}

impl Adapt for GetSkillResult {
    fn adapt(&mut self, rev: ProtocolVersion) {
        shape_result_type(&mut self.result_type, rev);
        shape_cache(&mut self.ttl_ms, &mut self.cache_scope, rev);
        self.skill.adapt(rev);
    }
}

/// `resources/directory/read` params (`ReadResourceDirectoryRequest.params`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadResourceDirectoryParams {
    /// Request metadata (the 2026 per-request envelope).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The directory resource's URI (no trailing slash).
    pub uri: String,
    /// Where to continue.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<Cursor>,
}

impl ReadResourceDirectoryParams {
    /// `resources/directory/read`.
    pub const METHOD: &'static str = "resources/directory/read";

    /// Params for the directory at `uri`; a trailing slash is removed.
    pub fn new(uri: impl Into<String>) -> Self {
        Self {
            meta: None,
            uri: directory_uri(uri.into()),
            cursor: None,
        }
    }
}

impl Adapt for ReadResourceDirectoryParams {
    fn adapt(&mut self, _rev: ProtocolVersion) {}
}

/// The answer to `resources/directory/read` (`ReadResourceDirectoryResult`, paginated, not
/// cacheable): the directory's direct children; subdirectories have
/// `mimeType: "inode/directory"`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadResourceDirectoryResult {
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// `"complete"` (filled when shaping).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The direct children.
    pub resources: Vec<Resource>,
    /// Where the next page starts, if there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
}

impl Adapt for ReadResourceDirectoryResult {
    fn adapt(&mut self, rev: ProtocolVersion) {
        shape_result_type(&mut self.result_type, rev);
        self.resources.adapt(rev);
    }
}

/// `uri` without trailing slashes (directory URIs are written without one).
pub fn directory_uri(uri: impl Into<String>) -> String {
    let mut uri = uri.into();
    while uri.len() > 1 && uri.ends_with('/') && !uri.ends_with("://") {
        uri.pop();
    }
    uri
}

/// A directory resource: `mimeType: "inode/directory"`, URI without trailing slash.
pub fn directory_resource(uri: impl Into<String>, name: impl Into<String>) -> Resource {
    Resource {
        mime_type: Some(DIRECTORY_MIME_TYPE.to_owned()),
        ..Resource::new(directory_uri(uri), name)
    }
}

/// Whether `resource` is a directory resource.
pub fn is_directory(resource: &Resource) -> bool {
    resource.mime_type.as_deref() == Some(DIRECTORY_MIME_TYPE)
}
