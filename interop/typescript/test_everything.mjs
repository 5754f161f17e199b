#!/usr/bin/env node
// Interop: the official TypeScript clients exercise examples/everything.rs at each revision
// they speak, over each transport:
//
// - v1 (`@modelcontextprotocol/sdk`, INTEROP_TS_DIR): 2025-11-25 over stdio, Streamable HTTP
//   and the 2024-11-05 HTTP+SSE transport (elicitation and sampling arrive as
//   server-to-client requests);
// - v2 (`@modelcontextprotocol/client`, INTEROP_TS2_DIR): 2026-07-28 (pinned) over stdio and
//   Streamable HTTP (elicitation and sampling arrive as `input_required` rounds, answered by
//   the same handlers, and the call is retried with `requestState`).
//
// Each run checks the lists, a tool call with structured output, a text and a binary
// resource, a prompt, completion, progress, cancellation (the server counts what it saw
// cancelled), logging, elicitation and sampling.
//
// Usage: node test_everything.mjs BINARY BASE_URL   (BASE_URL e.g. http://127.0.0.1:3001)
// Prints `<n> passed, <m> failed` as its last line; exits non-zero on any failure.

import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const V1_DIR = path.resolve(process.env.INTEROP_TS_DIR ?? path.join(HERE, '../../target/interop-ts'));
const V2_DIR = path.resolve(process.env.INTEROP_TS2_DIR ?? path.join(HERE, '../../target/interop-ts2'));
const [BINARY, BASE] = [path.resolve(process.argv[2]), process.argv[3]];
const TEST_TIMEOUT_MS = 60_000;

const v1req = createRequire(path.join(V1_DIR, 'package.json'));
const v1 = {
    ...v1req('@modelcontextprotocol/sdk/client/index.js'),
    ...v1req('@modelcontextprotocol/sdk/client/stdio.js'),
    ...v1req('@modelcontextprotocol/sdk/client/sse.js'),
    ...v1req('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    types: v1req('@modelcontextprotocol/sdk/types.js'),
};
const v2Entry = (sub) => pathToFileURL(path.join(V2_DIR, 'node_modules/@modelcontextprotocol/client/dist', sub)).href;
const v2 = { ...(await import(v2Entry('index.mjs'))), ...(await import(v2Entry('stdio.mjs'))) };

function check(cond, what) {
    if (!cond) throw new Error(what);
}
const texts = (r) => r.content.map((b) => b.text);
const sleep = (ms) => new Promise((res) => setTimeout(res, ms));
async function until(what, cond, ms = 5_000) {
    const end = Date.now() + ms;
    while (!(await cond())) {
        if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
        await sleep(20);
    }
}

/** What the client's handlers saw. */
class Seen {
    logs = [];
    elicitations = [];
    samplings = [];
}

const elicit = (seen) => async (req) => {
    seen.elicitations.push(req.params.message);
    return { action: 'accept', content: { name: 'Ada', age: 36 } };
};
const sample = (seen) => async (req) => {
    seen.samplings.push(req.params.messages[0].content.text ?? '');
    return { role: 'assistant', content: { type: 'text', text: 'a short summary' }, model: 'interop-model', stopReason: 'endTurn' };
};

function v1Client(seen) {
    const c = new v1.Client({ name: 'interop-v1', version: '1.0.0' }, { capabilities: { elicitation: {}, sampling: {} } });
    c.setRequestHandler(v1.types.ElicitRequestSchema, elicit(seen));
    c.setRequestHandler(v1.types.CreateMessageRequestSchema, sample(seen));
    c.setNotificationHandler(v1.types.LoggingMessageNotificationSchema, (n) => seen.logs.push(n.params.level));
    return c;
}

function v2Client(seen) {
    const c = new v2.Client(
        { name: 'interop-v2', version: '1.0.0' },
        { capabilities: { elicitation: {}, sampling: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } }
    );
    c.setRequestHandler('elicitation/create', elicit(seen));
    c.setRequestHandler('sampling/createMessage', sample(seen));
    c.setNotificationHandler('notifications/message', (n) => seen.logs.push(n.params.level));
    return c;
}

/** `callTool` with request options: v1 takes them third (after a result schema), v2 second. */
const callWith = (client, params, options) =>
    client instanceof v2.Client ? client.callTool(params, options) : client.callTool(params, undefined, options);

async function exercise(client, seen, era) {
    const names = (await client.listTools()).tools.map((t) => t.name);
    for (const t of ['add', 'countdown', 'sleep', 'stats', 'log_demo', 'ask_name', 'summarize', 'weather']) {
        check(names.includes(t), `tools/list lacks ${t}: ${names}`);
    }
    const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
    check(prompts.includes('greet') && prompts.includes('describe_logo'), `prompts/list: ${prompts}`);
    const resources = (await client.listResources()).resources.map((r) => r.uri);
    check(resources.includes('everything://readme') && resources.includes('everything://logo.png'), `resources/list: ${resources}`);
    const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    check(templates.includes('everything://notes/{id}'), `templates: ${templates}`);

    let r = await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
    check(!r.isError && texts(r)[0] === '42', `add: ${JSON.stringify(r)}`);
    r = await client.callTool({ name: 'weather', arguments: { city: 'Lisbon' } });
    check(r.structuredContent?.city === 'Lisbon', `weather: ${JSON.stringify(r)}`);

    const readme = await client.readResource({ uri: 'everything://readme' });
    check(readme.contents[0].text.includes('everything'), `readme: ${JSON.stringify(readme)}`);
    const logo = await client.readResource({ uri: 'everything://logo.png' });
    check(Buffer.from(logo.contents[0].blob, 'base64').subarray(0, 4).toString('latin1') === '\x89PNG', 'logo.png is not a PNG');
    const note = await client.readResource({ uri: 'everything://notes/7' });
    check(note.contents[0].text.includes('note 7'), `note: ${JSON.stringify(note)}`);

    const greet = await client.getPrompt({ name: 'greet', arguments: { name: 'Grace' } });
    check(greet.messages[0].content.text.includes('Grace'), `greet: ${JSON.stringify(greet)}`);
    const done = await client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'Al' } });
    const values = done.completion.values;
    check(values.length > 0 && values.every((v) => v.startsWith('Al')), `completion: ${values}`);

    const progress = [];
    r = await callWith(client, { name: 'countdown', arguments: { steps: 3, delay_ms: 5 } }, {
        onprogress: (p) => progress.push(p.progress),
    });
    check(!r.isError, `countdown: ${JSON.stringify(r)}`);
    // The SDKs hand notifications to their callbacks asynchronously: the last one may run
    // just after the result (the server sent it before: the order is checked on the wire
    // in tests/runtime.rs).
    await until('three progress notifications', async () => progress.length >= 3, 2_000);
    check(progress.join() === '1,2,3', `countdown progress ${progress}`);

    const cancelled = async () => (await client.callTool({ name: 'stats', arguments: {} })).structuredContent.cancelled;
    const before = await cancelled();
    const abort = new AbortController();
    const call = callWith(client, { name: 'sleep', arguments: { ms: 20_000 } }, { signal: abort.signal });
    await sleep(300);
    abort.abort();
    await call.then(
        () => check(false, 'sleep returned although it was cancelled'),
        () => {}
    );
    await until('the server to see the cancellation', async () => (await cancelled()) === before + 1);

    // Legacy: the session's level; 2026-07-28: the request opts in through `_meta`.
    const logMeta = era === 'modern' ? { _meta: { [v2.LOG_LEVEL_META_KEY]: 'warning' } } : {};
    if (era !== 'modern') await client.setLoggingLevel('warning');
    seen.logs.length = 0;
    r = await client.callTool({ name: 'log_demo', arguments: {}, ...logMeta });
    check(!r.isError, `log_demo: ${JSON.stringify(r)}`);
    await until('two log messages', async () => seen.logs.length >= 2);
    await sleep(100);
    check(seen.logs.join() === 'warning,error', `log levels ${seen.logs} (${era})`);

    r = await client.callTool({ name: 'ask_name', arguments: {} });
    check(texts(r)[0] === 'Hello, Ada (36)!', `ask_name: ${JSON.stringify(r)}`);
    check(seen.elicitations.length === 1, `elicitation handler ran ${seen.elicitations.length} times`);
    r = await client.callTool({ name: 'summarize', arguments: { text: 'a long text '.repeat(10) } });
    check(texts(r)[0] === 'Summary: a short summary', `summarize: ${JSON.stringify(r)}`);
    check(seen.samplings.length === 1 && seen.samplings[0].includes('a long text'), `sampling saw ${seen.samplings}`);
}

