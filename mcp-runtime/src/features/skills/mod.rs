//! The skills extension (`io.modelcontextprotocol/skills`, SEP-2640): a tree of Agent
//! Skills served as `skill://` resources, with `skills/list`, `skills/get` and
//! `resources/directory/read`.
//!
//! A [`SkillSet`] is loaded once, from a directory ([`SkillSet::from_dir`]) or from files
//! compiled into the binary ([`SkillSet::from_embedded`]), and handed to
//! [`ServerBuilder::skills`](crate::ServerBuilder::skills). Every folder holding a
//! `SKILL.md` is a skill; its path under the root is the skill path, whose last segment must
//! equal the frontmatter `name`. The bytes are kept in memory, so the digests and sizes a
//! listing advertises are those of the bytes `resources/read` returns, and nothing outside
//! the loaded tree can ever be read: a request naming `..`, an absolute path or any file not
//! loaded is an error, and loading refuses symbolic links that resolve outside the root.
//!
//! ```
//! use mcp_runtime::skills::{EmbeddedFile, SkillSet};
//!
//! static FILES: &[EmbeddedFile] = &[EmbeddedFile::new(
//!     "git-workflow/SKILL.md",
//!     b"---\nname: git-workflow\ndescription: Follow the team's Git conventions\n---\nRebase, never merge.\n",
//! )];
//! let skills = SkillSet::from_embedded(FILES).unwrap();
//! assert_eq!(skills.skills()[0].uri, "skill://git-workflow/SKILL.md");
//! ```

mod frontmatter;
mod load;
pub(crate) mod serve;

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};

use mcp_core::types::{
    BlobResourceContents, Resource, ResourceContents, SKILL_MD, Skill, SkillResource,
    SkillResources, SkillsExtensionSettings, TextResourceContents, directory_resource,
};
use sha2::{Digest, Sha256};

use load::RawFile;

/// The URI scheme skills are served under.
pub const SCHEME: &str = "skill://";

/// A file compiled into the binary, e.g. with `include_bytes!`.
#[derive(Debug, Clone, Copy)]
pub struct EmbeddedFile {
    /// The `/`-separated path under the skills root, e.g. `git-workflow/SKILL.md`.
    pub path: &'static str,
    /// The file's bytes.
    pub contents: &'static [u8],
}

impl EmbeddedFile {
    /// A file at `path` with `contents`.
    pub const fn new(path: &'static str, contents: &'static [u8]) -> Self {
        Self { path, contents }
    }
}

/// Why a skill tree could not be loaded. Nothing is served from a tree that fails.
#[derive(Debug)]
#[non_exhaustive]
pub enum SkillsError {
    /// A file or directory could not be read.
    Io {
        /// Where.
        path: PathBuf,
        /// What happened.
        error: std::io::Error,
    },
    /// A path is not a plain relative path inside the root.
    InvalidPath {
        /// The path as given.
        path: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A symbolic link resolves outside the skills root.
    Escape {
        /// The link.
        path: PathBuf,
    },
    /// A symbolic link leads back into a directory being read.
    SymlinkCycle {
        /// The link.
        path: PathBuf,
    },
    /// Two embedded files have the same path.
    Duplicate {
        /// The path.
        path: String,
    },
    /// A skill breaks a rule of the extension or of the Agent Skills format.
    InvalidSkill {
        /// The skill's `SKILL.md` path under the root.
        path: String,
        /// What is wrong.
        reason: String,
    },
}

impl fmt::Display for SkillsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Io { path, error } => write!(f, "{}: {error}", path.display()),
            Self::InvalidPath { path, reason } => {
                write!(f, "invalid skill path {path:?}: {reason}")
            }
            Self::Escape { path } => write!(
                f,
                "{}: symbolic link resolves outside the skills root",
                path.display()
            ),
            Self::SymlinkCycle { path } => {
                write!(f, "{}: symbolic link forms a cycle", path.display())
            }
            Self::Duplicate { path } => write!(f, "{path}: given twice"),
            Self::InvalidSkill { path, reason } => write!(f, "{path}: {reason}"),
        }
    }
}

impl std::error::Error for SkillsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Io { error, .. } => Some(error),
            _ => None,
        }
    }
}

/// One served file.
struct File {
    bytes: Cow<'static, [u8]>,
    /// Its `Resource` metadata (for `SKILL.md`: the skill's name and description).
    resource: Resource,
}

