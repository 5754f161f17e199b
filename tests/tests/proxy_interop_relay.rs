//! Resource updates and list changes across the proxy hop from other SDKs' servers, started
//! by the tests over stdio and mounted into a gateway: the official Python SDK server
//! (`interop/client/python_server.py`) and the TypeScript
//! `@modelcontextprotocol/server-everything`, each to downstream clients of both eras.
//! Each change upstream arrives downstream exactly once, under the namespaced URI; the
//! Python server's completions answer through the gateway under the namespaced names.
//!
//! The Python SDK offers resource subscriptions on 2026-07-28 only (its listen stream; on
//! 2025-11-25 it declares `resources.subscribe: false` and serves no `resources/subscribe`):
//! its updates are asserted through a 2026 upstream connection. server-everything speaks
//! the legacy revisions and serves `resources/subscribe`.
//!
//! Both are installed by `interop/cli/setup.sh` (`INTEROP_VENV`, `INTEROP_NPM_DIR`); when
//! missing the tests are skipped with a note, unless `MCP_CLI_INTEROP=require` (CI).

mod support;

use std::time::Duration;

use mcp::client::Client;
use mcp::client::{ConnectMode, ServerNotification, Subscription};
use mcp::prelude::*;
use mcp::proxy::Proxy;
use mcp::types::{CompleteParams, CompletionArgument, CompletionReference, SubscriptionFilter};
use serde_json::json;
use support::upstreams::{python, ts_everything};
use tokio::sync::broadcast;

use ProtocolVersion as V;

const LEGACY: ConnectMode = ConnectMode::Legacy(V::V2025_11_25);
const MODERN: ConnectMode = ConnectMode::Modern(V::V2026_07_28);

async fn bounded<F: std::future::Future>(f: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(120), f)
        .await
        .expect("the test finished within 120 s")
}

/// A gateway serving `proxy` under `ns`.
fn gateway(ns: &str, proxy: &Proxy) -> Server<impl mcp::middleware::Chain> {
    Server::builder("gateway", "1.0.0")
        .subscriptions(true)
        .mount(ns, proxy.server())
        .middleware(proxy.readiness())
        .build()
}

async fn downstream(server: &Server<impl mcp::middleware::Chain>, mode: ConnectMode) -> Client {
    Client::builder()
        .mode(mode)
        .connect(server.serve_in_memory())
        .await
        .expect("downstream connects")
}

/// `resources/subscribe` (legacy) or a listen stream naming `uri` (2026, open while the
/// returned value lives).
async fn subscribe(c: &Client, uri: &str) -> Option<Subscription> {
    if c.protocol_version().era() == mcp::version::Era::Legacy {
        c.subscribe_resource(uri)
            .await
            .expect("resources/subscribe");
        return None;
    }
    let filter = SubscriptionFilter {
        resource_subscriptions: Some(vec![uri.to_owned()]),
        ..SubscriptionFilter::default()
    };
    Some(c.listen(filter).await.expect("subscriptions/listen"))
}

/// The notifications named `method` arriving within `ms` (their `params.uri`, or "").
async fn gather(
    notes: &mut broadcast::Receiver<ServerNotification>,
    method: &str,
    ms: u64,
) -> Vec<String> {
    let mut seen = Vec::new();
    let until = tokio::time::Instant::now() + Duration::from_millis(ms);
    while let Ok(Ok(n)) = tokio::time::timeout_at(until, notes.recv()).await {
        if n.method == method {
            let p = n.params.unwrap_or_default();
            seen.push(p["uri"].as_str().unwrap_or_default().to_owned());
        }
    }
    seen
}

/// The first `method` within 10 s, then any others within `quiet_ms`.
async fn one_then_quiet(
    label: &str,
    notes: &mut broadcast::Receiver<ServerNotification>,
    method: &str,
    quiet_ms: u64,
) -> Vec<String> {
    let first = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let n = notes.recv().await.expect("notifications");
            if n.method == method {
                return n.params.unwrap_or_default()["uri"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned();
            }
        }
    })
    .await
    .unwrap_or_else(|_| panic!("{label}: no {method} arrived"));
    let mut all = vec![first];
    all.extend(gather(notes, method, quiet_ms).await);
    all
}

const UPDATED: &str = "notifications/resources/updated";

#[tokio::test]
async fn the_python_sdk_servers_resource_updates_reach_subscribers_once() {
    let Some(upstream) = python() else {
        return;
    };
    bounded(async {
        let proxy = Proxy::connect(upstream.mode(MODERN)).await.unwrap();
        let gateway = gateway("py", &proxy);
        for down in [LEGACY, MODERN] {
            let c = downstream(&gateway, down).await;
            let mut notes = c.notifications();
            let sub = subscribe(&c, "demo://py/readme").await;
            c.call_tool("py_changed", json!({"uri": "demo://readme"}))
                .await
                .unwrap();
            assert_eq!(
                one_then_quiet(&format!("{down:?}"), &mut notes, UPDATED, 400).await,
                ["demo://py/readme"],
                "{down:?}"
            );
            // Not subscribed: nothing.
            c.call_tool("py_changed", json!({"uri": "demo://counted"}))
                .await
                .unwrap();
            assert!(
                gather(&mut notes, UPDATED, 300).await.is_empty(),
                "{down:?}"
            );
            drop(sub);
            if down == LEGACY {
                c.unsubscribe_resource("demo://py/readme").await.unwrap();
            }
        }
    })
    .await;
}

