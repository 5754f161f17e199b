//! The checks every handler function shares (`#[tool]`, `#[prompt]`, `#[resource]`,
//! `#[completion]`): its shape, its receiver, its injected parameters and its return type.
//! Each reports into the accumulator and goes on, so one compile shows every mistake.

use syn::spanned::Spanned;

use crate::errors::Errors;
use crate::model::inject::Injected;
use crate::model::{HandlerFn, Param, Tags};

/// How one kind of handler is named in the shared messages.
pub struct Kind {
    /// The attribute as written in messages: `#[tool]`.
    pub attr: &'static str,
    /// Its bare name: `tool`.
    pub name: &'static str,
    /// The server option listing free functions of this kind: `tools`.
    pub list: &'static str,
    /// Why it cannot be generic, after "cannot be generic: ".
    pub generic: &'static str,
    /// The message for a receiver other than `&self`.
    pub receiver: &'static str,
    /// Said after "cannot return `impl Trait`: name the type".
    pub output: &'static str,
}

/// The shared checks, in the order their errors are shown.
pub fn handler(f: &HandlerFn, kind: &Kind, errors: &mut Errors) {
    shape(f, kind, errors);
    receiver(f, kind, errors);
    injected(f, kind.name, errors);
}

/// `async`, not generic, not `const`/`unsafe`/variadic.
pub fn shape(f: &HandlerFn, kind: &Kind, errors: &mut Errors) {
    let sig = &f.sig;
    let what = kind.attr;
    if sig.asyncness.is_none() {
        errors.spanned(
            sig.fn_token,
            format!("a `{what}` function must be `async`: write `async fn`"),
        );
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        errors.spanned(
            &sig.generics,
            format!("a `{what}` function cannot be generic: {}", kind.generic),
        );
    }
    if let Some(c) = &sig.constness {
        errors.spanned(c, format!("a `{what}` function cannot be `const`"));
    }
    if let Some(u) = &sig.unsafety {
        errors.spanned(u, format!("a `{what}` function cannot be `unsafe`"));
    }
    if let Some(v) = &sig.variadic {
        errors.spanned(v, format!("a `{what}` function cannot be variadic"));
    }
}

/// `&self` inside `#[mcp::server] impl`, no receiver outside it.
pub fn receiver(f: &HandlerFn, kind: &Kind, errors: &mut Errors) {
    match &f.receiver {
        Some(r) if !f.method => errors.spanned(
            r,
            format!(
                "a `{}` method must be inside a `#[mcp::server] impl` block; add \
                 `#[mcp::server]` to the impl",
                kind.attr
            ),
        ),
        Some(r) if r.reference.is_none() || r.mutability.is_some() || r.colon_token.is_some() => {
            errors.spanned(r, kind.receiver);
        }
        Some(_) => {}
        None if f.method => errors.spanned(
            &f.sig.ident,
            format!(
                "a `#[{}]` method inside `#[mcp::server] impl` takes `&self`; move functions \
                 without `self` out of the impl and list them in `{}(...)`",
                kind.name, kind.list
            ),
        ),
        None => {}
    }
}

/// At most one parameter of each injected kind, no `#[arg]` on them, and their forms:
/// `&Context` not `&mut Context`, `State<T>` with its type and by value.
pub fn injected(f: &HandlerFn, what: &str, errors: &mut Errors) {
    let mut seen: Vec<(&Injected, &Param)> = Vec::new();
    for p in &f.params {
        let Some(inj) = &p.injected else { continue };
        match inj {
            Injected::Context { mutable: true, .. } => errors.spanned(
                &p.ty,
                "the context is shared: take `&Context` or `Context`, not `&mut Context`",
            ),
            Injected::State { ty: None, .. } => {
                errors.spanned(&p.ty, "write the state's type: `State<MyServer>`");
            }
            Injected::State { by_ref: true, .. } => errors.spanned(
                &p.ty,
                "take `State<T>` by value: it is already a borrow of the server's state",
            ),
            _ => {}
        }
        if let Some((_, first)) = seen.iter().find(|(k, _)| k.same_kind(inj)) {
            errors.twice_spanned(
                &p.ty,
                first.ty.span(),
                format!("a {what} takes at most one {} parameter", inj.label()),
            );
        }
        seen.push((inj, p));
        for a in &p.arg_attrs {
            errors.spanned(
                a,
                format!("`#[arg]` does not apply to the injected {}", inj.label()),
            );
        }
    }
}

/// `impl Trait` cannot be returned: the generated code names the type.
pub fn output(f: &HandlerFn, kind: &Kind, errors: &mut Errors) {
    if let Some(ty @ syn::Type::ImplTrait(_)) = f.output() {
        errors.spanned(
            ty,
            format!(
                "a {} cannot return `impl Trait`: name the type{}",
                kind.name, kind.output
            ),
        );
    }
}

/// The parameter's name, or `message` when it is a pattern.
pub fn plain_name<'p>(p: &'p Param, message: &str, errors: &mut Errors) -> Option<&'p syn::Ident> {
    let ident = p.ident();
    if ident.is_none() {
        errors.spanned(&p.pat, message);
    }
    ident
}

/// Methods the kernel answers itself: never a tool or handler.
pub const RESERVED: &[&str] = &["initialize", "ping"];

/// The message for registering `name` when it is a reserved method.
pub fn reserved(name: &str) -> Option<String> {
    RESERVED.contains(&name).then(|| reserved_message(name))
}

/// The message for registering a reserved method.
pub fn reserved_message(name: &str) -> String {
    format!(
        "`{name}` is answered by the MCP kernel and cannot be registered as a tool or handler; \
         to observe or change it, write a `#[mcp::middleware]` that checks \
         `ctx.method() == \"{name}\"` and list it in `#[mcp::server(middleware(...))]`"
    )
}

/// `tags(...)`: at least one tag, none empty, none given twice (the rules of
/// `mcp_core::rules::check_tags`, each reported at its literal).
pub fn tags(tags: Option<&Tags>, errors: &mut Errors) {
    let Some(t) = tags else { return };
    if t.empty {
        errors.at(
            t.key,
            "`tags(...)` lists at least one tag, such as `tags(\"admin\")`",
        );
    }
    for (i, tag) in t.list.iter().enumerate() {
        let v = tag.value();
        if let Err(e) = mcp_core::rules::check_tags(&[&v]) {
            errors.spanned(tag, e);
        } else if let Some(first) = t.list[..i].iter().find(|f| f.value() == v) {
            errors.twice(
                tag.span(),
                first.span(),
                format!("the tag {v:?} is given twice"),
            );
        }
    }
}