/// A loaded tree of skills: the catalog, the files and their digests.
pub struct SkillSet {
    /// By URI path (the URI without `skill://`), sorted, so a directory's children are one
    /// contiguous range.
    files: BTreeMap<String, File>,
    /// Sorted by URI.
    skills: Vec<Skill>,
    by_uri: HashMap<String, usize>,
    /// The `SKILL.md` resources, for `resources/list`.
    listed: Vec<Resource>,
    directory_read: bool,
}

impl fmt::Debug for SkillSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SkillSet")
            .field(
                "skills",
                &self.skills.iter().map(|s| &s.uri).collect::<Vec<_>>(),
            )
            .field("files", &self.files.len())
            .field("directory_read", &self.directory_read)
            .finish()
    }
}

impl SkillSet {
    /// Loads every skill under `root`. Hidden entries (`.git`, `.DS_Store`, ...) are skipped;
    /// files outside any skill folder are not served.
    pub fn from_dir(root: impl AsRef<Path>) -> Result<Self, SkillsError> {
        Self::build(load::walk(root.as_ref())?)
    }

    /// Loads skills from files compiled into the binary.
    pub fn from_embedded(files: &'static [EmbeddedFile]) -> Result<Self, SkillsError> {
        Self::from_files(
            files
                .iter()
                .map(|f| (f.path.to_owned(), Cow::Borrowed(f.contents))),
        )
    }

