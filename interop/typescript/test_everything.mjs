#!/usr/bin/env node
// Interop: the official TypeScript clients exercise examples/everything.rs at each revision
// they speak, over each transport:
//
// - v1 (`@modelcontextprotocol/sdk`, INTEROP_TS_DIR) and v2 (`@modelcontextprotocol/client`,
//   INTEROP_TS2_DIR, `versionNegotiation: 'legacy'`) at 2024-11-05, 2025-03-26, 2025-06-18
//   and 2025-11-25 over stdio, Streamable HTTP and the 2024-11-05 HTTP+SSE transport
//   (elicitation and sampling arrive as server-to-client requests). Both clients offer
//   2025-11-25; a server offering only REV makes them negotiate down to it.
// - v2 in `'auto'` mode at each legacy revision over stdio and Streamable HTTP: the
//   `server/discover` probe fails as on a legacy server, and the client falls back to
//   `initialize`;
// - v2 at 2026-07-28 (pinned) over stdio and Streamable HTTP (elicitation and sampling arrive
//   as `input_required` rounds, answered by the same handlers, and the call is retried with
//   `requestState`).
//
// Every run records the wire (each message the transport delivers, and the method of each
// request sent) and asserts the negotiated revision from the `initialize` result itself, then
// what that revision defines, present where it defines it and absent where it does not:
//   2024-11-05  no tool annotations, titles, icons, outputSchema, structuredContent; audio and
//               resource links arrive as text blocks; no elicitation; no `completions` capability
//   2025-03-26  tool annotations, audio content, the `completions` capability
//   2025-06-18  titles, outputSchema + structuredContent, resource links, elicitation
//   2025-11-25  icons, URL-mode elicitation, `execution.taskSupport`, the `tasks` capability,
//               and (v1, which has a task client) `report` run as a task to its result
// and the lists, tool calls, text and binary resources, a prompt, completion, progress,
// cancellation (the server counts what it saw cancelled), logging, elicitation and sampling.
//
// Usage: node test_everything.mjs BINARY REV=BASE_URL [REV=BASE_URL ...]
//   (one `everything --http --protocol-versions REV` per REV; BASE_URL e.g. http://127.0.0.1:3001)
// Prints one line per test, a summary table (client/transport x revision), then
// `<n> passed, <m> failed` as its last line; exits non-zero on any failure.

import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const V1_DIR = path.resolve(process.env.INTEROP_TS_DIR ?? path.join(HERE, '../../target/interop-ts'));
const V2_DIR = path.resolve(process.env.INTEROP_TS2_DIR ?? path.join(HERE, '../../target/interop-ts2'));
const BINARY = path.resolve(process.argv[2]);
const SERVERS = Object.fromEntries(process.argv.slice(3).map((a) => [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]));
const TEST_TIMEOUT_MS = 60_000;
const MODERN = '2026-07-28';
const REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', MODERN];
/** Whether revision `rev` has what `first` introduced. */
const since = (rev, first) => REVISIONS.indexOf(rev) >= REVISIONS.indexOf(first);

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

/**
 * The wire of one connection, recorded at the transport: what the client sent (the method of
 * each request id) and every message the transport delivered, before the SDK parses it.
 */
class Wire {
    methods = new Map();
    received = [];
    seen = new WeakSet();

    /** Wraps `transport.send` and every `onmessage` the SDK installs (it may chain them). */
    record(transport) {
        const send = transport.send.bind(transport);
        transport.send = (m, ...rest) => {
            if (m.method && m.id !== undefined) this.methods.set(m.id, m.method);
            return send(m, ...rest);
        };
        let handler;
        Object.defineProperty(transport, 'onmessage', {
            configurable: true,
            get: () => handler,
            set: (h) => {
                handler = h && ((m, ...rest) => {
                    if (typeof m === 'object' && m !== null && !this.seen.has(m)) {
                        this.seen.add(m);
                        this.received.push(m);
                    }
                    return h(m, ...rest);
                });
            },
        });
        return transport;
    }

    /** The last result the server sent for a request of `method`. */
    result(method) {
        for (let i = this.received.length - 1; i >= 0; i--) {
            const m = this.received[i];
            if (m.result !== undefined && this.methods.get(m.id) === method) return m.result;
        }
        throw new Error(`no ${method} result on the wire`);
    }
}

/** A tool's structured output: `structuredContent` where the revision has it, else the JSON
 * text block carrying the same object (checked on the raw result). */
