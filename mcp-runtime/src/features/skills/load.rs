//! Collecting a skill tree's files, from a directory or from embedded paths, without ever
//! leaving the root: relative paths only, no `.`/`..` segments, no symbolic link that
//! resolves outside the root, no cycle.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use super::SkillsError;

/// One file of the tree: its `/`-separated path under the root and its bytes.
pub(crate) struct RawFile {
    pub(crate) segments: Vec<String>,
    pub(crate) bytes: Cow<'static, [u8]>,
}

/// Splits a relative `/`-separated path into checked segments.
pub(crate) fn segments(path: &str) -> Result<Vec<String>, SkillsError> {
    let bad = |reason: &'static str| SkillsError::InvalidPath {
        path: path.to_owned(),
        reason,
    };
    if path.starts_with('/') || Path::new(path).is_absolute() {
        return Err(bad("absolute paths are not allowed"));
    }
    if path.contains('\\') {
        return Err(bad("use `/` as the separator"));
    }
    let mut out = Vec::new();
    for seg in path.split('/') {
        match seg {
            "" => return Err(bad("empty path segment")),
            "." | ".." => return Err(bad("`.` and `..` segments are not allowed")),
            s if s.chars().any(char::is_control) => {
                return Err(bad("control characters are not allowed"));
            }
            s => out.push(s.to_owned()),
        }
    }
    Ok(out)
}

/// Every file under `root` (hidden entries, whose name starts with `.`, are skipped).
pub(crate) fn walk(root: &Path) -> Result<Vec<RawFile>, SkillsError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |error| SkillsError::Io { path, error }
    };
    let canonical_root = root.canonicalize().map_err(io(root))?;
    if !canonical_root.is_dir() {
        return Err(SkillsError::Io {
            path: root.to_path_buf(),
            error: std::io::Error::new(std::io::ErrorKind::NotADirectory, "not a directory"),
        });
    }
    let mut files = Vec::new();
    let mut stack = vec![canonical_root.clone()];
    visit(
        &canonical_root,
        &canonical_root,
        &mut Vec::new(),
        &mut stack,
        &mut files,
    )?;
    Ok(files)
}

fn visit(
    root: &Path,
    dir: &Path,
    prefix: &mut Vec<String>,
    stack: &mut Vec<PathBuf>,
    files: &mut Vec<RawFile>,
) -> Result<(), SkillsError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |error| SkillsError::Io { path, error }
    };
    let mut entries = std::fs::read_dir(dir)
        .map_err(io(dir))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(io(dir))?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
            return Err(SkillsError::InvalidPath {
                path: path.display().to_string(),
                reason: "file names must be UTF-8",
            });
        };
        if name.starts_with('.') {
            continue;
        }
        // Resolve links; whatever they name must stay inside the root.
        let target = path.canonicalize().map_err(io(&path))?;
        if !target.starts_with(root) {
            return Err(SkillsError::Escape { path });
        }
        let meta = std::fs::metadata(&target).map_err(io(&path))?;
        prefix.push(name);
        if meta.is_dir() {
            if stack.contains(&target) {
                return Err(SkillsError::SymlinkCycle { path });
            }
            stack.push(target.clone());
            visit(root, &target, prefix, stack, files)?;
            stack.pop();
        } else if meta.is_file() {
            let bytes = std::fs::read(&target).map_err(io(&path))?;
            files.push(RawFile {
                segments: prefix.clone(),
                bytes: Cow::Owned(bytes),
            });
        }
        prefix.pop();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_reject_escapes() {
        assert_eq!(segments("a/b/SKILL.md").unwrap(), ["a", "b", "SKILL.md"]);
        for bad in [
            "/etc/passwd",
            "../x",
            "a/../../x",
            "a/./b",
            "a//b",
            "a\\b",
            "",
            "a/",
            "a\u{0}b",
        ] {
            assert!(segments(bad).is_err(), "{bad:?}");
        }
    }
}
