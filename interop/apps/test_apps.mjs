#!/usr/bin/env node
// Interop: MCP Apps on examples/apps.rs, seen by two official clients.
//
// 1. The MCP Inspector CLI (`inspector --cli --format json`), over stdio (the CLI spawns
//    `apps --stdio`) and Streamable HTTP (a running `apps --http`): with `--app-info` when
//    the installed CLI has it, else `tools/list` + `resources/list` + `resources/read`. It
//    must show the tools' `_meta.ui.resourceUri` (and the app-only visibility), the view's
//    CSP and permissions, and read the HTML with `text/html;profile=mcp-app`.
// 2. The official TypeScript client (`@modelcontextprotocol/client` v2) with
//    `@modelcontextprotocol/ext-apps` installed: it declares the extension
//    (`EXTENSION_ID`, `RESOURCE_MIME_TYPE`) on a legacy and a 2026-07-28 connection, finds
//    the view with ext-apps' `getToolUiResourceUri` / `isToolVisibilityAppOnly`, validates
//    the tool and resource `_meta.ui` with ext-apps' own schemas (`McpUiToolMetaSchema`,
//    `McpUiResourceMetaSchema`), reads the view, and sees the tool answer as for an Apps
//    host; the same client without the declaration gets the plain text.
//
// Usage: node test_apps.mjs INSPECTOR_CLI_DIR NODE_MODULES_DIR APPS_BINARY HTTP_URL  (Node >= 22.19)
// Prints `<n> passed, <m> failed` as its last line; exits non-zero on any failure.

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [INSPECTOR, MODULES, APPS, URL_] = process.argv.slice(2);
if (!URL_) {
    console.error('usage: test_apps.mjs INSPECTOR_CLI_DIR NODE_MODULES_DIR APPS_BINARY HTTP_URL');
    process.exit(2);
}
const CALL_TIMEOUT_MS = 60_000;
const VIEW = 'ui://dice/view';
const APP_MIME = 'text/html;profile=mcp-app';

const entry = (pkg, sub) => pathToFileURL(path.join(MODULES, '@modelcontextprotocol', pkg, sub)).href;
const client = await import(entry('client', 'dist/index.mjs'));
const stdio = await import(entry('client', 'dist/stdio.mjs'));
const server = await import(entry('ext-apps', 'dist/src/server/index.js'));
const bridge = await import(entry('ext-apps', 'dist/src/app-bridge.js'));

let passed = 0;
let failed = 0;

function assert(cond, what) {
    if (!cond) throw new Error(what);
}

async function check(name, f) {
    try {
        const detail = await f();
        passed++;
        console.log(`ok   ${name}${detail ? ` (${detail})` : ''}`);
    } catch (e) {
        failed++;
        console.log(`FAIL ${name}: ${e.stack || e}`);
    }
}

// ---------------------------------------------------------------------------------------
// The Inspector CLI
// ---------------------------------------------------------------------------------------

/** The CLI entry, as interop/inspector/test_inspector.mjs runs it. */
const INSPECTOR_ENTRY = path.join(INSPECTOR, 'clients/launcher/build/index.js');

function inspect(target, args) {
    const argv = [INSPECTOR_ENTRY, '--cli', '--format', 'json', ...target.options, ...args, '--', ...target.command];
    const r = spawnSync(process.execPath, argv, { encoding: 'utf8', timeout: CALL_TIMEOUT_MS });
    let json = null;
    try {
        json = JSON.parse(r.stdout);
    } catch {
        // left null
    }
    if (process.env.INTEROP_VERBOSE) console.log(`  $ node ${argv.join(' ')}\n${r.stdout}\n${r.stderr}`);
    return { status: r.status, json, stdout: r.stdout, stderr: r.stderr };
}

function ok(run) {
    assert(run.status === 0, `exit ${run.status}, expected 0: ${run.stderr.slice(0, 500)}`);
    assert(run.json && run.json.result, `no result envelope: ${run.stdout.slice(0, 500)}`);
    return run.json.result;
}

const pkg = JSON.parse(readFileSync(path.join(INSPECTOR, 'package.json'), 'utf8'));
const help = spawnSync(process.execPath, [INSPECTOR_ENTRY, '--cli', '--help'], { encoding: 'utf8', timeout: CALL_TIMEOUT_MS });
const HAS_APP_INFO = /--app-info/.test(`${help.stdout}${help.stderr}`);
console.log(`inspector ${pkg.version}: ${HAS_APP_INFO ? 'has --app-info' : 'no --app-info: tools/list, resources/list, resources/read'}`);