    /// Loads skills from `(path, bytes)` pairs, paths `/`-separated under the root.
    pub fn from_files(
        files: impl IntoIterator<Item = (String, Cow<'static, [u8]>)>,
    ) -> Result<Self, SkillsError> {
        let raw = files
            .into_iter()
            .map(|(path, bytes)| {
                Ok(RawFile {
                    segments: load::segments(&path)?,
                    bytes,
                })
            })
            .collect::<Result<Vec<_>, SkillsError>>()?;
        Self::build(raw)
    }

    /// Whether to serve `resources/directory/read` (on by default).
    pub fn directory_read(mut self, on: bool) -> Self {
        self.directory_read = on;
        self
    }

    /// The skills, sorted by URI.
    pub fn skills(&self) -> &[Skill] {
        &self.skills
    }

    /// The skill whose `SKILL.md` is at `uri`.
    pub fn get(&self, uri: &str) -> Option<&Skill> {
        self.by_uri.get(uri).map(|&i| &self.skills[i])
    }

    /// The settings advertised under `capabilities.extensions`.
    pub fn settings(&self) -> SkillsExtensionSettings {
        SkillsExtensionSettings {
            directory_read: self.directory_read.then_some(true),
        }
    }

    /// Whether `resources/directory/read` is served.
    pub fn serves_directory_read(&self) -> bool {
        self.directory_read
    }

    /// The `SKILL.md` resources, for `resources/list`.
    pub fn listed_resources(&self) -> &[Resource] {
        &self.listed
    }

    /// The contents of the file at `uri`: `Ok(None)` when no such file is served,
    /// `Err` when the URI tries to leave the root.
    pub fn read(&self, uri: &str) -> Result<Option<ResourceContents>, PathEscape> {
        let path = uri_path(uri)?;
        Ok(self.files.get(path).map(|f| contents(uri, f)))
    }

    /// The direct children of the directory at `uri` (subdirectories as directory
    /// resources); `Ok(None)` when `uri` is not a served directory.
    pub fn read_directory(&self, uri: &str) -> Result<Option<Vec<Resource>>, PathEscape> {
        let dir = uri_path(uri.strip_suffix('/').unwrap_or(uri))?;
        let prefix = format!("{dir}/");
        let mut children: Vec<Resource> = Vec::new();
        let mut last_dir: Option<&str> = None;
        for (path, file) in self.files.range(prefix.clone()..) {
            let Some(rest) = path.strip_prefix(&prefix) else {
                break;
            };
            match rest.split_once('/') {
                None => children.push(file.resource.clone()),
                Some((sub, _)) if last_dir != Some(sub) => {
                    last_dir = Some(sub);
                    children.push(directory_resource(
                        format!("{SCHEME}{prefix}{sub}"),
                        decode(sub),
                    ));
                }
                Some(_) => {}
            }
        }
        Ok((!children.is_empty()).then_some(children))
    }

    fn build(raw: Vec<RawFile>) -> Result<Self, SkillsError> {
        let mut files = BTreeMap::new();
        for f in raw {
            let path = f
                .segments
                .iter()
                .map(|s| encode(s))
                .collect::<Vec<_>>()
                .join("/");
            let name = f.segments.last().cloned().unwrap_or_default();
            let resource = Resource {
                mime_type: Some(mime_type(&name, &f.bytes).to_owned()),
                size: Some(f.bytes.len() as u64),
                ..Resource::new(format!("{SCHEME}{path}"), name)
            };
            let file = File {
                bytes: f.bytes,
                resource,
            };
            if files.insert(path.clone(), file).is_some() {
                return Err(SkillsError::Duplicate { path });
            }
        }
        let skill_dirs: Vec<String> = files
            .keys()
            .filter_map(|p| {
                if p == SKILL_MD {
                    Some(Err(SkillsError::InvalidSkill {
                        path: p.clone(),
                        reason: "a SKILL.md at the root has no skill path: put it in a folder \
                                 named after the skill"
                            .into(),
                    }))
                } else {
                    p.strip_suffix(&format!("/{SKILL_MD}"))
                        .map(|d| Ok(d.to_owned()))
                }
            })
            .collect::<Result<_, _>>()?;
        // Only the files of some skill are served.
        let prefixes: Vec<String> = skill_dirs.iter().map(|d| format!("{d}/")).collect();
        files.retain(|path, _| prefixes.iter().any(|p| path.starts_with(p)));
        let mut skills = Vec::with_capacity(skill_dirs.len());
        for dir in &skill_dirs {
            skills.push(skill_entry(&mut files, dir)?);
        }
        skills.sort_by(|a, b| a.uri.cmp(&b.uri));
        let by_uri = skills
            .iter()
            .enumerate()
            .map(|(i, s)| (s.uri.clone(), i))
            .collect();
        let listed = skills
            .iter()
            .filter_map(|s| files.get(&s.uri[SCHEME.len()..]))
            .map(|f| f.resource.clone())
            .collect();
        Ok(Self {
            files,
            skills,
            by_uri,
            listed,
            directory_read: true,
        })
    }
}

/// The entry of the skill in folder `dir` (a URI path); fills in its `SKILL.md` resource's
/// name and description.
fn skill_entry(files: &mut BTreeMap<String, File>, dir: &str) -> Result<Skill, SkillsError> {
    let md_path = format!("{dir}/{SKILL_MD}");
    let invalid = |reason: String| SkillsError::InvalidSkill {
        path: decode_path(&md_path),
        reason,
    };
    let md = &files[&md_path];
    let text =
        std::str::from_utf8(&md.bytes).map_err(|_| invalid("SKILL.md is not UTF-8".into()))?;
    let frontmatter = frontmatter::parse(text).map_err(invalid)?;
    let folder = decode(dir.rsplit('/').next().unwrap_or(dir));
    if folder != frontmatter.name {
        return Err(invalid(format!(
            "the folder is named {folder:?} but the frontmatter name is {:?}; they must be equal",
            frontmatter.name
        )));
    }
    if !frontmatter::is_valid_name(&frontmatter.name) {
        return Err(invalid(format!(
            "the name {:?} breaks the Agent Skills naming rules (1-64 of a-z, 0-9 and single \
             inner hyphens)",
            frontmatter.name
        )));
    }
    let prefix = format!("{dir}/");
    let resources: Vec<SkillResource> = files
        .range(prefix.clone()..)
        .take_while(|(p, _)| p.starts_with(&prefix))
        .map(|(_, f)| SkillResource {
            uri: f.resource.uri.clone(),
            digest: digest(&f.bytes),
            size: f.bytes.len() as u64,
        })
        .collect();
    let skill = Skill {
        uri: format!("{SCHEME}{md_path}"),
        frontmatter,
        resources: SkillResources::Files(resources),
    };
    skill.validate().map_err(|e| invalid(e.to_string()))?;
    let md = files.get_mut(&md_path).expect("present");
    md.resource.name = skill.frontmatter.name.clone();
    md.resource.description = Some(skill.frontmatter.description.clone());
    md.resource.mime_type = Some("text/markdown".into());
    Ok(skill)
}

/// A URI that tries to leave the skills root (`..`, `.`, an empty segment or an encoded
/// separator).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathEscape(pub String);

impl fmt::Display for PathEscape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} leaves the skills root", self.0)
    }
}

