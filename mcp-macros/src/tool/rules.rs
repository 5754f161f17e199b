//! The protocol's rules for what a tool declares: its name, icon sources, `_meta` keys,
//! `x-mcp-header` names and types, `task` support. Pure functions over strings and types.

use syn::Type;

pub use crate::check::reserved;

/// An icon source is an `https:`/`http:` URL with a host, or a `data:` URI.
pub fn icon_src(src: &str) -> Result<(), String> {
    if let Some(rest) = src
        .strip_prefix("https://")
        .or_else(|| src.strip_prefix("http://"))
    {
        if rest.split(['/', '?', '#']).next().is_none_or(str::is_empty) {
            return Err(format!("the icon URL `{src}` has no host"));
        }
        return Ok(());
    }
    if let Some(rest) = src.strip_prefix("data:") {
        if !rest.contains(',') {
            return Err(format!(
                "the icon `data:` URI `{src}` has no data: write `data:<mime>;base64,<data>`"
            ));
        }
        return Ok(());
    }
    Err(format!(
        "an icon source is an `https:` URL or a `data:` URI, not `{src}` \
         (clients fetch it themselves, so a relative path cannot work)"
    ))
}

/// The spec's `_meta` key rules: an optional prefix of dot-separated labels ending in `/`,
/// then a name; prefixes whose labels hold `modelcontextprotocol` or `mcp` are reserved,
/// and so are the W3C trace-context keys.
pub fn meta_key(key: &str) -> Result<(), String> {
    let (prefix, name) = match key.rfind('/') {
        Some(i) => (Some(&key[..i]), &key[i + 1..]),
        None => (None, key),
    };
    let alnum = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    let name_ok = name.is_empty()
        || (alnum(name.chars().next())
            && alnum(name.chars().last())
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')));
    if !name_ok {
        return Err(format!(
            "`{key}` is not a valid `_meta` key: the name after the prefix begins and ends \
             with a letter or digit and holds only letters, digits, `-`, `_` and `.`"
        ));
    }
    if let Some(prefix) = prefix {
        for label in prefix.split('.') {
            let ok = label
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic())
                && alnum(label.chars().last())
                && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
            if !ok {
                return Err(format!(
                    "`{key}` is not a valid `_meta` key: each label of the prefix `{prefix}/` \
                     starts with a letter, ends with a letter or digit, and holds only \
                     letters, digits and `-`"
                ));
            }
        }
        if prefix
            .split('.')
            .any(|l| l == "modelcontextprotocol" || l == "mcp")
        {
            return Err(format!(
                "the `_meta` prefix `{prefix}/` is reserved for the protocol: use a \
                 reverse-DNS prefix of your own, like `com.example/`"
            ));
        }
    } else if matches!(key, "traceparent" | "tracestate" | "baggage") {
        return Err(format!(
            "the `_meta` key `{key}` is reserved for W3C trace context: use a prefixed key \
             like `com.example/{key}`"
        ));
    } else if key.is_empty() {
        return Err("a `_meta` key cannot be empty".into());
    }
    Ok(())
}

/// RFC 9110 `token`: one or more of letters, digits and ``!#$%&'*+-.^_`|~``.
pub fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes().all(|b| {
            b.is_ascii_alphanumeric()
                || matches!(
                    b,
                    b'!' | b'#'
                        | b'$'
                        | b'%'
                        | b'&'
                        | b'\''
                        | b'*'
                        | b'+'
                        | b'-'
                        | b'.'
                        | b'^'
                        | b'_'
                        | b'`'
                        | b'|'
                        | b'~'
                )
        })
}

/// The JSON type a parameter type maps to, decided from its syntax: `Some("string")`,
/// `Some("integer")`, `Some("boolean")`, or `None` for anything else.
pub fn header_json_type(ty: &Type) -> Option<&'static str> {
    let Type::Path(p) = ty else { return None };
    if p.qself.is_some() {
        return None;
    }
    let seg = p.path.segments.last()?;
    let name = seg.ident.to_string();
    match name.as_str() {
        "String" | "str" | "Cow" => Some("string"),
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "u8" | "u16" | "u32" | "u64" | "u128"
        | "usize" => Some("integer"),
        "bool" => Some("boolean"),
        "Option" => match &seg.arguments {
            syn::PathArguments::AngleBracketed(a) if a.args.len() == 1 => match &a.args[0] {
                syn::GenericArgument::Type(inner) => header_json_type(inner),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    }
}

/// 1 to 128 of `A-Z a-z 0-9 _ - .`.
pub fn is_valid_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// The `TaskSupport` variant `task = "..."` names.
pub fn task_variant(value: &str) -> Option<&'static str> {
    match value {
        "forbidden" => Some("Forbidden"),
        "optional" => Some("Optional"),
        "required" => Some("Required"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_keys() {
        assert!(is_valid_tool_name("search.books-v2_x"));
        assert!(!is_valid_tool_name("no spaces"));
        assert!(!is_valid_tool_name(""));
        assert!(meta_key("com.example/key").is_ok());
        assert!(meta_key("io.modelcontextprotocol/x").is_err());
        assert!(meta_key("traceparent").is_err());
        assert!(icon_src("https://x.example/i.png").is_ok());
        assert!(icon_src("icon.png").is_err());
        assert!(is_token("Region") && !is_token("Shelf Number"));
        assert_eq!(task_variant("optional"), Some("Optional"));
        assert_eq!(task_variant("sometimes"), None);
    }
}