const TARGETS = [
    { name: 'stdio', options: [], command: [APPS, '--stdio'] },
    { name: 'http', options: ['--transport', 'http', '--server-url', URL_], command: [] },
];

function checkViewMeta(ui, where) {
    assert(ui, `${where}: no _meta.ui`);
    assert(Array.isArray(ui.csp?.connectDomains) && Array.isArray(ui.csp?.resourceDomains),
        `${where}: csp ${JSON.stringify(ui.csp)}`);
    assert(ui.permissions && typeof ui.permissions.clipboardWrite === 'object',
        `${where}: permissions ${JSON.stringify(ui.permissions)}`);
    assert(ui.prefersBorder === true, `${where}: prefersBorder ${ui.prefersBorder}`);
}

for (const base of TARGETS) for (const era of ['legacy', 'modern']) {
    const target = { ...base, name: `${base.name} ${era}`, options: [...base.options, '--protocol-era', era] };
    if (HAS_APP_INFO) {
        const checkInfo = (info, name, visibility) => {
            assert(info?.hasApp === true && info.toolName === name, `app info ${JSON.stringify(info)}`);
            assert(info.resourceUri === VIEW && info.resourceMimeType === APP_MIME, `uri/MIME ${JSON.stringify(info)}`);
            assert(JSON.stringify(info.visibility) === JSON.stringify(visibility), `visibility ${JSON.stringify(info.visibility)}`);
            checkViewMeta(info, 'app info');
        };
        await check(`inspector ${target.name}: --app-info --advertise-apps on roll_dice`, () => {
            const run = inspect(target, ['--app-info', '--advertise-apps', '--method', 'tools/call', '--tool-name', 'roll_dice']);
            assert(run.status === 0, `exit ${run.status}: ${run.stdout.slice(0, 500)} ${run.stderr.slice(0, 500)}`);
            checkInfo(run.json?.appInfo, 'roll_dice', ['model', 'app']);
            return JSON.stringify(run.json.appInfo);
        });
        await check(`inspector ${target.name}: --app-info on tools/list`, () => {
            const run = inspect(target, ['--app-info', '--method', 'tools/list']);
            assert(run.status === 0, `exit ${run.status}: ${run.stderr.slice(0, 500)}`);
            const lines = run.stdout.trim().split('\n').map((l) => JSON.parse(l));
            checkInfo(lines.find((l) => l.toolName === 'roll_dice'), 'roll_dice', ['model', 'app']);
            checkInfo(lines.find((l) => l.toolName === 'reroll'), 'reroll', ['app']);
            return `${lines.length} tools with an app`;
        });
    }
    await check(`inspector ${target.name}: tools/list shows the view`, () => {
        const tools = ok(inspect(target, ['--method', 'tools/list'])).tools;
        const roll = tools.find((t) => t.name === 'roll_dice');
        const reroll = tools.find((t) => t.name === 'reroll');
        assert(roll?._meta?.ui?.resourceUri === VIEW, `roll_dice: ${JSON.stringify(roll)}`);
        assert(JSON.stringify(roll._meta.ui.visibility) === '["model","app"]', `visibility ${JSON.stringify(roll._meta.ui)}`);
        assert(JSON.stringify(reroll?._meta?.ui?.visibility) === '["app"]', `reroll: ${JSON.stringify(reroll)}`);
        return `${VIEW}, reroll app-only`;
    });
    await check(`inspector ${target.name}: resources/list shows CSP and permissions`, () => {
        const res = ok(inspect(target, ['--method', 'resources/list'])).resources;
        const view = res.find((r) => r.uri === VIEW);
        assert(view?.mimeType === APP_MIME, `view: ${JSON.stringify(view)}`);
        checkViewMeta(view._meta?.ui, 'list entry');
        return JSON.stringify(view._meta.ui);
    });
    await check(`inspector ${target.name}: resources/read gives the HTML as an app`, () => {
        const c = ok(inspect(target, ['--method', 'resources/read', '--uri', VIEW])).contents[0];
        assert(c.mimeType === APP_MIME, `mimeType ${c.mimeType}`);
        assert(/^<!DOCTYPE html>/.test(c.text) && c.text.includes('ui/initialize'), `text ${c.text?.slice(0, 200)}`);
        checkViewMeta(c._meta?.ui, 'read content');
        return `${c.text.length} bytes of ${c.mimeType}`;
    });
}

