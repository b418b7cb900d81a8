// node:fs plus globSync (see node20-fs-globsync.mjs). Only `**/<name>` and plain relative paths
// are supported, which is all the conformance bundle asks for.
import fs from 'node:fs';
import path from 'node:path';

export * from 'node:fs';
export default fs;

export function globSync(pattern, options = {}) {
  if (typeof fs.globSync === 'function') return fs.globSync(pattern, options);
  const cwd = options.cwd ? String(options.cwd) : process.cwd();
  const parts = String(pattern).split('/');
  const out = [];
  const walk = (dir, rel, i) => {
    if (i >= parts.length) return;
    const p = parts[i];
    let entries = [];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    if (p === '**') {
      walk(dir, rel, i + 1);
      for (const e of entries) if (e.isDirectory()) walk(path.join(dir, e.name), path.join(rel, e.name), i);
      return;
    }
    const re = new RegExp(
      `^${p
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '[^/]*')
        .replace(/\?/g, '[^/]')}$`,
    );
    for (const e of entries) {
      if (!re.test(e.name)) continue;
      if (i === parts.length - 1) out.push(path.join(rel, e.name));
      else if (e.isDirectory()) walk(path.join(dir, e.name), path.join(rel, e.name), i + 1);
    }
  };
  walk(cwd, '', 0);
  return [...new Set(out)];
}