function structured(raw, rev) {
    if (since(rev, '2025-06-18')) {
        check(raw.structuredContent !== undefined, `no structuredContent at ${rev}: ${JSON.stringify(raw)}`);
        return raw.structuredContent;
    }
    check(!('structuredContent' in raw), `structuredContent sent at ${rev}: ${JSON.stringify(raw)}`);
    return JSON.parse(raw.content[0].text);
}

function check(cond, what) {
    if (!cond) throw new Error(what);
}
const texts = (r) => r.content.map((b) => b.text);
const sleep = (ms) => new Promise((res) => setTimeout(res, ms));
async function until(what, cond, ms = 5_000) {
    const end = Date.now() + ms;
    while (!(await cond())) {
        if (Date.now() > end) throw new Error(`timed out waiting for ${typeof what === 'function' ? what() : what}`);
        await sleep(20);
    }
}

/** What the client's handlers saw. */
class Seen {
    logs = [];
    elicitations = [];
    urls = [];
    samplings = [];
}

const elicit = (seen) => async (req) => {
    if (req.params.mode === 'url') {
        seen.urls.push(req.params.url);
        return { action: 'accept' };
    }
    seen.elicitations.push(req.params.message);
    return { action: 'accept', content: { name: 'Ada', age: 36 } };
};
const sample = (seen) => async (req) => {
    seen.samplings.push(req.params.messages[0].content.text ?? '');
    return { role: 'assistant', content: { type: 'text', text: 'a short summary' }, model: 'interop-model', stopReason: 'endTurn' };
};

function v1Client(seen, _rev) {
    const c = new v1.Client({ name: 'interop-v1', version: '1.0.0' }, { capabilities: { elicitation: { form: {}, url: {} }, sampling: {} } });
    c.setRequestHandler(v1.types.ElicitRequestSchema, elicit(seen));
    c.setRequestHandler(v1.types.CreateMessageRequestSchema, sample(seen));
    c.setNotificationHandler(v1.types.LoggingMessageNotificationSchema, (n) => seen.logs.push(n.params.level));
    return c;
}

/** v2 in `'auto'` mode: the `server/discover` probe, then (on a legacy server) `initialize`. */
const v2AutoClient = (seen, rev) => v2Client(seen, rev, 'auto');

function v2Client(seen, rev, negotiation) {
    const mode = negotiation ?? (rev === MODERN ? { pin: MODERN } : 'legacy');
    const c = new v2.Client(
        { name: 'interop-v2', version: '1.0.0' },
        { capabilities: { elicitation: { form: {}, url: {} }, sampling: {} }, versionNegotiation: { mode } }
    );
    c.setRequestHandler('elicitation/create', elicit(seen));
    c.setRequestHandler('sampling/createMessage', sample(seen));
    c.setNotificationHandler('notifications/message', (n) => seen.logs.push(n.params.level));
    return c;
}

/** `callTool` with request options: v1 takes them third (after a result schema), v2 second. */
const callWith = (client, params, options) =>
    client instanceof v2.Client ? client.callTool(params, options) : client.callTool(params, undefined, options);

