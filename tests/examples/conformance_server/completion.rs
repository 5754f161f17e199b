//! Completion (`completion/complete`): the prompt `test_prompt_with_arguments` (two
//! arguments) and a completer for its `arg1` that filters a fixed word list by prefix.

use mcp::ServerBuilder;
use mcp::prelude::*;
use mcp::types::{CompletionReference, Prompt, PromptArgument};

const WORDS: &[&str] = &["paris", "park", "party", "test", "testing", "tester"];

/// Adds the prompt and its completer.
pub fn install(builder: ServerBuilder) -> ServerBuilder {
    builder.registry(|r| {
        let arg = |name: &str, description: &str| PromptArgument {
            name: name.into(),
            description: Some(description.into()),
            required: Some(true),
            ..Default::default()
        };
        r.add_prompt(
            Prompt {
                description: Some("A prompt with arguments".into()),
                arguments: Some(vec![
                    arg("arg1", "First argument"),
                    arg("arg2", "Second argument"),
                ]),
                ..Prompt::new("test_prompt_with_arguments")
            },
            |_ctx, args| async move {
                let get = |k: &str| args.get(k).cloned().unwrap_or_default();
                Ok(GetPromptResult {
                    messages: vec![PromptMessage::user(format!(
                        "Prompt with arguments: arg1='{}', arg2='{}'",
                        get("arg1"),
                        get("arg2")
                    ))],
                    ..Default::default()
                })
            },
        );
        r.add_completion(
            CompletionReference::prompt("test_prompt_with_arguments"),
            "arg1",
            |_ctx, value: String, _resolved| async move {
                WORDS
                    .iter()
                    .filter(|w| w.starts_with(value.as_str()))
                    .map(|w| w.to_string())
                    .collect::<Vec<_>>()
            },
        );
    })
}
