#!/usr/bin/env node
// Interop: the MCP Inspector CLI (`inspector --cli --format json`, pinned in
// interop/inspector/versions.sh) drives examples/gateway.rs over stdio (the CLI spawns
// `gateway --stdio` with examples/everything.rs behind it as the upstream `every`), in the
// CLI's legacy era (initialize, 2025-11-25) and its modern one (2026-07-28): tools/list
// with `--strict` (no schema finding for the local or the proxied tools), tools/call of a
// local and a proxied tool, resources/read of a proxied template, prompts/get of a proxied
// prompt; every call answered and its values checked.
//
// Usage: node test_inspector.mjs INSPECTOR_PACKAGE_DIR GATEWAY_BINARY EVERYTHING_BINARY  (Node >= 22.19)
// Prints `<n> passed, <m> failed` as its last line; exits non-zero on any failure.

import { spawnSync } from 'node:child_process';
import path from 'node:path';

const [pkgDir, gateway, everything] = process.argv.slice(2).map((p) => path.resolve(p));
const cli = path.join(pkgDir, 'clients/launcher/build/index.js');
const command = [gateway, '--stdio', '--upstream', `every=${everything} --stdio`];

function assert(cond, what) {
    if (!cond) throw new Error(what);
}

function inspect(era, args) {
    const argv = [cli, '--cli', '--format', 'json', '--protocol-era', era, ...args, '--', ...command];
    const r = spawnSync(process.execPath, argv, { encoding: 'utf8', timeout: 60_000 });
    let json = null;
    try {
        json = JSON.parse(r.stdout);
    } catch {
        // left null: the check fails, showing stdout
    }
    assert(r.status === 0, `exit ${r.status ?? r.signal}: ${r.stdout.slice(0, 500)} ${r.stderr.slice(0, 500)}`);
    assert(json && json.result, `no result envelope in stdout: ${r.stdout.slice(0, 500)}`);
    return { result: json.result, json, stderr: r.stderr };
}

const CHECKS = [
    ['tools/list --strict', ['--strict', '--method', 'tools/list'], ({ result, json }) => {
        assert(json.schemaFindings === undefined, `--strict findings: ${JSON.stringify(json.schemaFindings)}`);
        const names = result.tools.map((t) => t.name);
        for (const t of ['hello', 'every_add', 'every_weather']) assert(names.includes(t), `${t} missing: ${names}`);
        return `${names.length} tools, no findings`;
    }],
    ['tools/call hello (local)', ['--method', 'tools/call', '--tool-name', 'hello', '--tool-arg', 'name=Ada'], ({ result }) => {
        assert(result.content?.[0]?.text === 'Hello, Ada, from the gateway!', JSON.stringify(result));
        return result.content[0].text;
    }],
    ['tools/call every_add (proxied)', ['--method', 'tools/call', '--tool-name', 'every_add', '--tool-arg', 'a=2', 'b=40'], ({ result }) => {
        assert(result.isError !== true && result.content?.[0]?.text === '42', JSON.stringify(result));
        return '2 + 40 = 42';
    }],
    ['resources/read everything://every/notes/7', ['--method', 'resources/read', '--uri', 'everything://every/notes/7'], ({ result }) => {
        const c = result.contents?.[0];
        assert(c?.uri === 'everything://every/notes/7' && c.text === 'This is note 7.', JSON.stringify(c));
        return c.text;
    }],
    ['prompts/get every_greet', ['--method', 'prompts/get', '--prompt-name', 'every_greet', '--prompt-args', 'name=Ada'], ({ result }) => {
        const m = result.messages?.[0];
        assert(m?.content?.text === 'Please greet Ada warmly.', JSON.stringify(m));
        return m.content.text;
    }],
];

let passed = 0;
let failed = 0;
for (const era of ['legacy', 'modern']) {
    for (const [name, args, check] of CHECKS) {
        try {
            const what = check(inspect(era, args));
            console.log(`PASS ${era} ${name}: ${what}`);
            passed++;
        } catch (e) {
            console.log(`FAIL ${era} ${name}: ${e.message}`);
            failed++;
        }
    }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
