// Loader shim for running @modelcontextprotocol/conformance (engines: node >=22) on Node 20.
// Its bundle does `import { globSync } from "fs"`; Node 20's fs has no globSync, so the import
// fails at link time even though only `tier-check` calls it. This hook redirects the bare "fs"
// / "node:fs" import made by the conformance bundle (and only by it) to a module that re-exports
// node:fs plus a minimal globSync good enough for tier-check's `**/checks.json` pattern.
// Use: node --import ./test/conformance/node20-fs-globsync.mjs .../conformance/dist/index.js ...
import { register } from 'node:module';

register(
  `data:text/javascript,${encodeURIComponent(`
const SHIM = ${JSON.stringify(new URL('./node20-fs-shim-module.mjs', import.meta.url).href)};
export async function resolve(specifier, context, next) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL && context.parentURL.includes('/@modelcontextprotocol/conformance/')) {
    return { url: SHIM, shortCircuit: true };
  }
  return next(specifier, context);
}`)}`,
);
