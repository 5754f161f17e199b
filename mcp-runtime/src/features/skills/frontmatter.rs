//! The YAML frontmatter of a `SKILL.md`, rendered as the JSON object the extension puts in
//! every skill entry, and the Agent Skills naming rules.

use mcp_core::types::SkillFrontmatter;
use serde_json::{Map, Value};
use yaml_rust2::{Yaml, YamlLoader};

/// The longest `description` the Agent Skills specification allows, in characters.
const MAX_DESCRIPTION: usize = 1024;

/// The frontmatter block of `text`: what lies between an opening `---` line at the very
/// start (after an optional byte-order mark) and the next `---` line.
fn block(text: &str) -> Option<&str> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))?;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if bare.trim_end_matches([' ', '\t']) == "---" {
            return Some(rest[..offset].trim_end_matches(['\n', '\r']));
        }
        offset += line.len();
    }
    None
}

/// Parses the frontmatter of a `SKILL.md`: a YAML mapping with string `name` and a
/// non-empty string `description`; every other field passes through as written.
pub(crate) fn parse(text: &str) -> Result<SkillFrontmatter, String> {
    let yaml = block(text).ok_or("SKILL.md does not begin with a `---` frontmatter block")?;
    let docs = YamlLoader::load_from_str(yaml).map_err(|e| format!("invalid YAML: {e}"))?;
    let value = match docs.as_slice() {
        [doc] => to_json(doc)?,
        [] => Value::Null,
        _ => return Err("the frontmatter holds more than one YAML document".into()),
    };
    let Value::Object(mut map) = value else {
        return Err("the frontmatter is not a YAML mapping".into());
    };
    let name = take_string(&mut map, "name")?;
    let description = take_string(&mut map, "description")?;
    if description.is_empty() {
        return Err("`description` is empty".into());
    }
    if description.chars().count() > MAX_DESCRIPTION {
        return Err(format!(
            "`description` is longer than {MAX_DESCRIPTION} characters"
        ));
    }
    Ok(SkillFrontmatter {
        name,
        description,
        other: map,
    })
}

fn take_string(map: &mut Map<String, Value>, key: &str) -> Result<String, String> {
    match map.remove(key) {
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(format!("`{key}` is not a string")),
        None => Err(format!("`{key}` is missing")),
    }
}

/// YAML (core schema, as parsed) to JSON. Keys must be scalars; they become strings.
fn to_json(y: &Yaml) -> Result<Value, String> {
    Ok(match y {
        Yaml::Null => Value::Null,
        Yaml::Boolean(b) => Value::Bool(*b),
        Yaml::Integer(i) => Value::from(*i),
        Yaml::Real(r) => {
            let f = y
                .as_f64()
                .filter(|f| f.is_finite())
                .ok_or_else(|| format!("the number {r} has no JSON form"))?;
            Value::from(f)
        }
        Yaml::String(s) => Value::String(s.clone()),
        Yaml::Array(items) => Value::Array(items.iter().map(to_json).collect::<Result<_, _>>()?),
        Yaml::Hash(h) => {
            let mut map = Map::new();
            for (k, v) in h {
                let key = match k {
                    Yaml::String(s) => s.clone(),
                    Yaml::Integer(i) => i.to_string(),
                    Yaml::Real(r) => r.clone(),
                    Yaml::Boolean(b) => b.to_string(),
                    _ => return Err("a mapping key is not a scalar".into()),
                };
                if map.insert(key.clone(), to_json(v)?).is_some() {
                    return Err(format!("the key `{key}` appears twice"));
                }
            }
            Value::Object(map)
        }
        Yaml::Alias(_) | Yaml::BadValue => return Err("unsupported YAML (alias)".into()),
    })
}

/// The Agent Skills naming rules: 1-64 characters of lowercase letters, digits and
/// hyphens, no leading, trailing or doubled hyphen.
pub(crate) fn is_valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_name_description_and_passes_the_rest_through() {
        let fm = parse(
            "---\nname: pdf-tools\ndescription: \"Fill: forms\"\nlicense: MIT\nmetadata:\n  version: 2\n  tags: [a, b]\n---\n# Body\n",
        )
        .unwrap();
        assert_eq!(fm.name, "pdf-tools");
        assert_eq!(fm.description, "Fill: forms");
        assert_eq!(fm.other["license"], "MIT");
        assert_eq!(
            fm.other["metadata"],
            serde_json::json!({"version": 2, "tags": ["a", "b"]})
        );
    }

    #[test]
    fn accepts_bom_crlf_and_folded_scalars() {
        let fm = parse("\u{feff}---\r\nname: a\r\ndescription: >\r\n  two\r\n  lines\r\n---  \r\n")
            .unwrap();
        assert_eq!(fm.description, "two lines\n");
    }

    #[test]
    fn rejects_what_is_not_a_frontmatter() {
        for (text, why) in [
            ("# no frontmatter\n", "does not begin"),
            ("---\nname: a\ndescription: b\n", "does not begin"),
            ("---\n- a\n- b\n---\n", "not a YAML mapping"),
            ("---\ndescription: b\n---\n", "`name` is missing"),
            ("---\nname: a\n---\n", "`description` is missing"),
            (
                "---\nname: 3\ndescription: b\n---\n",
                "`name` is not a string",
            ),
            ("---\nname: a\ndescription: ''\n---\n", "empty"),
            ("---\nname: a\ndescription: [b\n---\n", "invalid YAML"),
            (
                "---\nname: a\nname: b\ndescription: c\n---\n",
                "duplicated key",
            ),
            (
                "---\nname: a\ndescription: c\n1: x\n'1': y\n---\n",
                "appears twice",
            ),
            (
                "---\nname: a\ndescription: b\nx: .inf\n---\n",
                "no JSON form",
            ),
        ] {
            let err = parse(text).unwrap_err();
            assert!(err.contains(why), "{text:?}: {err}");
        }
        let long = format!("---\nname: a\ndescription: {}\n---\n", "x".repeat(1025));
        assert!(parse(&long).unwrap_err().contains("longer than"));
    }

    #[test]
    fn naming_rules() {
        for ok in ["a", "pdf-processing", "a1-b2", &"x".repeat(64)] {
            assert!(is_valid_name(ok), "{ok}");
        }
        for bad in ["", "-a", "a-", "a--b", "PDF", "a_b", "a.b", &"x".repeat(65)] {
            assert!(!is_valid_name(bad), "{bad}");
        }
    }
}
