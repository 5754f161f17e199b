//! The typed calls: one method per MCP request (tools, resources, prompts, completion,
//! logging, ping), shaped for the negotiated revision.

use mcp_core::types::{
    Adapt, CallToolParams, CallToolResult, GetPromptParams, GetPromptResult, ListPromptsParams,
    ListPromptsResult, ListResourceTemplatesParams, ListResourceTemplatesResult,
    ListResourcesParams, ListResourcesResult, ListToolsParams, ListToolsResult, LoggingLevel,
    ReadResourceParams, ReadResourceResult, SetLevelParams, Tool,
};
use mcp_core::version::{Era, ProtocolVersion};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::request::decode_result;
use super::{Client, ClientError, RequestOptions};

impl Client {
    fn shaped<T: Adapt + Serialize>(&self, mut params: T) -> Result<Value, ClientError> {
        if let Some(v) = self.current_version() {
            params.adapt(v);
        }
        serde_json::to_value(&params).map_err(|e| ClientError::Encode(e.to_string()))
    }

    /// `ping`. 2026-07-28 has no `ping`: there a `server/discover` round trip stands in.
    pub async fn ping(&self) -> Result<(), ClientError> {
        let method = match self.current_version().map(ProtocolVersion::era) {
            Some(Era::Modern) => "server/discover",
            _ => "ping",
        };
        // A ping is a round trip: never answered from the cache.
        let opts = RequestOptions::default().cache(super::CacheMode::Bypass);
        self.request_raw(method, None, opts).await.map(drop)
    }

    /// One page of `tools/list`. Over HTTP the tools' input schemas are remembered for the
    /// 2026 `Mcp-Param-*` headers, and on 2026 a tool whose `x-mcp-header` annotations
    /// are invalid is dropped (with a warning), as the transport requires.
    pub async fn list_tools(&self, cursor: Option<String>) -> Result<ListToolsResult, ClientError> {
        let p = self.shaped(ListToolsParams { cursor, meta: None })?;
        #[allow(unused_mut)]
        let mut r: ListToolsResult = self
            .request("tools/list", Some(p), RequestOptions::default())
            .await?;
        #[cfg(feature = "schema-validation")]
        self.inner
            .output_schemas
            .learn(&r.tools, self.current_version());
        #[cfg(feature = "http")]
        if let Some(h) = &self.inner.http {
            let modern = self
                .current_version()
                .is_some_and(|v| v.era() == Era::Modern);
            if modern {
                r.tools.retain(|t| {
                    match mcp_core::headers::validate_header_annotations(&t.input_schema) {
                        Ok(()) => true,
                        Err(problems) => {
                            tracing::warn!(tool = %t.name, ?problems,
                                "tool dropped: invalid x-mcp-header annotations");
                            false
                        }
                    }
                });
            }
            let mut schemas = h.tool_schemas.lock().expect("schemas lock");
            for t in &r.tools {
                schemas.insert(t.name.clone(), std::sync::Arc::new(t.input_schema.clone()));
            }
        }
        Ok(r)
    }

    /// Every tool, following `nextCursor` to the last page (a repeated cursor is an error).
    pub async fn list_all_tools(&self) -> Result<Vec<Tool>, ClientError> {
        let mut all = Vec::new();
        let mut cursor = None;
        let mut seen = std::collections::HashSet::new();
        loop {
            let page = self.list_tools(cursor).await?;
            all.extend(page.tools);
            match page.next_cursor {
                Some(c) if !seen.insert(c.clone()) => {
                    return Err(ClientError::InvalidResponse(format!(
                        "tools/list returned the cursor {c:?} twice"
                    )));
                }
                Some(c) => cursor = Some(c),
                None => return Ok(all),
            }
        }
    }

