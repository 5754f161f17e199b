//! The values of attribute keys (`= "string"`, flags, skipping what follows an unknown key)
//! and the "did you mean" of an unknown key.

use syn::meta::ParseNestedMeta;

use crate::errors::Errors;
use crate::model::Tags;

/// A `name = "string"` value.
pub fn lit_str(meta: &ParseNestedMeta<'_>) -> syn::Result<syn::LitStr> {
    meta.value()?.parse()
}

/// A flag (`read_only`) or `read_only = true|false`.
pub fn flag(meta: &ParseNestedMeta<'_>) -> syn::Result<bool> {
    if meta.input.peek(syn::Token![=]) {
        let b: syn::LitBool = meta.value()?.parse()?;
        Ok(b.value)
    } else {
        Ok(true)
    }
}

/// Consumes whatever follows an attribute key (`= value` or `(...)`), so parsing can go on
/// after an error.
pub fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        let _: syn::Expr = meta.value()?.parse()?;
    } else if meta.input.peek(syn::token::Paren) {
        let _group: proc_macro2::Group = meta.input.parse()?;
    }
    Ok(())
}

/// `unknown key` with the closest known key, if any is close.
pub fn unknown_key(key: &str, known: &[&str], what: &str) -> String {
    let best = known
        .iter()
        .map(|k| (levenshtein(key, k), *k))
        .filter(|(d, k)| *d <= 2.max(k.len() / 3) || k.starts_with(key) || key.starts_with(k))
        .min();
    let list = known
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ");
    match best {
        Some((_, k)) => {
            format!("unknown {what} option `{key}`; did you mean `{k}`? (known: {list})")
        }
        None => format!("unknown {what} option `{key}` (known: {list})"),
    }
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// `tags("a", "b")`: string literals; anything else is reported at its own tokens and left
/// out, so the other checks still run.
pub fn tags(meta: &ParseNestedMeta<'_>, errors: &mut Errors) -> syn::Result<Tags> {
    let content;
    syn::parenthesized!(content in meta.input);
    let given =
        syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated(&content)?;
    let empty = given.is_empty();
    let mut list = Vec::new();
    for e in given {
        match e {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => list.push(s),
            other => errors.spanned(other, "a tag is a string literal, such as `\"admin\"`"),
        }
    }
    Ok(Tags {
        key: syn::spanned::Spanned::span(&meta.path),
        list,
        empty,
    })
}

/// `key("string" = value, ...)`: entries keyed by string literals (`meta(...)` of a tool,
/// `extensions(...)` of a server), the values any expression.
pub fn key_values(meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<(syn::LitStr, syn::Expr)>> {
    let content;
    syn::parenthesized!(content in meta.input);
    let mut out = Vec::new();
    while !content.is_empty() {
        let key: syn::LitStr = content.parse()?;
        content.parse::<syn::Token![=]>()?;
        let value: syn::Expr = content.parse()?;
        out.push((key, value));
        if content.is_empty() {
            break;
        }
        content.parse::<syn::Token![,]>()?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::unknown_key;

    #[test]
    fn suggests_the_closest_key() {
        let m = unknown_key("titel", &["name", "title"], "`#[tool]`");
        assert!(m.contains("did you mean `title`?"), "{m}");
        let m = unknown_key("colour", &["name", "title"], "`#[tool]`");
        assert!(!m.contains("did you mean"), "{m}");
    }
}
