//! Token rewriting for generated code that sits outside the user's impl block or must point
//! at one place: `Self` replaced by the server type, every span set to the user's path.

use proc_macro2::{Span, TokenStream, TokenTree};

/// `tokens` with `Self` as the server type of a method (`server`), as they are for a free
/// function.
pub fn self_as(server: Option<&TokenStream>, tokens: TokenStream) -> TokenStream {
    match server {
        Some(s) => replace_self(tokens, s),
        None => tokens,
    }
}

/// Replaces `Self` with `ty` (for code generated outside the user's impl block).
fn replace_self(tokens: TokenStream, ty: &TokenStream) -> TokenStream {
    tokens
        .into_iter()
        .flat_map(|tt| -> Vec<TokenTree> {
            match tt {
                TokenTree::Ident(i) if i == "Self" => ty.clone().into_iter().collect(),
                TokenTree::Group(g) => {
                    let mut ng =
                        proc_macro2::Group::new(g.delimiter(), replace_self(g.stream(), ty));
                    ng.set_span(g.span());
                    vec![TokenTree::Group(ng)]
                }
                other => vec![other],
            }
        })
        .collect()
}

/// `tokens` with every span set to `span`, so that a type which is not what its list says
/// is reported once, at the path the user wrote, however often the generated code names it.
pub fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|tt| match tt {
            TokenTree::Group(g) => {
                let mut ng = proc_macro2::Group::new(g.delimiter(), respan(g.stream(), span));
                ng.set_span(span);
                TokenTree::Group(ng)
            }
            mut other => {
                other.set_span(span);
                other
            }
        })
        .collect()
}