async function run(make, transport, era, wantVersion) {
    const seen = new Seen();
    const client = make(seen);
    await client.connect(transport);
    try {
        const negotiated = client.getNegotiatedProtocolVersion?.() ?? client.transport?.protocolVersion ?? wantVersion;
        check(negotiated === wantVersion, `negotiated ${negotiated}, want ${wantVersion}`);
        await exercise(client, seen, era);
    } finally {
        await client.close();
    }
}

const stdio = (T) => new T({ command: BINARY, args: ['--stdio'], stderr: 'ignore' });
const TESTS = [
    ['v1 stdio 2025-11-25', () => run(v1Client, stdio(v1.StdioClientTransport), 'legacy', '2025-11-25')],
    ['v1 streamable-http 2025-11-25', () => run(v1Client, new v1.StreamableHTTPClientTransport(new URL(`${BASE}/mcp`)), 'legacy', '2025-11-25')],
    ['v1 http+sse', () => run(v1Client, new v1.SSEClientTransport(new URL(`${BASE}/sse`)), 'legacy', '2025-11-25')],
    ['v2 stdio 2026-07-28', () => run(v2Client, stdio(v2.StdioClientTransport), 'modern', '2026-07-28')],
    ['v2 streamable-http 2026-07-28', () => run(v2Client, new v2.StreamableHTTPClientTransport(new URL(`${BASE}/mcp`)), 'modern', '2026-07-28')],
];

let passed = 0;
let failed = 0;
for (const [name, test] of TESTS) {
    try {
        await Promise.race([test(), sleep(TEST_TIMEOUT_MS).then(() => Promise.reject(new Error('timed out')))]);
        passed++;
        console.log(`ok   ${name}`);
    } catch (e) {
        failed++;
        console.log(`FAIL ${name}: ${e?.stack ?? e}`);
    }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