    /// `tools/call` with `arguments` (anything that serializes to a JSON object, or
    /// `()`/`null` for none). A tool failure is a result with `isError: true`, not an `Err`.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: impl Serialize,
    ) -> Result<CallToolResult, ClientError> {
        self.call_tool_with(name, arguments, RequestOptions::default())
            .await
    }

    /// [`Client::call_tool`] with options (progress callback, timeout, log level).
    ///
    /// With the `schema-validation` feature, a result of a tool whose last `tools/list`
    /// entry has an `outputSchema` must carry a `structuredContent` it accepts (unless the
    /// result is an error), else the call fails with [`ClientError::StructuredContent`]
    /// naming the tool and each failing path.
    pub async fn call_tool_with(
        &self,
        name: &str,
        arguments: impl Serialize,
        opts: RequestOptions,
    ) -> Result<CallToolResult, ClientError> {
        let args =
            serde_json::to_value(arguments).map_err(|e| ClientError::Encode(e.to_string()))?;
        let args = match args {
            Value::Null => Value::Object(Map::new()),
            v @ Value::Object(_) => v,
            other => {
                return Err(ClientError::Encode(format!(
                    "tool arguments must be an object, not {other}"
                )));
            }
        };
        let p = self.shaped(CallToolParams::new(name, args))?;
        let mut opts = opts;
        let raw = match self
            .round_trips("tools/call", Some(p.clone()), &[], &mut opts)
            .await
        {
            // 2026 HTTP: -32020 on a call means the `Mcp-Param-*` headers, made from the
            // tool's schema of the last `tools/list`, are stale: list again, retry once.
            #[cfg(feature = "http")]
            Err(e)
                if e.code() == Some(mcp_core::jsonrpc::HEADER_MISMATCH)
                    && self.inner.http.is_some() =>
            {
                tracing::debug!(error = %e, "header mismatch: refreshing the tool list");
                // The cached list holds the stale schemas: ask the server.
                self.with_cache_mode(super::CacheMode::Refresh)
                    .list_all_tools()
                    .await?;
                self.round_trips("tools/call", Some(p), &[], &mut opts)
                    .await?
            }
            other => other?,
        };
        let result: CallToolResult = decode_result("tools/call", &raw)?;
        // The `outputSchema` of the last `tools/list` holds the structured output to it.
        #[cfg(feature = "schema-validation")]
        self.inner.output_schemas.check(name, &result)?;
        Ok(result)
    }

    /// `tools/call`, decoding `structuredContent` into `T` (or, when the server sent none,
    /// the JSON text of the first text block). `isError: true` is [`ClientError::ToolFailed`].
    pub async fn call_tool_structured<T: DeserializeOwned>(
        &self,
        name: &str,
        arguments: impl Serialize,
    ) -> Result<T, ClientError> {
        let r = self.call_tool(name, arguments).await?;
        structured(r)
    }

    /// One page of `resources/list`.
    pub async fn list_resources(
        &self,
        cursor: Option<String>,
    ) -> Result<ListResourcesResult, ClientError> {
        let p = self.shaped(ListResourcesParams {
            cursor,
            ..Default::default()
        })?;
        self.request("resources/list", Some(p), RequestOptions::default())
            .await
    }

    /// One page of `resources/templates/list`.
    pub async fn list_resource_templates(
        &self,
        cursor: Option<String>,
    ) -> Result<ListResourceTemplatesResult, ClientError> {
        let p = self.shaped(ListResourceTemplatesParams {
            cursor,
            ..Default::default()
        })?;
        self.request(
            "resources/templates/list",
            Some(p),
            RequestOptions::default(),
        )
        .await
    }

    /// `resources/read`.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, ClientError> {
        let p = self.shaped(ReadResourceParams::new(uri))?;
        self.request("resources/read", Some(p), RequestOptions::default())
            .await
    }

    /// One page of `prompts/list`.
    pub async fn list_prompts(
        &self,
        cursor: Option<String>,
    ) -> Result<ListPromptsResult, ClientError> {
        let p = self.shaped(ListPromptsParams {
            cursor,
            ..Default::default()
        })?;
        self.request("prompts/list", Some(p), RequestOptions::default())
            .await
    }

    /// `prompts/get` with string arguments.
    pub async fn get_prompt<K: Into<String>, V: Into<String>>(
        &self,
        name: &str,
        arguments: impl IntoIterator<Item = (K, V)>,
    ) -> Result<GetPromptResult, ClientError> {
        let args: std::collections::BTreeMap<String, String> = arguments
            .into_iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect();
        let p = self.shaped(GetPromptParams {
            name: name.to_owned(),
            arguments: (!args.is_empty()).then_some(args),
            ..Default::default()
        })?;
        self.request("prompts/get", Some(p), RequestOptions::default())
            .await
    }

    /// Every prompt, following `nextCursor`.
    pub async fn list_all_prompts(&self) -> Result<Vec<mcp_core::types::Prompt>, ClientError> {
        let mut all = Vec::new();
        let mut cursor = None;
        loop {
            let page = self.list_prompts(cursor).await?;
            all.extend(page.prompts);
            match page.next_cursor {
                Some(c) => cursor = Some(c),
                None => return Ok(all),
            }
        }
    }

    /// Every resource, following `nextCursor`.
    pub async fn list_all_resources(&self) -> Result<Vec<mcp_core::types::Resource>, ClientError> {
        let mut all = Vec::new();
        let mut cursor = None;
        loop {
            let page = self.list_resources(cursor).await?;
            all.extend(page.resources);
            match page.next_cursor {
                Some(c) => cursor = Some(c),
                None => return Ok(all),
            }
        }
    }

    /// `resources/subscribe` (legacy; updates arrive as `notifications/resources/updated`
    /// on [`Client::notifications`]).
    pub async fn subscribe_resource(&self, uri: &str) -> Result<(), ClientError> {
        let p = self.shaped(mcp_core::types::SubscribeParams {
            uri: uri.to_owned(),
            meta: None,
        })?;
        self.request_raw("resources/subscribe", Some(p), RequestOptions::default())
            .await
            .map(drop)
    }

    /// `resources/unsubscribe` (legacy).
    pub async fn unsubscribe_resource(&self, uri: &str) -> Result<(), ClientError> {
        let p = self.shaped(mcp_core::types::UnsubscribeParams {
            uri: uri.to_owned(),
            meta: None,
        })?;
        self.request_raw("resources/unsubscribe", Some(p), RequestOptions::default())
            .await
            .map(drop)
    }

    /// `completion/complete`.
    pub async fn complete(
        &self,
        params: mcp_core::types::CompleteParams,
    ) -> Result<mcp_core::types::CompleteResult, ClientError> {
        let p = self.shaped(params)?;
        self.request("completion/complete", Some(p), RequestOptions::default())
            .await
    }

    /// `logging/setLevel` (legacy connections; on 2026 pass
    /// [`RequestOptions::log_level`] per request instead).
    pub async fn set_log_level(&self, level: LoggingLevel) -> Result<(), ClientError> {
        if self
            .current_version()
            .is_some_and(|v| v.era() == Era::Modern)
        {
            return Err(ClientError::Unsupported(
                "logging/setLevel does not exist on 2026-07-28; use RequestOptions::log_level"
                    .into(),
            ));
        }
        let p = self.shaped(SetLevelParams { level, meta: None })?;
        self.request_raw("logging/setLevel", Some(p), RequestOptions::default())
            .await
            .map(drop)
    }
}

fn tool_text(r: &CallToolResult) -> Option<String> {
    r.content.iter().find_map(|c| {
        serde_json::to_value(c)
            .ok()
            .and_then(|v| v.get("text").and_then(Value::as_str).map(str::to_owned))
    })
}

fn structured<T: DeserializeOwned>(r: CallToolResult) -> Result<T, ClientError> {
    if r.is_error == Some(true) {
        return Err(ClientError::ToolFailed(tool_text(&r).unwrap_or_default()));
    }
    if let Some(v) = r.structured_content.clone() {
        return serde_json::from_value(v)
            .map_err(|e| ClientError::InvalidResponse(format!("structuredContent: {e}")));
    }
    match tool_text(&r) {
        Some(t) => serde_json::from_str(&t).map_err(|e| {
            ClientError::InvalidResponse(format!(
                "no structuredContent, and the text is not it: {e}"
            ))
        }),
        None => Err(ClientError::InvalidResponse(
            "the result has no structuredContent".into(),
        )),
    }
}