/** What `rev` defines is there, and what it lacks is absent (see the header). */
async function features(client, wire, rev) {
    if (rev === MODERN) {
        check(client.getNegotiatedProtocolVersion() === MODERN, `negotiated ${client.getNegotiatedProtocolVersion()}`);
        check(!wire.methods.size || ![...wire.methods.values()].includes('initialize'), 'initialize sent at 2026-07-28');
    } else {
        const init = wire.result('initialize');
        check(init.protocolVersion === rev, `negotiated ${init.protocolVersion}, want ${rev}`);
        const caps = init.capabilities;
        check(('completions' in caps) === since(rev, '2025-03-26'), `completions capability at ${rev}: ${JSON.stringify(caps)}`);
        check(('tasks' in caps) === (rev === '2025-11-25'), `tasks capability at ${rev}: ${JSON.stringify(caps)}`);
    }

    await client.listTools();
    const tools = Object.fromEntries(wire.result('tools/list').tools.map((t) => [t.name, t]));
    const { add, weather, report } = tools;
    check((add.annotations?.readOnlyHint === true) === since(rev, '2025-03-26'), `add annotations at ${rev}: ${JSON.stringify(add)}`);
    check(add.title === (since(rev, '2025-06-18') ? 'Add two integers' : undefined), `add title at ${rev}: ${add.title}`);
    const icons = (add.icons ?? []).map((i) => i.src).join();
    check(icons === (since(rev, '2025-11-25') ? 'https://example.com/icons/add.svg' : ''), `add icons at ${rev}: ${icons}`);
    check(('outputSchema' in weather) === since(rev, '2025-06-18'), `weather outputSchema at ${rev}`);
    const support = report.execution?.taskSupport;
    check(support === (rev === '2025-11-25' ? 'optional' : undefined), `report execution at ${rev}: ${support}`);

    // Audio (2025-03-26+) and resource links (2025-06-18+); text blocks where missing.
    await client.callTool({ name: 'media', arguments: {} });
    const [audio, link] = wire.result('tools/call').content;
    if (since(rev, '2025-03-26')) {
        check(audio.type === 'audio' && audio.mimeType === 'audio/wav', `audio at ${rev}: ${JSON.stringify(audio)}`);
        check(Buffer.from(audio.data, 'base64').subarray(0, 4).toString('latin1') === 'RIFF', 'the audio is not a WAV');
    } else {
        check(audio.type === 'text' && audio.text.startsWith('[audio: audio/wav'), `audio at ${rev}: ${JSON.stringify(audio)}`);
    }
    check(audio.annotations?.audience?.join() === 'user', `audio annotations: ${JSON.stringify(audio)}`);
    if (since(rev, '2025-06-18')) {
        check(link.type === 'resource_link' && link.uri === 'everything://readme', `link at ${rev}: ${JSON.stringify(link)}`);
    } else {
        check(link.type === 'text' && link.text.includes('everything://readme'), `link at ${rev}: ${JSON.stringify(link)}`);
    }
}