impl std::error::Error for PathEscape {}

/// The path part of a `skill://` URI (the key of [`SkillSet::files`]), checked for escapes.
/// A URI of another scheme gives the empty path, which names nothing.
fn uri_path(uri: &str) -> Result<&str, PathEscape> {
    let Some(path) = uri.strip_prefix(SCHEME) else {
        return Ok("");
    };
    let escapes = path.split('/').any(|seg| {
        let lower = seg.to_ascii_lowercase();
        seg.is_empty()
            || matches!(decode(seg).as_str(), "." | "..")
            || lower.contains("%2f")
            || lower.contains("%5c")
            || seg.contains('\\')
    });
    if escapes {
        return Err(PathEscape(uri.to_owned()));
    }
    Ok(path)
}

/// `sha256:` and the lowercase hex SHA-256 of `bytes`.
pub fn digest(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for b in hash.iter() {
        out.push(char::from_digit(u32::from(b >> 4), 16).expect("nibble"));
        out.push(char::from_digit(u32::from(b & 15), 16).expect("nibble"));
    }
    out
}

fn contents(uri: &str, f: &File) -> ResourceContents {
    let mime = f.resource.mime_type.clone();
    match std::str::from_utf8(&f.bytes) {
        Ok(text) if !is_binary_mime(mime.as_deref().unwrap_or("")) => {
            ResourceContents::Text(TextResourceContents {
                uri: uri.to_owned(),
                mime_type: mime,
                text: text.to_owned(),
                meta: None,
            })
        }
        _ => ResourceContents::Blob(BlobResourceContents {
            mime_type: mime,
            ..match ResourceContents::blob(uri, &f.bytes) {
                ResourceContents::Blob(b) => b,
                ResourceContents::Text(_) => unreachable!("blob() builds a blob"),
            }
        }),
    }
}

fn is_binary_mime(mime: &str) -> bool {
    ["image/", "audio/", "video/", "font/"]
        .iter()
        .any(|p| mime.starts_with(p) && mime != "image/svg+xml")
        || matches!(
            mime,
            "application/pdf" | "application/zip" | "application/gzip" | "application/octet-stream"
        )
}

/// The MIME type of a file, from its extension; unknown text is `text/plain`, unknown
/// binary `application/octet-stream`.
fn mime_type(name: &str, bytes: &[u8]) -> &'static str {
    let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    match ext.as_deref() {
        Some("md" | "markdown") => "text/markdown",
        Some("txt") => "text/plain",
        Some("html" | "htm") => "text/html",
        Some("css") => "text/css",
        Some("csv") => "text/csv",
        Some("json") => "application/json",
        Some("yaml" | "yml") => "application/yaml",
        Some("toml") => "application/toml",
        Some("xml") => "application/xml",
        Some("js" | "mjs") => "text/javascript",
        Some("ts") => "text/x-typescript",
        Some("py") => "text/x-python",
        Some("rs") => "text/x-rust",
        Some("sh" | "bash") => "application/x-sh",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("webp") => "image/webp",
        Some("pdf") => "application/pdf",
        Some("zip") => "application/zip",
        Some("gz") => "application/gzip",
        Some("wav") => "audio/wav",
        Some("mp3") => "audio/mpeg",
        _ if std::str::from_utf8(bytes).is_ok() => "text/plain",
        _ => "application/octet-stream",
    }
}

/// Percent-encodes what a URI path segment may not hold as is.
fn encode(segment: &str) -> Cow<'_, str> {
    let keep = |b: u8| b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@".contains(&b);
    if segment.bytes().all(keep) {
        return Cow::Borrowed(segment);
    }
    let mut out = String::with_capacity(segment.len() + 8);
    for b in segment.bytes() {
        if keep(b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    Cow::Owned(out)
}

/// Undoes [`encode`] (invalid escapes stay as written).
fn decode(segment: &str) -> String {
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(v) = segment
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| segment.to_owned())
}

fn decode_path(path: &str) -> String {
    path.split('/').map(decode).collect::<Vec<_>>().join("/")
}