// ---------------------------------------------------------------------------------------
// The TypeScript client with ext-apps
// ---------------------------------------------------------------------------------------

assert(server.EXTENSION_ID === 'io.modelcontextprotocol/ui', `EXTENSION_ID ${server.EXTENSION_ID}`);
assert(server.RESOURCE_MIME_TYPE === APP_MIME, `RESOURCE_MIME_TYPE ${server.RESOURCE_MIME_TYPE}`);

function tsClient(mode, apps) {
    const capabilities = apps
        ? { extensions: { [server.EXTENSION_ID]: { mimeTypes: [server.RESOURCE_MIME_TYPE] } } }
        : {};
    return new client.Client({ name: 'interop-apps', version: '1.0.0' }, { capabilities, versionNegotiation: { mode } });
}

const MODES = [['legacy', 'legacy'], ['2026-07-28', { pin: '2026-07-28' }]];

for (const [label, mode] of MODES) {
    for (const [tname, transport] of [
        ['stdio', () => new stdio.StdioClientTransport({ command: APPS, args: ['--stdio'], stderr: 'ignore' })],
        ['http', () => new client.StreamableHTTPClientTransport(new URL(URL_))],
    ]) {
        await check(`ts client + ext-apps ${tname} ${label}: declares the extension and sees the UI metadata`, async () => {
            const c = tsClient(mode, true);
            await c.connect(transport());
            try {
                const caps = c.getServerCapabilities();
                assert(caps?.extensions?.[server.EXTENSION_ID]?.mimeTypes?.includes(APP_MIME),
                    `server extensions ${JSON.stringify(caps?.extensions)}`);
                const { tools } = await c.listTools();
                const roll = tools.find((t) => t.name === 'roll_dice');
                const reroll = tools.find((t) => t.name === 'reroll');
                assert(bridge.getToolUiResourceUri(roll) === VIEW, `getToolUiResourceUri ${JSON.stringify(roll?._meta)}`);
                assert(bridge.isToolVisibilityAppOnly(reroll) === true, `reroll not app-only: ${JSON.stringify(reroll?._meta)}`);
                assert(bridge.isToolVisibilityAppOnly(roll) === false, 'roll_dice app-only');
                for (const t of [roll, reroll]) {
                    const parsed = bridge.McpUiToolMetaSchema.safeParse(t._meta.ui);
                    assert(parsed.success, `${t.name}: McpUiToolMetaSchema ${JSON.stringify(parsed.error?.issues)}`);
                }
                const read = await c.readResource({ uri: VIEW });
                const content = read.contents[0];
                assert(content.mimeType === server.RESOURCE_MIME_TYPE, `mimeType ${content.mimeType}`);
                const meta = bridge.McpUiResourceMetaSchema.safeParse(content._meta?.ui);
                assert(meta.success, `McpUiResourceMetaSchema ${JSON.stringify(meta.error?.issues)}`);
                assert(bridge.buildAllowAttribute(content._meta.ui.permissions).includes('clipboard-write'),
                    `allow attribute ${bridge.buildAllowAttribute(content._meta.ui.permissions)}`);
                const r = await c.callTool({ name: 'roll_dice', arguments: { sides: 6, count: 2 } });
                assert(/^Rolled 2d6: .*The dice view shows it\.$/.test(r.content[0].text), `text ${r.content[0].text}`);
                assert(r.structuredContent?.faces?.length === 2, `structured ${JSON.stringify(r.structuredContent)}`);
                return `${c.getNegotiatedProtocolVersion?.() ?? label}: ${VIEW}`;
            } finally {
                await c.close();
            }
        });
    }
    await check(`ts client without the extension ${label}: plain content`, async () => {
        const c = tsClient(mode, false);
        await c.connect(new client.StreamableHTTPClientTransport(new URL(URL_)));
        try {
            const r = await c.callTool({ name: 'roll_dice', arguments: {} });
            assert(/^Rolled 2d6: [1-6] [1-6] \(total \d+\)$/.test(r.content[0].text), `text ${r.content[0].text}`);
            return r.content[0].text;
        } finally {
            await c.close();
        }
    });
}

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
