//! A notes server: an impl-block server whose state is the server itself, tools with struct,
//! enum and optional arguments, structured output, progress and cancellation, a resource
//! template, a prompt and an audit middleware.
//!
//! ```text
//! cargo run --example notes      # serves MCP over stdio (logs go to stderr)
//! ```
//!
//! `tests/tests/examples.rs` drives it in process with `mcp::client::Client`.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;

use mcp::prelude::*;
use mcp::{Json, ToolError};

/// How urgent a note is.
#[derive(
    Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Priority {
    Low,
    #[default]
    Normal,
    High,
}

/// What a client sends to create a note.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct NewNote {
    /// A short title.
    pub title: String,
    /// The text of the note (Markdown).
    pub body: String,
    /// Words to find the note by.
    #[serde(default)]
    pub tags: Vec<String>,
}

/// A stored note.
#[derive(Clone, serde::Serialize, schemars::JsonSchema)]
pub struct Note {
    pub id: u64,
    pub title: String,
    pub body: String,
    pub tags: Vec<String>,
    pub priority: Priority,
}

/// What `search` finds (structured output is an object, so the list is wrapped).
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Found {
    pub notes: Vec<Note>,
}

/// The server and its state: every method below sees it as `&self`.
#[derive(Default)]
pub struct Notes {
    notes: Mutex<BTreeMap<u64, Note>>,
}

/// Logs every message with how long it took, on stderr (stdout carries the protocol).
#[mcp::middleware]
pub async fn audit(ctx: Context, next: Next<'_>) -> HandlerResult {
    let (method, started) = (ctx.method().to_owned(), std::time::Instant::now());
    let out = next.run(ctx).await;
    let outcome = if out.is_ok() { "ok" } else { "error" };
    eprintln!("notes: {method} {outcome} in {:?}", started.elapsed());
    out
}

#[mcp::server(
    name = "notes",
    instructions = "Keeps notes: add_note to write one, search to find them, notes://{id} to read one.",
    middleware(audit)
)]
impl Notes {
    /// Adds a note and returns it with its id.
    #[tool]
    async fn add_note(&self, note: NewNote, priority: Option<Priority>) -> Json<Note> {
        let mut notes = self.notes.lock().unwrap();
        let id = notes.keys().next_back().map_or(1, |last| last + 1);
        let note = Note {
            id,
            title: note.title,
            body: note.body,
            tags: note.tags,
            priority: priority.unwrap_or_default(),
        };
        notes.insert(id, note.clone());
        Json(note)
    }

    /// Finds the notes whose title or body contains `text`, only those tagged `tag` if given.
    #[tool(read_only)]
    async fn search(
        &self,
        /// Text to look for (case-insensitive).
        text: String,
        /// Keep only the notes with this tag.
        tag: Option<String>,
    ) -> Json<Found> {
        let text = text.to_lowercase();
        let notes = self.notes.lock().unwrap();
        let notes = notes
            .values()
            .filter(|n| tag.as_ref().is_none_or(|t| n.tags.contains(t)))
            .filter(|n| {
                n.title.to_lowercase().contains(&text) || n.body.to_lowercase().contains(&text)
            })
            .cloned()
            .collect();
        Json(Found { notes })
    }

    /// Checks every note, reporting progress; stops early when the client cancels.
    #[tool(read_only)]
    async fn reindex(
        &self,
        progress: &Progress,
        token: CancellationToken,
    ) -> Result<String, ToolError> {
        let ids: Vec<u64> = self.notes.lock().unwrap().keys().copied().collect();
        let total = ids.len() as f64;
        for (done, _id) in ids.iter().enumerate() {
            tokio::select! {
                _ = token.cancelled() => return Err(ToolError::new("reindex cancelled")),
                _ = tokio::time::sleep(Duration::from_millis(10)) => {}
            }
            progress
                .report(done as f64 + 1.0, Some(total), None)
                .await
                .ok();
        }
        Ok(format!("{} notes reindexed", ids.len()))
    }

    /// One note, as Markdown.
    #[resource("notes://{id}", mime_type = "text/markdown")]
    async fn note(&self, id: u64) -> Option<String> {
        let notes = self.notes.lock().unwrap();
        notes
            .get(&id)
            .map(|n| format!("# {}\n\n{}", n.title, n.body))
    }

    /// Ask the model to summarize a note.
    #[prompt]
    async fn summarize(
        &self,
        /// The note's id.
        id: String,
        /// How to write the summary ("one line" if not given).
        style: Option<String>,
    ) -> Result<String, McpError> {
        let id: u64 = id
            .parse()
            .map_err(|_| McpError::invalid_params("id: expected a note number"))?;
        let notes = self.notes.lock().unwrap();
        let note = notes
            .get(&id)
            .ok_or_else(|| McpError::invalid_params(format!("no note {id}")))?;
        let style = style.as_deref().unwrap_or("one line");
        Ok(format!(
            "Summarize this note in {style}:\n\n{}\n\n{}",
            note.title, note.body
        ))
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    Notes::default().serve_stdio().await
}
