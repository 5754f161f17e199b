// node:fs plus a small globSync (patterns with `*`, `**` and `?`, relative to options.cwd).
import fs from 'node:fs';
import path from 'node:path';

export * from 'node:fs';
export default fs;

function patternToRegExp(pattern) {
  const parts = String(pattern).split('/').map((seg) => {
    if (seg === '**') return '(?:[^/]+/)*';
    const body = seg
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '[^/]*')
      .replace(/\?/g, '[^/]');
    return body + '/';
  });
  return new RegExp('^' + parts.join('').replace(/\/$/, '').replace(/\(\?:\[\^\/\]\+\/\)\*$/, '.*') + '$');
}

export function globSync(pattern, options = {}) {
  const root = options.cwd ?? process.cwd();
  const re = patternToRegExp(pattern);
  const found = [];
  const stack = [''];
  while (stack.length) {
    const rel = stack.pop();
    let entries = [];
    try {
      entries = fs.readdirSync(path.join(root, rel), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      const p = rel ? `${rel}/${e.name}` : e.name;
      if (re.test(p)) found.push(p);
      if (e.isDirectory() && e.name !== 'node_modules') stack.push(p);
    }
  }
  return found.sort();
}