async function exercise(client, seen, wire, rev) {
    await features(client, wire, rev);
    const era = rev === MODERN ? 'modern' : 'legacy';
    const names = (await client.listTools()).tools.map((t) => t.name);
    for (const t of ['add', 'media', 'sign_in', 'countdown', 'sleep', 'stats', 'log_demo', 'ask_name', 'summarize', 'weather']) {
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
    check(structured(wire.result('tools/call'), rev).city === 'Lisbon', `weather: ${JSON.stringify(r)}`);

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
    // 50 ms between steps: the SDKs run a notification's handler a microtask later but a
    // response's at once, so a progress notification dispatched in the same tick as its
    // response (one chunk read on a busy machine) finds its handler already gone.
    r = await callWith(client, { name: 'countdown', arguments: { steps: 3, delay_ms: 50 } }, {
        onprogress: (p) => progress.push(p.progress),
    });
    check(!r.isError, `countdown: ${JSON.stringify(r)}`);
    // The SDKs hand notifications to their callbacks asynchronously: the last one may run
    // just after the result (the server sent it before: the order is checked on the wire
    // in tests/tests/runtime.rs).
    await until(() => `three progress notifications (got ${progress})`, async () => progress.length >= 3, 2_000);
    check(progress.join() === '1,2,3', `countdown progress ${progress}`);

    const cancelled = async () => {
        await client.callTool({ name: 'stats', arguments: {} });
        return structured(wire.result('tools/call'), rev).cancelled;
    };
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

    if (since(rev, '2025-06-18')) {
        r = await client.callTool({ name: 'ask_name', arguments: {} });
        check(texts(r)[0] === 'Hello, Ada (36)!', `ask_name: ${JSON.stringify(r)}`);
        check(seen.elicitations.length === 1, `elicitation handler ran ${seen.elicitations.length} times`);
    } else {
        // No elicitation at this revision: the call fails and the handler never runs.
        const refused = await client.callTool({ name: 'ask_name', arguments: {} }).then((res) => res.isError, () => true);
        check(refused, `ask_name at ${rev} (no elicitation) succeeded`);
        check(seen.elicitations.length === 0, `elicitation reached the client at ${rev}`);
    }
    // Tasks (2025-11-25): v1 runs `report` (taskSupport optional) as a task and polls it.
    if (rev === '2025-11-25' && client.experimental?.tasks) {
        const kinds = [];
        let result;
        const stream = client.experimental.tasks.callToolStream(
            { name: 'report', arguments: { topic: 'interop' } }, undefined, { task: { ttl: 60_000 } });
        for await (const m of stream) {
            kinds.push(m.type);
            if (m.type === 'error') throw m.error;
            if (m.type === 'result') result = m.result;
        }
        check(kinds[0] === 'taskCreated' && kinds.at(-1) === 'result', `task stream ${kinds}`);
        check(texts(result)[0] === 'Report on interop: all is well.', `task result ${JSON.stringify(result)}`);
        check(wire.result('tasks/result') !== undefined, 'no tasks/result on the wire');
    }

    // URL-mode elicitation (2025-11-25+).
    if (since(rev, '2025-11-25')) {
        r = await client.callTool({ name: 'sign_in', arguments: {} });
        check(texts(r)[0] === 'You went to sign in.', `sign_in: ${JSON.stringify(r)}`);
        check(seen.urls.join() === 'https://example.com/sign-in', `URL elicitations seen: ${seen.urls}`);
    } else {
        const refused = await client.callTool({ name: 'sign_in', arguments: {} }).then((res) => res.isError, () => true);
        check(refused, `sign_in at ${rev} (no URL elicitation) succeeded`);
        check(seen.urls.length === 0, `URL elicitation reached the client at ${rev}`);
    }
    r = await client.callTool({ name: 'summarize', arguments: { text: 'a long text '.repeat(10) } });
    check(texts(r)[0] === 'Summary: a short summary', `summarize: ${JSON.stringify(r)}`);
    check(seen.samplings.length === 1 && seen.samplings[0].includes('a long text'), `sampling saw ${seen.samplings}`);
}

async function run(make, transport, rev) {
    const seen = new Seen();
    const wire = new Wire();
    const client = make(seen, rev);
    await client.connect(wire.record(transport));
    try {
        await exercise(client, seen, wire, rev);
    } finally {
        await client.close();
    }
}

const stdio = (T, rev) => new T({ command: BINARY, args: ['--stdio', '--protocol-versions', rev], stderr: 'ignore' });
const TRANSPORTS = {
    stdio: (sdk, rev) => stdio(sdk.StdioClientTransport, rev),
    'streamable-http': (sdk, rev) => new sdk.StreamableHTTPClientTransport(new URL(`${SERVERS[rev]}/mcp`)),
    'http+sse': (sdk, rev) => new sdk.SSEClientTransport(new URL(`${SERVERS[rev]}/sse`)),
};
const CLIENTS = { v1: [v1, v1Client], v2: [v2, v2Client], 'v2 auto': [v2, v2AutoClient] };

/** [client, transport, revision, test]: every legacy revision for both clients (HTTP+SSE
 * included), 2026-07-28 for v2 over stdio and Streamable HTTP. */
const TESTS = [];
for (const [name, [sdk, make]] of Object.entries(CLIENTS)) {
    for (const rev of REVISIONS.filter((r) => r in SERVERS)) {
        if (rev === MODERN && name !== 'v2') continue;
        for (const [t, transport] of Object.entries(TRANSPORTS)) {
            if (rev === MODERN && t === 'http+sse') continue;
            // Auto mode probes stdio and Streamable HTTP; HTTP+SSE has no probe.
            if (name === 'v2 auto' && t === 'http+sse') continue;
            TESTS.push([name, t, rev, () => run(make, transport(sdk, rev), rev)]);
        }
    }
}

let passed = 0;
let failed = 0;
const results = new Map();
for (const [client, transport, rev, test] of TESTS) {
    const name = `${client} ${transport} ${rev}`;
    try {
        await Promise.race([test(), sleep(TEST_TIMEOUT_MS).then(() => Promise.reject(new Error('timed out')))]);
        passed++;
        results.set(`${client} ${transport}|${rev}`, 'ok');
        console.log(`ok   ${name}`);
    } catch (e) {
        failed++;
        results.set(`${client} ${transport}|${rev}`, 'FAIL');
        console.log(`FAIL ${name}: ${e?.stack ?? e}`);
    }
}
const revs = REVISIONS.filter((r) => r in SERVERS);
console.log('typescript'.padEnd(26) + revs.map((r) => r.padEnd(12)).join(''));
for (const client of Object.keys(CLIENTS)) {
    for (const t of Object.keys(TRANSPORTS)) {
        const row = `${client} ${t}`;
        const cells = revs.map((r) => results.get(`${row}|${r}`) ?? '-');
        if (cells.some((c) => c !== '-')) console.log(row.padEnd(26) + cells.map((c) => c.padEnd(12)).join(''));
    }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
