//! The error accumulator every pass reports into, so a user sees all mistakes in one compile.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;

/// Collects every error of one macro invocation, each spanned at the user's code.
#[derive(Default)]
pub struct Errors(Vec<syn::Error>);

impl Errors {
    /// Adds an error as it is.
    pub fn push(&mut self, e: syn::Error) {
        self.0.push(e);
    }
    /// `msg` spanned at `tokens`.
    pub fn spanned(&mut self, tokens: impl ToTokens, msg: impl std::fmt::Display) {
        self.0.push(syn::Error::new_spanned(tokens, msg));
    }
    /// `msg` at `span`.
    pub fn at(&mut self, span: Span, msg: impl std::fmt::Display) {
        self.0.push(syn::Error::new(span, msg));
    }
    /// `msg` at the second occurrence of something, and "the first one is here" at the
    /// first: one mistake, shown at both places.
    pub fn twice(&mut self, second: Span, first: Span, msg: impl std::fmt::Display) {
        let mut e = syn::Error::new(second, msg);
        e.combine(syn::Error::new(first, "the first one is here"));
        self.0.push(e);
    }
    /// As [`Errors::twice`], the second occurrence being `second`'s tokens.
    pub fn twice_spanned(
        &mut self,
        second: impl ToTokens,
        first: Span,
        msg: impl std::fmt::Display,
    ) {
        let mut e = syn::Error::new_spanned(second, msg);
        e.combine(syn::Error::new(first, "the first one is here"));
        self.0.push(e);
    }
    /// How many errors so far (a pass compares before and after).
    pub fn len(&self) -> usize {
        self.0.len()
    }
    /// Whether there is no error.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// One `compile_error!` per error.
    pub fn to_compile_errors(&self) -> TokenStream {
        self.0.iter().map(syn::Error::to_compile_error).collect()
    }
}
