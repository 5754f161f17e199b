#!/usr/bin/env node
// Interop: the official TypeScript MCP SDK v1 client (npm @modelcontextprotocol/sdk, pinned in
// run.sh) drives tests/examples/conformance_server.rs over both HTTP transports:
//
// - sse_*: `SSEClientTransport`, the 2024-11-05 HTTP+SSE transport (GET /sse, whose first
//   event `endpoint` names POST /messages?sessionId=...; answers arrive as `message` events).
//   `sse_offer_2024_11_05` offers 2024-11-05 in initialize (the SDK always offers its latest,
//   so the tap below rewrites the offer, as a 2024-11-05-era client would send it);
//   `sse_offer_latest` keeps the SDK's own offer (2025-11-25), which is what SDK v1 clients
//   falling back from Streamable HTTP really send over this transport.
// - streamable_2025_11_25: `StreamableHTTPClientTransport` on /mcp at 2025-11-25 (session
//   id, MCP-Protocol-Version header, SSE-streamed progress, DELETE on termination).
//
// Each test initializes, lists tools, calls test_simple_text, test_tool_with_progress (progress
// notifications must arrive before the result) and test_error_handling (isError), cancels a
// call in flight (notifications/cancelled; the session must keep serving), and checks the
// negotiated version on the wire. Every JSON-RPC message and HTTP exchange is recorded and
// printed when a test fails (INTEROP_VERBOSE=1: always).
//
// Usage: node test_http.mjs BASE_URL   (e.g. http://127.0.0.1:3001)
// Env:   INTEROP_TS_DIR — where the SDK is installed (default target/interop-ts).
// Prints `<n> passed, <m> failed` as its last line; exits non-zero on any failure.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SDK_DIR = path.resolve(process.env.INTEROP_TS_DIR ?? path.join(HERE, '../../target/interop-ts'));
const require = createRequire(path.join(SDK_DIR, 'package.json'));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { SSEClientTransport } = require('@modelcontextprotocol/sdk/client/sse.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { LATEST_PROTOCOL_VERSION } = require('@modelcontextprotocol/sdk/types.js');
// (`@modelcontextprotocol/sdk/package.json` resolves through the `./*` export to dist/cjs/.)
const SDK_VERSION = JSON.parse(
    readFileSync(path.join(SDK_DIR, 'node_modules/@modelcontextprotocol/sdk/package.json'), 'utf8')
).version;

const BASE = process.argv[2] ?? 'http://127.0.0.1:3001';
const TEST_TIMEOUT_MS = 30_000;
const REQUEST_TIMEOUT_MS = 10_000;
const SIMPLE_TEXT = 'This is a simple text response for testing.';
const EXPECTED_TOOLS = ['test_simple_text', 'test_error_handling', 'test_tool_with_progress'];

class Wire {
    constructor() {
        this.lines = [];
        this.sent = []; // client -> server JSON-RPC
        this.received = []; // server -> client JSON-RPC
        this.http = []; // {method, url, status, contentType, headers}
    }
    log(line) {
        this.lines.push(`${new Date().toISOString().slice(11, 23)} ${line}`);
    }
    /** A fetch that records every HTTP exchange (request headers that matter, status). */
    fetch() {
        return async (url, init = {}) => {
            const method = init.method ?? 'GET';
            const h = new Headers(init.headers ?? {});
            const shown = ['accept', 'content-type', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id']
                .filter(k => h.has(k))
                .map(k => `${k}: ${h.get(k)}`)
                .join('; ');
            const body = typeof init.body === 'string' ? ` body=${init.body}` : '';
            this.log(`HTTP ${method} ${url} [${shown}]${body}`);
            const entry = { method, url: String(url), status: null, contentType: null, reqHeaders: h, error: null };
            this.http.push(entry);
            let res;
            try {
                res = await fetch(url, init);
            } catch (e) {
                entry.error = String(e);
                this.log(`HTTP ${method} ${url} -> network error ${e}`);
                throw e;
            }
            const rh = ['content-type', 'mcp-session-id']
                .filter(k => res.headers.has(k))
                .map(k => `${k}: ${res.headers.get(k)}`)
                .join('; ');
            this.log(`HTTP ${method} ${url} -> ${res.status} [${rh}]`);
            entry.status = res.status;
            entry.contentType = res.headers.get('content-type');
            return res;
        };
    }
    requests() {
        return this.sent.filter(m => 'method' in m && 'id' in m);
    }
    responseTo(req) {
        const r = this.received.find(m => m.id === req.id && ('result' in m || 'error' in m));
        if (!r) throw new Error(`no response on the wire to request ${req.id} (${req.method})`);
        return r;
    }
    dump() {
        return ['--- wire log:', ...this.lines].join('\n');
    }
}

/** Wraps a transport, recording every JSON-RPC message; `rewrite` may alter outgoing ones. */
class Tap {
    constructor(inner, wire, rewrite = m => m) {
        this.inner = inner;
        this.wire = wire;
        this.rewrite = rewrite;
        inner.onmessage = (m, extra) => {
            wire.received.push(m);
            wire.log(`S>C ${JSON.stringify(m)}`);
            this.onmessage?.(m, extra);
        };
        inner.onclose = () => {
            wire.log('transport closed');
            this.onclose?.();
        };
        inner.onerror = e => {
            wire.log(`transport error: ${e}`);
            this.onerror?.(e);
        };
    }
    get sessionId() {
        return this.inner.sessionId;
    }
    get protocolVersion() {
        return this.inner.protocolVersion ?? this.inner._protocolVersion;
    }
    start() {
        return this.inner.start();
    }
    async send(m, opts) {
        m = this.rewrite(m);
        this.wire.sent.push(m);
        this.wire.log(`C>S ${JSON.stringify(m)}`);
        return this.inner.send(m, opts);
    }
    setProtocolVersion(v) {
        this.wire.log(`transport.setProtocolVersion(${v})`);
        this.inner.setProtocolVersion?.(v);
    }
    close() {
        return this.inner.close();
    }
}

function check(cond, what) {
    if (!cond) throw new Error(what);
}

const reqOpts = extra => ({ timeout: REQUEST_TIMEOUT_MS, ...extra });

/** initialize is done by connect; this lists tools, calls three of them and cancels a call. */
async function exercise(client, wire) {
    const tools = await client.listTools(undefined, reqOpts());
    const names = tools.tools.map(t => t.name);
    for (const n of EXPECTED_TOOLS) check(names.includes(n), `tools/list lacks ${n}: ${JSON.stringify(names)}`);
    const simple = tools.tools.find(t => t.name === 'test_simple_text');
    check(simple.inputSchema?.type === 'object', `test_simple_text inputSchema ${JSON.stringify(simple.inputSchema)}`);

    const r = await client.callTool({ name: 'test_simple_text', arguments: {} }, undefined, reqOpts());
    check(!r.isError, `test_simple_text isError: ${JSON.stringify(r)}`);
    check(Array.isArray(r.content) && r.content.length === 1, `want one content block: ${JSON.stringify(r.content)}`);
    check(r.content[0].type === 'text' && r.content[0].text === SIMPLE_TEXT, `test_simple_text content ${JSON.stringify(r.content)}`);

    const progress = [];
    const p = await client.callTool(
        { name: 'test_tool_with_progress', arguments: {} },
        undefined,
        reqOpts({ onprogress: n => progress.push(n) })
    );
    check(!p.isError && p.content?.[0]?.text === 'Progress complete', `test_tool_with_progress result ${JSON.stringify(p)}`);
    check(
        JSON.stringify(progress.map(n => n.progress)) === '[0,50,100]',
        `progress notifications ${JSON.stringify(progress)}, want progress 0, 50, 100`
    );
    check(progress.every(n => n.total === 100), `progress totals ${JSON.stringify(progress)}`);

    const e = await client.callTool({ name: 'test_error_handling', arguments: {} }, undefined, reqOpts());
    check(e.isError === true, `test_error_handling isError is ${e.isError}: ${JSON.stringify(e)}`);
    check(
        e.content?.[0]?.text === 'This tool intentionally returns an error for testing',
        `test_error_handling content ${JSON.stringify(e.content)}`
    );

    // Cancellation: abort a call at its first progress notification; the client sends
    // notifications/cancelled, and the session must go on serving. (A server SHOULD NOT answer
    // a cancelled request, but MAY if it had finished: a late answer is only noted.)
    const ac = new AbortController();
    const cancelled = client
        .callTool({ name: 'test_tool_with_progress', arguments: {} }, undefined, reqOpts({ signal: ac.signal, onprogress: () => ac.abort('interop cancel') }))
        .then(
            r => `completed: ${JSON.stringify(r)}`,
            err => err
        );
    const outcome = await cancelled;
    check(outcome instanceof Error, `aborted call was not rejected (${outcome})`);
    const cancel = wire.sent.find(m => m.method === 'notifications/cancelled');
    check(cancel, 'no notifications/cancelled was sent');
    const cancelledId = cancel.params.requestId;
    await new Promise(r => setTimeout(r, 150));
    const after = await client.callTool({ name: 'test_simple_text', arguments: {} }, undefined, reqOpts());
    check(after.content?.[0]?.text === SIMPLE_TEXT, `call after a cancellation: ${JSON.stringify(after)}`);
    if (wire.received.some(m => m.id === cancelledId && 'result' in m)) {
        wire.log(`note: the cancelled request ${cancelledId} was answered anyway`);
    }

    // Every other request was answered with a result.
    for (const req of wire.requests().filter(r => r.id !== cancelledId)) {
        const resp = wire.responseTo(req);
        check(!('error' in resp), `${req.method} answered with an error: ${JSON.stringify(resp)}`);
    }
}

function checkInitialize(wire, offered) {
    const reqs = wire.requests();
    check(reqs[0]?.method === 'initialize', `first request is ${reqs[0]?.method}`);
    check(reqs[0].params.protocolVersion === offered, `initialize offered ${reqs[0].params.protocolVersion}, want ${offered}`);
    const resp = wire.responseTo(reqs[0]);
    check(resp.result?.protocolVersion === offered, `initialize answered ${JSON.stringify(resp)}, want protocolVersion ${offered}`);
    check(resp.result?.serverInfo?.name === 'mcp-rust-conformance', `serverInfo ${JSON.stringify(resp.result?.serverInfo)}`);
    check(resp.result?.capabilities?.tools !== undefined, `no tools capability: ${JSON.stringify(resp.result?.capabilities)}`);
    const notes = wire.sent.filter(m => 'method' in m && !('id' in m)).map(m => m.method);
    check(notes.includes('notifications/initialized'), `no notifications/initialized sent: ${notes}`);
}

function newClient() {
    return new Client({ name: 'ts-sdk-interop', version: SDK_VERSION }, { capabilities: {} });
}

async function sseTest(wire, offered) {
    const rewrite = m =>
        m.method === 'initialize' && offered !== LATEST_PROTOCOL_VERSION
            ? { ...m, params: { ...m.params, protocolVersion: offered } }
            : m;
    const inner = new SSEClientTransport(new URL('/sse', BASE), { fetch: wire.fetch() });
    const tap = new Tap(inner, wire, rewrite);
    const client = newClient();
    try {
        await client.connect(tap, reqOpts());
        check(client.getServerVersion()?.name === 'mcp-rust-conformance', `serverInfo ${JSON.stringify(client.getServerVersion())}`);
        check(tap.protocolVersion === offered, `transport protocol version ${tap.protocolVersion}, want ${offered}`);
        checkInitialize(wire, offered);
        const endpoint = inner._endpoint;
        check(endpoint?.pathname === '/messages' && endpoint.searchParams.get('sessionId'), `endpoint event gave ${endpoint}`);
        await exercise(client, wire);
    } finally {
        await client.close();
    }
    const get = wire.http.find(h => h.method === 'GET');
    check(get && get.status === 200 && get.contentType?.startsWith('text/event-stream'), `GET /sse answered ${JSON.stringify(get)}`);
    // initialize, notifications/initialized, tools/list, three tools/call, the cancelled
    // call, notifications/cancelled, one more tools/call.
    const posts = wire.http.filter(h => h.method === 'POST');
    check(posts.length === 9, `${posts.length} POSTs recorded, want 9`);
    for (const p of posts) {
        check(new URL(p.url).pathname === '/messages', `POST went to ${p.url}`);
        // The answer travels on the stream and may overtake the 202 of its POST; close()
        // then aborts that POST (status null), which is the client's doing, not a failure.
        check(p.status === 202 || (p.status === null && p === posts.at(-1)), `POST ${p.url} answered ${p.status} ${p.error ?? ''}, want 202`);
    }
}

async function streamableTest(wire) {
    const offered = '2025-11-25';
    check(LATEST_PROTOCOL_VERSION === offered, `SDK's latest version is ${LATEST_PROTOCOL_VERSION}, this test expects ${offered}`);
    const inner = new StreamableHTTPClientTransport(new URL('/mcp', BASE), { fetch: wire.fetch() });
    const tap = new Tap(inner, wire);
    const client = newClient();
    let sid;
    try {
        await client.connect(tap, reqOpts());
        checkInitialize(wire, offered);
        check(tap.protocolVersion === offered, `transport protocol version ${tap.protocolVersion}, want ${offered}`);
        sid = inner.sessionId;
        check(typeof sid === 'string' && sid.length > 0, `no Mcp-Session-Id: ${sid}`);
        await exercise(client, wire);
        await inner.terminateSession();
        check(inner.sessionId === undefined, 'session id kept after DELETE');
    } finally {
        await client.close();
    }
    const init = wire.http.find(h => h.method === 'POST');
    check(init.status === 200, `initialize POST answered ${init.status}`);
    const after = wire.http.filter(h => h !== init && h.method !== 'DELETE');
    for (const h of after) {
        check(h.reqHeaders.get('mcp-session-id') === sid, `${h.method} ${h.url} carried session ${h.reqHeaders.get('mcp-session-id')}`);
        check(h.reqHeaders.get('mcp-protocol-version') === offered, `${h.method} carried MCP-Protocol-Version ${h.reqHeaders.get('mcp-protocol-version')}`);
    }
    for (const h of after.filter(h => h.method === 'POST')) {
        check([200, 202].includes(h.status), `POST answered ${h.status}`);
    }
    const del = wire.http.find(h => h.method === 'DELETE');
    check(del && [200, 204].includes(del.status), `DELETE answered ${JSON.stringify(del && del.status)}`);
}

const TESTS = [
    ['sse_offer_2024_11_05', w => sseTest(w, '2024-11-05')],
    ['sse_offer_latest_2025_11_25', w => sseTest(w, LATEST_PROTOCOL_VERSION)],
    ['streamable_2025_11_25', streamableTest],
];

async function main() {
    console.log(`typescript @modelcontextprotocol/sdk ${SDK_VERSION} (from ${SDK_DIR}) against ${BASE}`);
    let passed = 0;
    let failed = 0;
    for (const [name, fn] of TESTS) {
        const wire = new Wire();
        let timer;
        try {
            await Promise.race([
                fn(wire),
                new Promise((_, rej) => {
                    timer = setTimeout(() => rej(new Error(`timed out after ${TEST_TIMEOUT_MS} ms`)), TEST_TIMEOUT_MS);
                }),
            ]);
            passed++;
            console.log(`ok   ${name}`);
            if (process.env.INTEROP_VERBOSE) console.log(wire.dump());
        } catch (e) {
            failed++;
            console.log(`FAIL ${name}: ${e?.stack ?? e}`);
            console.log(wire.dump());
        } finally {
            clearTimeout(timer);
        }
    }
    console.log(`${passed} passed, ${failed} failed`);
    process.exit(failed === 0 && passed === TESTS.length ? 0 : 1);
}

main();