#[tokio::test]
async fn server_everythings_resource_updates_and_list_changes_arrive_once() {
    let Some(upstream) = ts_everything() else {
        return;
    };
    bounded(async {
        let proxy = Proxy::connect(upstream).await.unwrap();
        let gateway = gateway("ts", &proxy);
        for (i, down) in [LEGACY, MODERN].into_iter().enumerate() {
            let c = downstream(&gateway, down).await;
            let mut notes = c.notifications();
            let _listen = if down == MODERN {
                let filter = SubscriptionFilter {
                    resources_list_changed: Some(true),
                    ..SubscriptionFilter::default()
                };
                Some(c.listen(filter).await.unwrap())
            } else {
                None
            };
            // A list change upstream (a resource registered for the gzipped file): one
            // `resources/list_changed` upstream, one downstream, and the new entry listed.
            let mut upstream_notes = proxy.client().expect("connected").notifications();
            let name = format!("hello-{i}.gz");
            c.call_tool(
                "ts_gzip-file-as-resource",
                json!({"name": name, "data": "data:text/plain;base64,aGVsbG8=", "outputType": "resourceLink"}),
            )
            .await
            .unwrap();
            let changed = "notifications/resources/list_changed";
            let label = format!("{down:?}");
            assert_eq!(
                one_then_quiet(&label, &mut notes, changed, 600).await.len(),
                1,
                "{label}: one list change downstream"
            );
            assert_eq!(
                gather(&mut upstream_notes, changed, 1).await.len(),
                1,
                "{label}: one list change upstream"
            );
            let listed = c.list_all_resources().await.unwrap();
            assert!(
                listed.iter().any(|r| r.name == name && r.uri.contains("/ts/")),
                "{label}: {listed:?}"
            );

            // A resource update: server-everything sends one for each subscribed URI when
            // its simulated updates are switched on, then one every 5 s.
            let uri = (listed.iter())
                .find(|r| r.uri.contains("/ts/") && !r.uri.ends_with(".gz"))
                .map(|r| r.uri.clone())
                .expect("a static resource");
            let sub = subscribe(&c, &uri).await;
            c.call_tool("ts_toggle-subscriber-updates", json!({}))
                .await
                .unwrap();
            assert_eq!(
                one_then_quiet(&label, &mut notes, UPDATED, 1500).await,
                std::slice::from_ref(&uri),
                "{label}"
            );
            c.call_tool("ts_toggle-subscriber-updates", json!({}))
                .await
                .unwrap();
            drop(sub);
            if down == LEGACY {
                c.unsubscribe_resource(&uri).await.unwrap();
            }
        }
    })
    .await;
}

async fn complete(
    c: &Client,
    reference: CompletionReference,
    arg: &str,
    value: &str,
) -> Vec<String> {
    let params = CompleteParams {
        reference,
        argument: CompletionArgument {
            name: arg.into(),
            value: value.into(),
        },
        ..Default::default()
    };
    c.complete(params)
        .await
        .expect("completion/complete")
        .completion
        .values
}

#[tokio::test]
async fn the_python_sdk_servers_completions_cross_the_hop_in_both_eras() {
    let Some(upstream) = python() else {
        return;
    };
    bounded(async {
        for up in [LEGACY, MODERN] {
            let proxy = Proxy::connect(upstream.clone().mode(up)).await.unwrap();
            let gateway = gateway("py", &proxy);
            for down in [LEGACY, MODERN] {
                let label = format!("{up:?} -> {down:?}");
                let c = downstream(&gateway, down).await;
                assert!(c.server_capabilities().completions.is_some(), "{label}");
                let greet = CompletionReference::prompt("py_greet");
                assert_eq!(
                    complete(&c, greet, "name", "Al").await,
                    ["Alice", "Albert"],
                    "{label}"
                );
                let notes = CompletionReference::resource("demo://py/notes/{id}");
                assert_eq!(
                    complete(&c, notes, "id", "").await,
                    ["1", "2", "3"],
                    "{label}"
                );
            }
        }
    })
    .await;
}

/// Over stdio a log message of the Python SDK server names no request, so with several
/// calls in flight the proxy cannot tell whose it is; when they all come from one
/// downstream session (one client: a per-caller connection, or one agent's parallel
/// calls), each message still reaches that client: none lost, each call's in order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_servers_logs_reach_the_one_client_calling_in_parallel_over_stdio() {
    const CALLS: usize = 3;
    const EACH: usize = 20;
    let Some(python) = python() else { return };
    bounded(async {
        for up in [LEGACY, MODERN] {
            let proxy = Proxy::connect(python.clone().mode(up)).await.unwrap();
            let c = downstream(&proxy.server(), LEGACY).await;
            c.set_log_level(mcp::types::LoggingLevel::Info)
                .await
                .unwrap();
            let mut notes = c.notifications();
            let calls: Vec<_> = (0..CALLS)
                .map(|k| {
                    let (c, args) = (c.clone(), json!({"tag": format!("call{k}"), "n": EACH}));
                    tokio::spawn(async move { c.call_tool("log_burst", args).await })
                })
                .collect();
            for call in calls {
                let r = call.await.unwrap().unwrap();
                assert!(
                    serde_json::to_string(&r).unwrap().contains("logged"),
                    "{up:?}: {r:?}"
                );
            }
            let mut heard: Vec<Vec<String>> = vec![Vec::new(); CALLS];
            while let Ok(note) = notes.try_recv() {
                let data = note.params.as_ref().map(|p| p["data"].to_string());
                let data = data.unwrap_or_default().trim_matches('"').to_owned();
                if let Some((tag, _)) = data.split_once('-')
                    && let Some(k) = tag
                        .strip_prefix("call")
                        .and_then(|k| k.parse::<usize>().ok())
                {
                    heard[k].push(data);
                }
            }
            for (k, heard) in heard.iter().enumerate() {
                let want: Vec<String> = (0..EACH).map(|i| format!("call{k}-{i}")).collect();
                assert_eq!(heard, &want, "{up:?}: call{k}'s logs");
            }
        }
    })
    .await;
}
