//! The parameters a handler gets from the runtime instead of the client, recognised by their
//! type's path (`Context`, `mcp::Context`, `&mcp::prelude::Context`; not `other::Context`):
//! the context, `State<T>`, the request's `CancellationToken` and `Progress` reporter, a
//! completion's `ResolvedArguments` and a middleware's `Next`.

use syn::Type;

use super::root::Root;

/// A parameter recognised by its type. Malformed forms (`&mut Context`, `State` without its
/// type) are kept as written: the check pass reports them.
#[derive(Clone)]
pub enum Injected {
    /// `Context` / `&Context` (`mutable` for `&mut Context`).
    Context { by_ref: bool, mutable: bool },
    /// `State<T>`: `T` borrowed from the server (`Provides<T>`); `None` when `T` is missing.
    State { ty: Option<Box<Type>>, by_ref: bool },
    /// `CancellationToken` / `&CancellationToken`: the request's cancellation.
    Cancel { by_ref: bool },
    /// `Progress` / `&Progress`: the request's progress reporter.
    Progress { by_ref: bool },
    /// `ResolvedArguments` / `&ResolvedArguments`: a completion's arguments filled in so far.
    Resolved { by_ref: bool },
    /// `Next<'_>`: the rest of a middleware chain.
    Next,
}

/// Which injected types a kind of function takes; the others are plain parameters there.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Site {
    /// Tools, prompts and resources: context, state, cancellation, progress.
    Handler,
    /// Completions: context and resolved arguments.
    Completion,
    /// Middleware: context and `Next`.
    Middleware,
}

impl Injected {
    /// How the kind is named in messages.
    pub fn label(&self) -> &'static str {
        match self {
            Injected::Context { .. } => "context (`Context`)",
            Injected::State { .. } => "state (`State<T>`)",
            Injected::Cancel { .. } => "cancellation token (`CancellationToken`)",
            Injected::Progress { .. } => "progress reporter (`Progress`)",
            Injected::Resolved { .. } => "`ResolvedArguments`",
            Injected::Next => "rest of the chain (`Next`)",
        }
    }

    /// Whether `self` and `other` are of one kind (a function takes at most one of each).
    pub fn same_kind(&self, other: &Injected) -> bool {
        std::mem::discriminant(self) == std::mem::discriminant(other)
    }

    /// The injected parameter `ty` is at `site`, if any.
    pub fn recognise(ty: &Type, site: Site, root: &Root) -> Option<Injected> {
        let (inner, by_ref, mutable) = match ty {
            Type::Reference(r) => (&*r.elem, true, r.mutability.is_some()),
            t => (t, false, false),
        };
        let Type::Path(p) = inner else { return None };
        if p.qself.is_some() {
            return None;
        }
        let seg = p.path.segments.last()?;
        let plain = seg.arguments.is_none();
        let is = |name: &str| root.names(&p.path, name);
        let inj = match site {
            _ if plain && is("Context") => Injected::Context { by_ref, mutable },
            Site::Handler if plain && is("CancellationToken") => Injected::Cancel { by_ref },
            Site::Handler if plain && is("Progress") => Injected::Progress { by_ref },
            Site::Handler if is("State") => Injected::State {
                ty: state_type(&seg.arguments).map(Box::new),
                by_ref,
            },
            Site::Completion if plain && is("ResolvedArguments") => Injected::Resolved { by_ref },
            Site::Middleware if !by_ref && is("Next") => Injected::Next,
            _ => return None,
        };
        Some(inj)
    }
}

/// The `T` of `State<T>` (or `State<'a, T>`), when there is exactly one type argument.
fn state_type(args: &syn::PathArguments) -> Option<Type> {
    let syn::PathArguments::AngleBracketed(a) = args else {
        return None;
    };
    let mut types = a.args.iter().filter_map(|g| match g {
        syn::GenericArgument::Type(t) => Some(t.clone()),
        _ => None,
    });
    let first = types.next()?;
    types.next().is_none().then_some(first)
}

/// Writes `State<T>` as `State<'_, T>` (an `async fn` parameter may not leave it implicit).
pub fn elide_state_lifetime(ty: &mut Type) {
    if let Type::Path(p) = ty
        && let Some(seg) = p.path.segments.last_mut()
        && let syn::PathArguments::AngleBracketed(a) = &mut seg.arguments
        && !a
            .args
            .iter()
            .any(|g| matches!(g, syn::GenericArgument::Lifetime(_)))
    {
        a.args.insert(0, syn::parse_quote!('_));
    }
}

#[cfg(test)]
mod tests {
    use super::{Injected, Root, Site};

    fn kind(ty: &str, site: Site) -> Option<&'static str> {
        let ty: syn::Type = syn::parse_str(ty).unwrap();
        Injected::recognise(&ty, site, &Root::default()).map(|i| i.label())
    }

    #[test]
    fn recognised_by_path() {
        for ty in [
            "Context",
            "&Context",
            "mcp::Context",
            "&mcp::prelude::Context",
        ] {
            assert_eq!(kind(ty, Site::Handler), Some("context (`Context`)"), "{ty}");
        }
        assert_eq!(kind("other::Context", Site::Handler), None);
        assert_eq!(kind("State<Db>", Site::Handler), Some("state (`State<T>`)"));
        assert_eq!(kind("other::State<Db>", Site::Handler), None);
        assert_eq!(
            kind("Progress", Site::Handler),
            Some("progress reporter (`Progress`)")
        );
    }

    #[test]
    fn per_site() {
        assert_eq!(kind("ResolvedArguments", Site::Handler), None);
        assert_eq!(
            kind("ResolvedArguments", Site::Completion),
            Some("`ResolvedArguments`")
        );
        assert_eq!(kind("Next<'_>", Site::Handler), None);
        assert!(kind("mcp::Next<'_>", Site::Middleware).is_some());
        assert_eq!(kind("State<Db>", Site::Completion), None);
    }
}
