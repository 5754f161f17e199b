//! [`Selection`]: which operations become tools, by path pattern, method, tag and
//! `operationId`.

/// One operation as a [`Rule`] sees it.
#[derive(Debug, Clone, Copy)]
pub(super) struct OperationRef<'a> {
    pub(super) path: &'a str,
    /// Upper case (`GET`).
    pub(super) method: &'a str,
    pub(super) tags: &'a [String],
    pub(super) operation_id: Option<&'a str>,
}

/// A set of operations: those matching every criterion given (an empty rule matches all).
/// Within a criterion, any listed value matches.
///
/// ```
/// use mcp_runtime::openapi::Rule;
/// let reads_of_pets = Rule::path("/pets/**").and_method("GET");
/// let admin = Rule::tag("admin");
/// # let _ = (reads_of_pets, admin);
/// ```
#[derive(Debug, Clone, Default)]
pub struct Rule {
    paths: Vec<String>,
    methods: Vec<String>,
    tags: Vec<String>,
    operation_ids: Vec<String>,
}

impl Rule {
    /// Operations whose path template matches `pattern`: `*` stands for any characters
    /// within one segment, `**` for any number of segments (`/pets/*` matches
    /// `/pets/{petId}`, `/pets/**` also `/pets/{petId}/photos`); the rest is literal.
    pub fn path(pattern: impl Into<String>) -> Self {
        Rule::default().or_path(pattern)
    }

    /// Operations of this HTTP method (any case).
    pub fn method(method: impl AsRef<str>) -> Self {
        Rule::default().or_method(method)
    }

    /// Operations tagged `tag`.
    pub fn tag(tag: impl Into<String>) -> Self {
        Rule::default().or_tag(tag)
    }

    /// The operation whose `operationId` is `id`.
    pub fn operation_id(id: impl Into<String>) -> Self {
        Rule::default().or_operation_id(id)
    }

    /// Also matches paths matching `pattern`.
    pub fn or_path(mut self, pattern: impl Into<String>) -> Self {
        self.paths.push(pattern.into());
        self
    }

    /// Also matches this method; given on a rule with paths, both must match.
    pub fn or_method(mut self, method: impl AsRef<str>) -> Self {
        self.methods.push(method.as_ref().to_ascii_uppercase());
        self
    }

    /// Also matches operations tagged `tag`.
    pub fn or_tag(mut self, tag: impl Into<String>) -> Self {
        self.tags.push(tag.into());
        self
    }

    /// Also matches the operation `id`.
    pub fn or_operation_id(mut self, id: impl Into<String>) -> Self {
        self.operation_ids.push(id.into());
        self
    }

    /// Narrows the rule to operations of `method` too (`Rule::path("/pets").and_method("GET")`).
    pub fn and_method(self, method: impl AsRef<str>) -> Self {
        self.or_method(method)
    }

    pub(super) fn matches(&self, op: &OperationRef<'_>) -> bool {
        (self.paths.is_empty() || self.paths.iter().any(|p| glob(p, op.path)))
            && (self.methods.is_empty() || self.methods.iter().any(|m| m == op.method))
            && (self.tags.is_empty() || op.tags.iter().any(|t| self.tags.contains(t)))
            && (self.operation_ids.is_empty()
                || op
                    .operation_id
                    .is_some_and(|id| self.operation_ids.iter().any(|x| x == id)))
    }
}

/// Which operations are served: those matching an `include` rule (every operation when
/// there is none) and no `exclude` rule.
///
/// ```
/// use mcp_runtime::openapi::{Rule, Selection};
/// let s = Selection::new()
///     .include(Rule::tag("pets"))
///     .exclude(Rule::method("DELETE"))
///     .exclude(Rule::operation_id("uploadFile"));
/// # let _ = s;
/// ```
#[derive(Debug, Clone, Default)]
pub struct Selection {
    include: Vec<Rule>,
    exclude: Vec<Rule>,
}

impl Selection {
    /// Every operation.
    pub fn new() -> Self {
        Selection::default()
    }

    /// Serves the operations `rule` matches (with other `include`s: any of them).
    pub fn include(mut self, rule: Rule) -> Self {
        self.include.push(rule);
        self
    }

    /// Leaves out the operations `rule` matches, whatever the `include`s say.
    pub fn exclude(mut self, rule: Rule) -> Self {
        self.exclude.push(rule);
        self
    }

    pub(super) fn chooses(&self, op: &OperationRef<'_>) -> bool {
        (self.include.is_empty() || self.include.iter().any(|r| r.matches(op)))
            && !self.exclude.iter().any(|r| r.matches(op))
    }
}

/// `*`: any characters but `/`; `**`: any characters.
fn glob(pattern: &str, text: &str) -> bool {
    let (p, t) = (pattern.as_bytes(), text.as_bytes());
    if let Some(rest) = p.strip_prefix(b"**") {
        let rest = std::str::from_utf8(rest).unwrap_or_default();
        return (0..=t.len()).any(|i| text.is_char_boundary(i) && glob(rest, &text[i..]));
    }
    if let Some(rest) = p.strip_prefix(b"*") {
        let rest = std::str::from_utf8(rest).unwrap_or_default();
        let segment = text.find('/').unwrap_or(text.len());
        return (0..=segment).any(|i| text.is_char_boundary(i) && glob(rest, &text[i..]));
    }
    match (pattern.chars().next(), text.chars().next()) {
        (None, None) => true,
        (Some(a), Some(b)) if a == b => glob(&pattern[a.len_utf8()..], &text[b.len_utf8()..]),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op<'a>(path: &'a str, method: &'a str, tags: &'a [String]) -> OperationRef<'a> {
        OperationRef {
            path,
            method,
            tags,
            operation_id: Some("op"),
        }
    }

    #[test]
    fn globs_match_within_and_across_segments() {
        assert!(glob("/pets/*", "/pets/{petId}"));
        assert!(!glob("/pets/*", "/pets/{petId}/photos"));
        assert!(glob("/pets/**", "/pets/{petId}/photos"));
        assert!(glob("/pets/**", "/pets/"));
        assert!(glob("/*/{id}", "/stores/{id}"));
        assert!(!glob("/pets", "/pets/1"));
    }

    #[test]
    fn includes_then_excludes_by_each_criterion() {
        let pets = vec!["pets".to_owned()];
        let s = Selection::new()
            .include(Rule::tag("pets"))
            .include(Rule::operation_id("op").and_method("PUT"))
            .exclude(Rule::method("delete"));
        assert!(s.chooses(&op("/pets", "GET", &pets)));
        assert!(!s.chooses(&op("/pets", "DELETE", &pets)));
        assert!(s.chooses(&op("/other", "PUT", &[])));
        assert!(!s.chooses(&op("/other", "GET", &[])));
        let by_path = Selection::new().include(Rule::path("/pets/**").and_method("GET"));
        assert!(by_path.chooses(&op("/pets/{id}", "GET", &[])));
        assert!(!by_path.chooses(&op("/pets/{id}", "POST", &[])));
        assert!(Selection::new().chooses(&op("/x", "POST", &[])));
    }
}
