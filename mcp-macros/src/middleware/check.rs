//! Every problem of a parsed [`Middleware`]: `async`, not generic, no `self`, exactly the
//! context (by value) and `Next`, returning `HandlerResult`.

use super::{Middleware, SIGNATURE};
use crate::errors::Errors;
use crate::model::inject::Injected;

/// Reports every problem of the signature.
pub fn check(m: &Middleware, errors: &mut Errors) {
    let sig = &m.func.sig;
    if sig.asyncness.is_none() {
        errors.spanned(
            sig.fn_token,
            format!("a middleware must be `async`: {SIGNATURE}"),
        );
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        errors.spanned(
            &sig.generics,
            format!("a middleware cannot be generic: {SIGNATURE}"),
        );
    }
    if let Some(r) = &m.func.receiver {
        errors.spanned(r, format!("a middleware takes no `self`: {SIGNATURE}"));
    }
    match &m.func.params[..] {
        [ctx, next] => {
            if !matches!(ctx.injected, Some(Injected::Context { by_ref: false, .. })) {
                errors.spanned(
                    &ctx.ty,
                    format!(
                        "the first parameter of a middleware is the context, taken by value \
                         (`ctx: Context`): {SIGNATURE}"
                    ),
                );
            }
            if !matches!(next.injected, Some(Injected::Next)) {
                errors.spanned(
                    &next.ty,
                    format!(
                        "the second parameter of a middleware is the rest of the chain \
                         (`next: Next<'_>`): {SIGNATURE}"
                    ),
                );
            }
        }
        _ => errors.spanned(
            &sig.inputs,
            format!(
                "a middleware takes exactly two parameters, the context and the rest of the \
                 chain: {SIGNATURE}"
            ),
        ),
    }
    match m.func.output() {
        None => errors.spanned(
            &sig.ident,
            format!(
                "a middleware returns the outcome of the chain (`-> HandlerResult`): {SIGNATURE}"
            ),
        ),
        Some(ty) => {
            let ok = matches!(ty, syn::Type::Path(p) if p.qself.is_none()
                && m.root.names(&p.path, "HandlerResult"));
            if !ok {
                errors.spanned(
                    ty,
                    format!(
                        "a middleware returns `HandlerResult` (what `next.run(ctx).await` \
                         gives): {SIGNATURE}"
                    ),
                );
            }
        }
    }
}
