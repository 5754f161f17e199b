//! The skills extension (`io.modelcontextprotocol/skills`): listing, get, directory read,
//! digests and sizes, the `skill://` files through `resources/read`, path escapes, loading
//! errors, and the capability advertised only when configured.

mod support;

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use mcp::prelude::*;
use mcp::skills::{EmbeddedFile, SkillSet, SkillsError};
use serde_json::{Value, json};
use support::{Wire, code, modern};

/// SHA-256 of `abc` (FIPS 180-2 test vector).
const SHA256_ABC: &str = "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

const PDF_MD: &str = "---\nname: pdf\ndescription: Work with PDF files\nlicense: MIT\nmetadata:\n  version: \"1.2\"\n---\n# PDF\n";
const REFUNDS_MD: &str = "---\nname: refunds\ndescription: Process refunds\n---\nBody\n";

/// A fresh directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> Self {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let p = std::env::temp_dir().join(format!(
            "mcp-skills-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Self(p)
    }

    fn write(&self, rel: &str, bytes: &[u8]) -> PathBuf {
        let p = self.0.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, bytes).unwrap();
        p
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The tree most tests use: `pdf` with a text file, a binary file and a subdirectory, and
/// `acme/billing/refunds` (a prefixed skill).
fn sample_tree() -> TempDir {
    let t = TempDir::new("tree");
    t.write("pdf/SKILL.md", PDF_MD.as_bytes());
    t.write("pdf/abc.txt", b"abc");
    t.write("pdf/img/pixel.png", &[0x89, b'P', b'N', b'G', 0xff, 0x00]);
    t.write("pdf/.hidden", b"never served");
    t.write("acme/billing/refunds/SKILL.md", REFUNDS_MD.as_bytes());
    t.write("README.md", b"outside any skill");
    t
}

fn server(skills: SkillSet) -> Wire {
    let server = Server::builder("skills", "1.0.0").skills(skills).build();
    Wire::new(server.serve_in_memory())
}

async fn call(w: &mut Wire, id: i64, method: &str, params: Value) -> Value {
    w.request(json!(id), method, modern(params)).await
}

fn entry<'a>(list: &'a Value, uri: &str) -> &'a Value {
    list["result"]["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["uri"] == uri)
        .unwrap_or_else(|| panic!("no {uri} in {list}"))
}

#[tokio::test]
async fn list_gives_complete_entries_with_digests_and_sizes() {
    let t = sample_tree();
    let mut w = server(SkillSet::from_dir(t.path()).unwrap());
    let r = call(&mut w, 1, "skills/list", json!({})).await;
    let skills = r["result"]["skills"].as_array().unwrap();
    let uris: Vec<&str> = skills.iter().map(|s| s["uri"].as_str().unwrap()).collect();
    assert_eq!(
        uris,
        [
            "skill://acme/billing/refunds/SKILL.md",
            "skill://pdf/SKILL.md"
        ]
    );
    assert_eq!(r["result"]["resultType"], "complete");
    assert!(r["result"]["ttlMs"].is_u64() && r["result"]["cacheScope"].is_string());

    let pdf = entry(&r, "skill://pdf/SKILL.md");
    assert_eq!(
        pdf["frontmatter"],
        json!({"name": "pdf", "description": "Work with PDF files", "license": "MIT",
               "metadata": {"version": "1.2"}})
    );
    let files = pdf["resources"].as_array().unwrap();
    let file_uris: Vec<&str> = files.iter().map(|f| f["uri"].as_str().unwrap()).collect();
    assert_eq!(
        file_uris,
        [
            "skill://pdf/SKILL.md",
            "skill://pdf/abc.txt",
            "skill://pdf/img/pixel.png"
        ],
        "hidden files are not served"
    );
    let abc = &files[1];
    assert_eq!(abc["digest"], SHA256_ABC);
    assert_eq!(abc["size"], 3);
    assert_eq!(files[0]["size"], PDF_MD.len());
    assert_eq!(files[2]["size"], 6);
    for f in files {
        let d = f["digest"].as_str().unwrap();
        assert!(mcp::types::is_valid_sha256_digest(d), "{d}");
    }
}

