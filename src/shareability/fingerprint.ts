import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const fileDigest = (f: string): string => {
  try {
    return createHash('sha256').update(readFileSync(f)).digest('hex').slice(0, 24);
  } catch {
    return 'unreadable';
  }
};

/** The nearest package.json above a file: "name@version", or undefined. */
export const packageOf = (file: string): string | undefined => {
  let dir = path.dirname(file);
  for (let i = 0; i < 12; i += 1) {
    const pj = path.join(dir, 'package.json');
    if (existsSync(pj)) {
      try {
        const j = JSON.parse(readFileSync(pj, 'utf8')) as { name?: string; version?: string };
        return `${j.name ?? '?'}@${j.version ?? '?'}`;
      } catch {
        return 'unreadable-package';
      }
    }
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return undefined;
};

/**
 * What actually runs: the binary (size + mtime: an in-place upgrade changes them) and, when an
 * argument names an existing script file, that file's digest and its package's name@version.
 * IO at the edge; the identity itself is computed purely from this string.
 */
export const binaryFingerprint = (commandPath: string, args: string[]): string => {
  let bin = 'missing';
  try {
    const st = statSync(commandPath);
    bin = `${st.size}:${Math.floor(st.mtimeMs)}`;
  } catch {
    // "missing" is itself a fingerprint: it differs from any installed build.
  }
  const script = args.find((a) => !a.startsWith('-') && path.isAbsolute(a) && existsSync(a) && statSync(a).isFile());
  const parts = [`bin=${bin}`];
  if (script) parts.push(`script=${fileDigest(script)}`, `pkg=${packageOf(script) ?? 'none'}`);
  return parts.join(';');
};
