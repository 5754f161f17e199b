// Preload for Node < 22, which lacks fs.globSync (the conformance CLI imports it; only its
// `tier-check` subcommand calls it). Maps the CLI's `fs` import to fs-with-glob.mjs.
// Usage: node --import ./register.mjs <suite>/dist/index.js ...
import { register } from 'node:module';
import fs from 'node:fs';

if (typeof fs.globSync !== 'function') {
  register('./resolve.mjs', import.meta.url);
}
