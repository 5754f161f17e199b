#!/usr/bin/env node
// Interop: the official TypeScript MCP SDK clients drive examples/gateway.rs over stdio, with
// examples/everything.rs and the gateway's demo upstream behind it (child processes over
// stdio): v1 (`@modelcontextprotocol/sdk`, 2025-11-25 through `initialize`) and v2
// (`@modelcontextprotocol/client` pinned to 2026-07-28). Checked through the gateway, every
// call answered: the merged tool list, a local call, proxied calls, progress in order, an
// elicitation and a sampling request asked upstream answered by this client, a prompt and a
// resource template of the upstream under its namespace.
//
// Usage: node test_gateway.mjs GATEWAY_BINARY EVERYTHING_BINARY
// Env:   INTEROP_TS_DIR, INTEROP_TS2_DIR (as interop/typescript/run_everything.sh).
// Prints `<n> passed, <m> failed` as its last line; exits non-zero on any failure.

import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const V1_DIR = path.resolve(process.env.INTEROP_TS_DIR ?? path.join(HERE, '../../target/interop-ts'));
const V2_DIR = path.resolve(process.env.INTEROP_TS2_DIR ?? path.join(HERE, '../../target/interop-ts2'));
const GATEWAY = path.resolve(process.argv[2]);
const EVERYTHING = path.resolve(process.argv[3]);
const MODERN = '2026-07-28';

const v1req = createRequire(path.join(V1_DIR, 'package.json'));
const v1 = {
    ...v1req('@modelcontextprotocol/sdk/client/index.js'),
    ...v1req('@modelcontextprotocol/sdk/client/stdio.js'),
    types: v1req('@modelcontextprotocol/sdk/types.js'),
};
const v2Entry = (sub) => pathToFileURL(path.join(V2_DIR, 'node_modules/@modelcontextprotocol/client/dist', sub)).href;
const v2 = { ...(await import(v2Entry('index.mjs'))), ...(await import(v2Entry('stdio.mjs'))) };

function check(cond, what) {
    if (!cond) throw new Error(what);
}
const texts = (r) => r.content.map((b) => b.text);
const sleep = (ms) => new Promise((res) => setTimeout(res, ms));

const seen = { elicitations: [], samplings: [] };
const elicit = async (req) => {
    seen.elicitations.push(req.params.message);
    return { action: 'accept', content: { name: 'Ada', age: 36 } };
};
const sample = async (req) => {
    seen.samplings.push(req.params.messages[0].content.text ?? '');
    return { role: 'assistant', content: { type: 'text', text: 'a short summary' }, model: 'interop-model', stopReason: 'endTurn' };
};
const caps = { capabilities: { elicitation: { form: {} }, sampling: {} } };

function v1Client() {
    const c = new v1.Client({ name: 'gateway-v1', version: '1.0.0' }, caps);
    c.setRequestHandler(v1.types.ElicitRequestSchema, elicit);
    c.setRequestHandler(v1.types.CreateMessageRequestSchema, sample);
    return c;
}

function v2Client() {
    const c = new v2.Client({ name: 'gateway-v2', version: '1.0.0' }, { ...caps, versionNegotiation: { mode: { pin: MODERN } } });
    c.setRequestHandler('elicitation/create', elicit);
    c.setRequestHandler('sampling/createMessage', sample);
    return c;
}

/** `callTool` with request options: v1 takes them third (after a result schema), v2 second. */
const callWith = (client, params, options) =>
    client instanceof v2.Client ? client.callTool(params, options) : client.callTool(params, undefined, options);

async function exercise(client) {
    const tools = new Set((await client.listTools()).tools.map((t) => t.name));
    for (const t of ['hello', 'every_add', 'every_countdown', 'every_ask_name', 'notes_count']) {
        check(tools.has(t), `${t} missing from ${[...tools]}`);
    }
    let r = await client.callTool({ name: 'hello', arguments: { name: 'Ada' } });
    check(texts(r)[0] === 'Hello, Ada, from the gateway!', `hello: ${JSON.stringify(r)}`);
    r = await client.callTool({ name: 'every_add', arguments: { a: 2, b: 40 } });
    check(!r.isError && texts(r)[0].includes('42'), `every_add: ${JSON.stringify(r)}`);
    const progress = [];
    r = await callWith(client, { name: 'every_countdown', arguments: { steps: 3, delay_ms: 50 } }, {
        onprogress: (p) => progress.push(p.progress),
    });
    check(!r.isError, `every_countdown: ${JSON.stringify(r)}`);
    // The SDKs run a notification's handler a microtask after the response's.
    for (let i = 0; i < 100 && progress.length < 3; i++) await sleep(20);
    check(progress.join() === '1,2,3', `every_countdown progress ${progress}`);
    seen.elicitations.length = 0;
    r = await client.callTool({ name: 'every_ask_name', arguments: {} });
    check(texts(r)[0] === 'Hello, Ada (36)!' && seen.elicitations.length > 0, `every_ask_name: ${JSON.stringify(r)}`);
    r = await client.callTool({ name: 'every_summarize', arguments: { text: 'a long text '.repeat(10) } });
    check(!r.isError && texts(r).join(' ').includes('a short summary'), `every_summarize: ${JSON.stringify(r)}`);
    const greet = await client.getPrompt({ name: 'every_greet', arguments: { name: 'Grace' } });
    check(greet.messages[0].content.text.includes('Grace'), `every_greet: ${JSON.stringify(greet)}`);
    const note = await client.readResource({ uri: 'everything://every/notes/7' });
    check(note.contents[0].uri === 'everything://every/notes/7', `note: ${JSON.stringify(note)}`);
}

const TESTS = [
    ['v1_2025_11_25', v1, v1Client, (c) => c.getServerVersion() && true],
    ['v2_2026_07_28', v2, v2Client, (c) => c.getNegotiatedProtocolVersion() === MODERN],
];
let passed = 0;
let failed = 0;
for (const [name, sdk, make, negotiated] of TESTS) {
    const client = make();
    const transport = new sdk.StdioClientTransport({
        command: GATEWAY,
        args: ['--stdio', '--upstream', `every=${EVERYTHING} --stdio`, '--upstream', `notes=${GATEWAY} --demo-upstream`],
        stderr: 'ignore',
    });
    try {
        await client.connect(transport);
        check(negotiated(client), `${name}: the negotiated revision`);
        await Promise.race([exercise(client), sleep(60_000).then(() => { throw new Error('timed out'); })]);
        console.log(`PASS ${name}`);
        passed++;
    } catch (e) {
        console.log(`FAIL ${name}: ${e.stack ?? e}`);
        failed++;
    } finally {
        await client.close().catch(() => {});
    }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
