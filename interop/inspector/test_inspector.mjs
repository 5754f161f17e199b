#!/usr/bin/env node
// Interop: the MCP Inspector CLI (`inspector --cli --format json`, pinned in versions.sh)
// drives examples/everything.rs, once per transport: stdio (the CLI spawns `everything
// --stdio`) and Streamable HTTP (`--transport http --server-url URL`, a running `everything
// --http`), each in the CLI's legacy era (initialize, 2025-11-25) and its modern one
// (2026-07-28: server/discover, no initialize). Per transport and era:
//
// - tools/list with `--strict`: exit 0, no `schemaFindings` (the portability lint reports
//   nothing, not even a warning, for any tool's inputSchema or outputSchema), the tools we
//   define listed;
// - tools/call: `add` (42), `add` overflowing (isError: the CLI exits 5), `weather`
//   (structuredContent); resources/list and resources/read (a resource, a template);
//   prompts/list and prompts/get, each answer's values checked.
//
// First a control: the same `--strict` run against a stub stdio server (this file with
// `--stub-server`) whose schemas carry what the lint flags must exit 6 with those findings,
// so a clean report on everything means the check ran.
//
// Usage: node test_inspector.mjs INSPECTOR_PACKAGE_DIR EVERYTHING_BINARY HTTP_URL  (Node >= 22.19)
// Prints `<n> passed, <m> failed` as its last line; exits non-zero on any failure.

import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const SELF = fileURLToPath(import.meta.url);
const CALL_TIMEOUT_MS = 60_000;
const EVERYTHING_TOOLS = ['add', 'media', 'weather', 'countdown', 'sleep', 'stats', 'log_demo',
    'ask_name', 'sign_in', 'summarize', 'list_roots', 'report', 'enable_echo', 'touch_note'];
// `legacy`: initialize (the CLI offers 2025-11-25); `modern`: 2026-07-28 (server/discover).
const ERAS = ['legacy', 'modern'];
const STUB_TOOL = {
    name: 'stub',
    inputSchema: { type: 'object', properties: { x: true } },
    outputSchema: { type: 'object', properties: { y: { type: ['string', 'null'] } } },
};

/** A minimal stdio MCP server (newline-delimited JSON-RPC) listing STUB_TOOL. */
function stubServer() {
    const reply = (id, result) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id, result }) + '\n');
    createInterface({ input: process.stdin }).on('line', (line) => {
        const msg = JSON.parse(line);
        if (msg.id === undefined) return;
        if (msg.method === 'initialize') {
            reply(msg.id, {
                protocolVersion: msg.params.protocolVersion,
                capabilities: { tools: {} },
                serverInfo: { name: 'stub', version: '0.0.0' },
            });
        } else if (msg.method === 'tools/list') {
            reply(msg.id, { tools: [STUB_TOOL] });
        } else {
            process.stdout.write(JSON.stringify({
                jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: `no ${msg.method}` },
            }) + '\n');
        }
    });
}

/** Runs the CLI; returns its exit status, stdout parsed as JSON (or null) and stderr. */
function inspect(cli, target, args) {
    const argv = [cli, '--cli', '--format', 'json', ...target.options, ...args, '--', ...target.command];
    if (process.env.INTEROP_VERBOSE) console.log(`  $ node ${argv.join(' ')}`);
    const r = spawnSync(process.execPath, argv, { encoding: 'utf8', timeout: CALL_TIMEOUT_MS });
    let json = null;
    try {
        json = JSON.parse(r.stdout);
    } catch {
        // left null: the check that needs it fails, showing stdout
    }
    return { argv, status: r.status, signal: r.signal, json, stdout: r.stdout, stderr: r.stderr };
}

function assert(cond, what) {
    if (!cond) throw new Error(what);
}

/** The result of a call that must succeed (exit 0, a `result` envelope). */
function ok(run) {
    assert(run.status === 0, `exit ${run.status ?? run.signal}, expected 0`);
    assert(run.json && run.json.result, `no result envelope in stdout: ${run.stdout.slice(0, 500)}`);
    return run.json.result;
}

const names = (list) => list.map((x) => x.name);
const missing = (want, have) => want.filter((w) => !have.includes(w));

function checkStrictList(run) {
    const result = ok(run);
    assert(run.json.schemaFindings === undefined,
        `--strict findings: ${JSON.stringify(run.json.schemaFindings)}\n${run.stderr}`);
    assert(!/Schema portability|Error: tool|Warning: tool/.test(run.stderr), `lint output on stderr: ${run.stderr}`);
    const lost = missing(EVERYTHING_TOOLS, names(result.tools));
    assert(lost.length === 0, `tools missing: ${lost}`);
    for (const t of result.tools) assert(t.inputSchema?.type === 'object', `${t.name}: inputSchema ${JSON.stringify(t.inputSchema)}`);
    const weather = result.tools.find((t) => t.name === 'weather');
    assert(weather.outputSchema?.properties?.celsius?.type === 'number', `weather outputSchema ${JSON.stringify(weather.outputSchema)}`);
    return `${result.tools.length} tools, no findings`;
}