#[tokio::test]
async fn list_pages_never_split_an_entry() {
    let t = sample_tree();
    let server = Server::builder("skills", "1.0.0")
        .page_size(1)
        .skills(SkillSet::from_dir(t.path()).unwrap())
        .build();
    let mut w = Wire::new(server.serve_in_memory());
    let first = call(&mut w, 1, "skills/list", json!({})).await;
    assert_eq!(first["result"]["skills"].as_array().unwrap().len(), 1);
    let cursor = first["result"]["nextCursor"].as_str().unwrap().to_owned();
    let second = call(&mut w, 2, "skills/list", json!({"cursor": cursor})).await;
    assert_eq!(second["result"]["skills"][0]["uri"], "skill://pdf/SKILL.md");
    assert_eq!(
        second["result"]["skills"][0]["resources"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    assert!(second["result"].get("nextCursor").is_none());
    let bad = call(&mut w, 3, "skills/list", json!({"cursor": "garbage"})).await;
    assert_eq!(code(&bad), -32602);
}

#[tokio::test]
async fn get_returns_the_listed_entry_and_unknown_uris_are_invalid_params() {
    let t = sample_tree();
    let mut w = server(SkillSet::from_dir(t.path()).unwrap());
    let list = call(&mut w, 1, "skills/list", json!({})).await;
    let r = call(
        &mut w,
        2,
        "skills/get",
        json!({"uri": "skill://pdf/SKILL.md"}),
    )
    .await;
    assert_eq!(&r["result"]["skill"], entry(&list, "skill://pdf/SKILL.md"));
    assert!(r["result"].get("nextCursor").is_none());
    assert!(r["result"]["ttlMs"].is_u64());
    for uri in [
        "skill://nope/SKILL.md",
        "skill://pdf/abc.txt",
        "skill://pdf",
        "file:///pdf/SKILL.md",
    ] {
        let r = call(&mut w, 3, "skills/get", json!({"uri": uri})).await;
        assert_eq!(code(&r), -32602, "{uri}: {r}");
        assert!(r["error"]["message"].as_str().unwrap().contains(uri));
    }
    let r = call(&mut w, 4, "skills/get", json!({})).await;
    assert_eq!(code(&r), -32602, "missing uri: {r}");
}

#[tokio::test]
async fn directory_read_lists_direct_children() {
    let t = sample_tree();
    let mut w = server(SkillSet::from_dir(t.path()).unwrap());
    let r = call(
        &mut w,
        1,
        "resources/directory/read",
        json!({"uri": "skill://pdf"}),
    )
    .await;
    assert_eq!(r["result"]["resultType"], "complete", "{r}");
    let children = r["result"]["resources"].as_array().unwrap();
    let summary: Vec<(&str, &str)> = children
        .iter()
        .map(|c| {
            (
                c["uri"].as_str().unwrap(),
                c["mimeType"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("skill://pdf/SKILL.md", "text/markdown"),
            ("skill://pdf/abc.txt", "text/plain"),
            ("skill://pdf/img", "inode/directory"),
        ]
    );
    assert_eq!(children[1]["size"], 3);
    let img = call(
        &mut w,
        2,
        "resources/directory/read",
        json!({"uri": "skill://pdf/img/"}),
    )
    .await;
    assert_eq!(
        img["result"]["resources"][0]["uri"],
        "skill://pdf/img/pixel.png"
    );
    // Prefix folders above a skill are directories too.
    let acme = call(
        &mut w,
        3,
        "resources/directory/read",
        json!({"uri": "skill://acme"}),
    )
    .await;
    assert_eq!(
        acme["result"]["resources"][0]["uri"],
        "skill://acme/billing"
    );
    assert_eq!(
        acme["result"]["resources"][0]["mimeType"],
        "inode/directory"
    );
    for uri in [
        "skill://pdf/abc.txt",
        "skill://nope",
        "test://pdf",
        "skill://pdf/../acme",
    ] {
        let r = call(&mut w, 4, "resources/directory/read", json!({"uri": uri})).await;
        assert_eq!(code(&r), -32602, "{uri}: {r}");
    }
}

#[tokio::test]
async fn directory_read_pages_round_trip() {
    let t = sample_tree();
    let server = Server::builder("skills", "1.0.0")
        .page_size(2)
        .skills(SkillSet::from_dir(t.path()).unwrap())
        .build();
    let mut w = Wire::new(server.serve_in_memory());
    let p1 = call(
        &mut w,
        1,
        "resources/directory/read",
        json!({"uri": "skill://pdf"}),
    )
    .await;
    assert_eq!(p1["result"]["resources"].as_array().unwrap().len(), 2);
    let cursor = p1["result"]["nextCursor"].as_str().unwrap();
    let p2 = call(
        &mut w,
        2,
        "resources/directory/read",
        json!({"uri": "skill://pdf", "cursor": cursor}),
    )
    .await;
    assert_eq!(p2["result"]["resources"][0]["uri"], "skill://pdf/img");
    assert!(p2["result"].get("nextCursor").is_none());
}

#[tokio::test]
async fn skill_files_are_resources() {
    let t = sample_tree();
    let mut w = server(SkillSet::from_dir(t.path()).unwrap());
    let list = call(&mut w, 1, "resources/list", json!({})).await;
    let listed = list["result"]["resources"].as_array().unwrap();
    let pdf = listed
        .iter()
        .find(|r| r["uri"] == "skill://pdf/SKILL.md")
        .unwrap_or_else(|| panic!("{list}"));
    assert_eq!(pdf["name"], "pdf");
    assert_eq!(pdf["description"], "Work with PDF files");
    assert_eq!(pdf["mimeType"], "text/markdown");
    assert_eq!(
        listed.len(),
        2,
        "only the SKILL.md files are listed: {list}"
    );

    let md = call(
        &mut w,
        2,
        "resources/read",
        json!({"uri": "skill://pdf/SKILL.md"}),
    )
    .await;
    assert_eq!(md["result"]["contents"][0]["text"], PDF_MD);
    assert_eq!(md["result"]["contents"][0]["mimeType"], "text/markdown");
    let png = call(
        &mut w,
        3,
        "resources/read",
        json!({"uri": "skill://pdf/img/pixel.png"}),
    )
    .await;
    let c = &png["result"]["contents"][0];
    assert_eq!(c["mimeType"], "image/png");
    assert_eq!(c["blob"], "iVBOR/8A", "{png}");
    let missing = call(
        &mut w,
        4,
        "resources/read",
        json!({"uri": "skill://pdf/nope.md"}),
    )
    .await;
    assert_eq!(code(&missing), -32602);
    assert_eq!(missing["error"]["data"]["uri"], "skill://pdf/nope.md");
    let outside = call(
        &mut w,
        5,
        "resources/read",
        json!({"uri": "skill://README.md"}),
    )
    .await;
    assert_eq!(
        code(&outside),
        -32602,
        "files outside a skill are not served"
    );
}

#[tokio::test]
async fn legacy_connections_read_skill_files_but_have_no_skill_methods() {
    let t = sample_tree();
    let mut w = server(SkillSet::from_dir(t.path()).unwrap());
    let init = w.initialize("2025-11-25").await;
    assert!(init["capabilities"].get("extensions").is_none(), "{init}");
    assert!(init["capabilities"]["resources"].is_object(), "{init}");
    let r = w
        .request(
            json!(1),
            "resources/read",
            json!({"uri": "skill://pdf/abc.txt"}),
        )
        .await;
    assert_eq!(r["result"]["contents"][0]["text"], "abc");
    let r = w
        .request(
            json!(2),
            "resources/read",
            json!({"uri": "skill://pdf/zzz"}),
        )
        .await;
    assert_eq!(code(&r), -32002, "legacy not-found code");
    let r = w.request(json!(3), "skills/list", json!({})).await;
    assert_eq!(code(&r), -32601);
}

#[tokio::test]
async fn request_paths_never_leave_the_root() {
    let t = sample_tree();
    let mut w = server(SkillSet::from_dir(t.path()).unwrap());
    for uri in [
        "skill://pdf/../acme/billing/refunds/SKILL.md",
        "skill://pdf/./abc.txt",
        "skill:///etc/passwd",
        "skill://pdf//abc.txt",
        "skill://pdf/%2e%2e/README.md",
        "skill://pdf%2fabc.txt",
        "skill://pdf\\abc.txt",
    ] {
        let r = call(&mut w, 1, "resources/read", json!({"uri": uri})).await;
        assert_eq!(code(&r), -32602, "{uri}: {r}");
        assert!(
            r["error"]["message"]
                .as_str()
                .unwrap()
                .contains("leaves the skills root"),
            "{uri}: {r}"
        );
    }
}

#[cfg(unix)]
#[test]
fn loading_refuses_symlinks_out_of_the_root() {
    let outside = TempDir::new("outside");
    let secret = outside.write("secret.txt", b"secret");
    let t = sample_tree();
    std::os::unix::fs::symlink(&secret, t.path().join("pdf/leak.txt")).unwrap();
    match SkillSet::from_dir(t.path()) {
        Err(SkillsError::Escape { path }) => assert!(path.ends_with("pdf/leak.txt")),
        other => panic!("expected an escape error, got {other:?}"),
    }

    // The same for a linked directory, and a link back up forms a cycle.
    let t = sample_tree();
    std::os::unix::fs::symlink(outside.path(), t.path().join("pdf/ext")).unwrap();
    assert!(matches!(
        SkillSet::from_dir(t.path()),
        Err(SkillsError::Escape { .. })
    ));
    let t = sample_tree();
    std::os::unix::fs::symlink(t.path().join("pdf"), t.path().join("pdf/img/up")).unwrap();
    assert!(matches!(
        SkillSet::from_dir(t.path()),
        Err(SkillsError::SymlinkCycle { .. })
    ));
}

#[cfg(unix)]
#[test]
fn symlinks_inside_the_root_are_followed() {
    let t = sample_tree();
    std::os::unix::fs::symlink(t.path().join("pdf/abc.txt"), t.path().join("pdf/again.txt"))
        .unwrap();
    let skills = SkillSet::from_dir(t.path()).unwrap();
    let again = skills.read("skill://pdf/again.txt").unwrap().unwrap();
    assert_eq!(again.uri(), "skill://pdf/again.txt");
}

#[test]
fn embedded_paths_must_be_plain_and_relative() {
    for bad in [
        "../x/SKILL.md",
        "/abs/SKILL.md",
        "a/./SKILL.md",
        "a//SKILL.md",
        "a\\SKILL.md",
    ] {
        let files = vec![(bad.to_owned(), Cow::Borrowed(REFUNDS_MD.as_bytes()))];
        match SkillSet::from_files(files) {
            Err(SkillsError::InvalidPath { path, .. }) => assert_eq!(path, bad),
            other => panic!("{bad}: expected an invalid path, got {other:?}"),
        }
    }
    let twice = vec![
        (
            "refunds/SKILL.md".to_owned(),
            Cow::Borrowed(REFUNDS_MD.as_bytes()),
        ),
        (
            "refunds/SKILL.md".to_owned(),
            Cow::Borrowed(REFUNDS_MD.as_bytes()),
        ),
    ];
    assert!(matches!(
        SkillSet::from_files(twice),
        Err(SkillsError::Duplicate { .. })
    ));
}

#[test]
fn embedded_files_serve_like_a_directory() {
    static FILES: &[EmbeddedFile] = &[
        EmbeddedFile::new("refunds/SKILL.md", REFUNDS_MD.as_bytes()),
        EmbeddedFile::new("refunds/abc.txt", b"abc"),
    ];
    let skills = SkillSet::from_embedded(FILES).unwrap();
    let s = skills.get("skill://refunds/SKILL.md").unwrap();
    let mcp::types::SkillResources::Files(files) = &s.resources else {
        panic!("not a file list");
    };
    assert_eq!(files[1].digest, SHA256_ABC);
    assert_eq!(files[1].size, 3);
}

fn load_one(path: &str, md: &str) -> Result<SkillSet, SkillsError> {
    SkillSet::from_files(vec![(path.to_owned(), Cow::Owned(md.as_bytes().to_vec()))])
}

#[test]
fn invalid_skills_fail_to_load_and_say_why() {
    let cases = [
        ("other/SKILL.md", REFUNDS_MD, "must be equal"),
        ("SKILL.md", REFUNDS_MD, "at the root"),
        ("refunds/SKILL.md", "# no frontmatter\n", "frontmatter"),
        (
            "Bad_Name/SKILL.md",
            "---\nname: Bad_Name\ndescription: x\n---\n",
            "naming rules",
        ),
        (
            "refunds/SKILL.md",
            "---\nname: refunds\n---\n",
            "`description` is missing",
        ),
    ];
    for (path, md, why) in cases {
        let err = load_one(path, md).unwrap_err();
        assert!(
            matches!(err, SkillsError::InvalidSkill { .. }) && err.to_string().contains(why),
            "{path}: {err}"
        );
    }
    let not_utf8 = SkillSet::from_files(vec![(
        "refunds/SKILL.md".to_owned(),
        Cow::Owned(vec![0xff, 0xfe]),
    )]);
    assert!(not_utf8.unwrap_err().to_string().contains("not UTF-8"));
}

#[test]
fn skills_over_the_limits_fail_to_load() {
    let mut files = vec![(
        "big/SKILL.md".to_owned(),
        Cow::Borrowed(b"---\nname: big\ndescription: too many files\n---\n".as_slice()),
    )];
    for i in 0..512 {
        files.push((format!("big/f{i}.txt"), Cow::Borrowed(b"x".as_slice())));
    }
    let err = SkillSet::from_files(files).unwrap_err();
    assert!(err.to_string().contains("513 files"), "{err}");

    let files = vec![
        (
            "big/SKILL.md".to_owned(),
            Cow::Borrowed(b"---\nname: big\ndescription: too large\n---\n".as_slice()),
        ),
        (
            "big/blob.bin".to_owned(),
            Cow::Owned(vec![0u8; 16 * 1024 * 1024]),
        ),
    ];
    let err = SkillSet::from_files(files).unwrap_err();
    assert!(err.to_string().contains("bytes (limit"), "{err}");
}

#[test]
fn nested_skills_are_supporting_files_of_the_enclosing_skill() {
    let t = TempDir::new("nested");
    t.write("outer/SKILL.md", b"---\nname: outer\ndescription: o\n---\n");
    t.write(
        "outer/inner/SKILL.md",
        b"---\nname: inner\ndescription: i\n---\n",
    );
    let skills = SkillSet::from_dir(t.path()).unwrap();
    assert_eq!(skills.skills().len(), 2);
    let outer = skills.get("skill://outer/SKILL.md").unwrap();
    let mcp::types::SkillResources::Files(files) = &outer.resources else {
        panic!("not a file list");
    };
    assert!(
        files
            .iter()
            .any(|f| f.uri == "skill://outer/inner/SKILL.md")
    );
    assert!(skills.get("skill://outer/inner/SKILL.md").is_some());
}

#[tokio::test]
async fn the_extension_is_advertised_only_when_configured() {
    let t = sample_tree();
    let mut w = server(SkillSet::from_dir(t.path()).unwrap());
    let d = call(&mut w, 1, "server/discover", json!({})).await;
    let caps = &d["result"]["capabilities"];
    assert_eq!(
        caps["extensions"]["io.modelcontextprotocol/skills"],
        json!({"directoryRead": true})
    );
    assert!(caps["resources"].is_object());

    let mut w = server(SkillSet::from_dir(t.path()).unwrap().directory_read(false));
    let d = call(&mut w, 1, "server/discover", json!({})).await;
    assert_eq!(
        d["result"]["capabilities"]["extensions"]["io.modelcontextprotocol/skills"],
        json!({})
    );
    let r = call(
        &mut w,
        2,
        "resources/directory/read",
        json!({"uri": "skill://pdf"}),
    )
    .await;
    assert_eq!(code(&r), -32601, "{r}");
    let r = call(&mut w, 3, "skills/list", json!({})).await;
    assert!(r["result"]["skills"].is_array());

    let plain = Server::builder("plain", "1.0.0").build();
    let mut w = Wire::new(plain.serve_in_memory());
    let d = call(&mut w, 1, "server/discover", json!({})).await;
    assert!(
        d["result"]["capabilities"].get("extensions").is_none(),
        "{d}"
    );
    assert!(
        d["result"]["capabilities"].get("resources").is_none(),
        "{d}"
    );
    for m in ["skills/list", "skills/get", "resources/directory/read"] {
        let r = call(&mut w, 2, m, json!({"uri": "skill://pdf/SKILL.md"})).await;
        assert_eq!(code(&r), -32601, "{m}: {r}");
    }
}
