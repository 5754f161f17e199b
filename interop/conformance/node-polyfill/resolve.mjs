// Module resolution hook: `fs` imported from the conformance package resolves to
// fs-with-glob.mjs instead of the builtin.
const replacement = new URL('./fs-with-glob.mjs', import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  const fromSuite = (context.parentURL ?? '').includes('/@modelcontextprotocol/conformance/');
  if (fromSuite && (specifier === 'fs' || specifier === 'node:fs')) {
    return { url: replacement, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}