/** The checks of one transport: [name, CLI args, check of the run]. */
const CHECKS = [
    ['tools/list --strict', ['--strict', '--method', 'tools/list'], checkStrictList],
    ['tools/call add', ['--method', 'tools/call', '--tool-name', 'add', '--tool-arg', 'a=2', 'b=40'], (run) => {
        const r = ok(run);
        assert(r.isError !== true && r.content?.[0]?.text === '42', `add(2, 40): ${JSON.stringify(r)}`);
        return '2 + 40 = 42';
    }],
    ['tools/call add (overflow: isError)', ['--method', 'tools/call', '--tool-name', 'add',
        // 2^62 + 2^62 = 2^63, one past i64::MAX (exact as JS numbers, however they print).
        '--tool-args-json', '{"a":4611686018427387904,"b":4611686018427387904}'], (run) => {
        assert(run.status === 5, `exit ${run.status ?? run.signal}, expected 5 (tool returned isError)`);
        const r = run.json?.result;
        assert(r?.isError === true && /overflows/.test(r.content?.[0]?.text), `overflow: ${run.stdout}`);
        return 'isError, exit 5';
    }],
    ['tools/call weather', ['--method', 'tools/call', '--tool-name', 'weather', '--tool-args-json', '{"city":"Paris"}'], (run) => {
        const s = ok(run).structuredContent;
        assert(s?.city === 'Paris' && s.sky === 'clear' && s.celsius === 17, `weather: ${JSON.stringify(s)}`);
        return 'structuredContent {city: Paris, celsius: 17}';
    }],
    ['resources/list', ['--method', 'resources/list'], (run) => {
        const have = ok(run).resources.map((r) => r.uri);
        const lost = missing(['everything://readme', 'everything://logo.png'], have);
        assert(lost.length === 0, `resources missing: ${lost} (have ${have})`);
        return `${have.length} resources`;
    }],
    ['resources/read everything://readme', ['--method', 'resources/read', '--uri', 'everything://readme'], (run) => {
        const c = ok(run).contents?.[0];
        assert(c?.mimeType === 'text/markdown' && c.text?.startsWith('# everything\n'), `readme: ${JSON.stringify(c)}`);
        return `${c.text.length} chars of markdown`;
    }],
    ['resources/read everything://notes/7 (template)', ['--method', 'resources/read', '--uri', 'everything://notes/7'], (run) => {
        const c = ok(run).contents?.[0];
        assert(c?.text === 'This is note 7.', `note 7: ${JSON.stringify(c)}`);
        return c.text;
    }],
    ['prompts/list', ['--method', 'prompts/list'], (run) => {
        const prompts = ok(run).prompts;
        const greet = prompts.find((p) => p.name === 'greet');
        assert(greet?.arguments?.[0]?.name === 'name' && greet.arguments[0].required === true, `greet: ${JSON.stringify(greet)}`);
        assert(names(prompts).includes('describe_logo'), `prompts: ${names(prompts)}`);
        return `${prompts.length} prompts`;
    }],
    ['prompts/get greet', ['--method', 'prompts/get', '--prompt-name', 'greet', '--prompt-args', 'name=Ada'], (run) => {
        const m = ok(run).messages?.[0];
        assert(m?.role === 'user' && m.content?.text === 'Please greet Ada warmly.', `greet: ${JSON.stringify(m)}`);
        return m.content.text;
    }],
];

function control(cli) {
    const run = inspect(cli, { options: [], command: [process.execPath, SELF, '--stub-server'] },
        ['--strict', '--method', 'tools/list']);
    assert(run.status === 6, `exit ${run.status ?? run.signal}, expected 6 (schema_unportable)\n${run.stderr}`);
    const found = (run.json?.schemaFindings?.[0]?.findings ?? []).map((f) => `${f.severity} ${f.rule} ${f.schema}.${f.path}`);
    for (const want of ['error boolean-schema inputSchema.properties.x', 'warning type-union outputSchema.properties.y']) {
        assert(found.includes(want), `finding "${want}" missing: ${JSON.stringify(found)}`);
    }
    return found.join('; ');
}

function main() {
    const [pkgDir, everything, url] = process.argv.slice(2);
    if (!url) throw new Error('usage: test_inspector.mjs INSPECTOR_PACKAGE_DIR EVERYTHING_BINARY HTTP_URL');
    const cli = path.join(pkgDir, 'clients/launcher/build/index.js');
    const targets = [
        ['stdio', { options: [], command: [path.resolve(everything), '--stdio'] }],
        ['http', { options: ['--transport', 'http', '--server-url', url], command: [] }],
    ];
    let passed = 0;
    let failed = 0;
    const record = (name, fn) => {
        try {
            console.log(`ok   ${name}: ${fn()}`);
            passed++;
        } catch (e) {
            console.log(`FAIL ${name}: ${e.message}`);
            failed++;
        }
    };
    record('control: --strict on a stub with unportable schemas', () => control(cli));
    for (const [transport, target] of targets) {
        for (const [era, [name, args, check]] of ERAS.flatMap((e) => CHECKS.map((c) => [e, c]))) {
            record(`${transport} ${era} ${name}`, () => {
                const run = inspect(cli, target, ['--protocol-era', era, ...args]);
                try {
                    return check(run);
                } catch (e) {
                    e.message += `\n  $ node ${run.argv.join(' ')}\n  stderr: ${run.stderr.slice(-2000)}`;
                    throw e;
                }
            });
        }
    }
    console.log(`${passed} passed, ${failed} failed`);
    process.exit(failed === 0 ? 0 : 1);
}

if (process.argv[2] === '--stub-server') stubServer();
else main();
