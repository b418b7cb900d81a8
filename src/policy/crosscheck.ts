import type { PathProblem } from './problem.js';
import type { PolicyDoc } from './schema.js';

/**
 * Cross-checks and the guard's first layer (structural), as a pure function of the parsed
 * document. Anything carrying a shell metacharacter is refused, never sanitized: sanitizing
 * invites a bypass hunt. Filesystem facts (does the program exist, is a secret readable) are
 * checked by resolve.ts, at the IO edge.
 */
export const SHELL_META = /[;|&`<>\n\r]|\$\(/;

const metaProblem = (path: PathProblem['path'], value: string): PathProblem | undefined => {
  const m = SHELL_META.exec(value);
  if (!m) return undefined;
  const shown = m[0] === '\n' ? '\\n' : m[0] === '\r' ? '\\r' : m[0];
  return {
    path,
    value,
    message: `layer one (structural): shell metacharacter "${shown}" refused; arguments are argv items, never shell text`,
  };
};

const SECRET_REF = /\{secret:([^}]*)\}/g;

export const crossCheck = (doc: PolicyDoc): PathProblem[] => {
  const problems: PathProblem[] = [];
  const push = (p: PathProblem | undefined): void => {
    if (p) problems.push(p);
  };

  for (const [cmdName, cmd] of Object.entries(doc.commands)) {
    push(metaProblem(['commands', cmdName, 'path'], cmd.path));
  }

  const prefixOwner = new Map<string, string>();
  for (const [serverName, s] of Object.entries(doc.servers)) {
    const domain = doc.trustDomains[s.domain];
    if (!domain) {
      problems.push({ path: ['servers', serverName, 'domain'], message: `trust domain "${s.domain}" is not declared in trustDomains` });
    }
    if (s.prefix === 'lanegate') {
      problems.push({
        path: ['servers', serverName, 'prefix'],
        value: s.prefix,
        message: 'layer one (structural): prefix "lanegate" is reserved for the gateway\'s own tools',
      });
    }
    const owner = prefixOwner.get(s.prefix);
    if (owner) {
      problems.push({
        path: ['servers', serverName, 'prefix'],
        message: `layer one (structural): prefix "${s.prefix}" is already claimed by server "${owner}"; prefixes must be unique`,
        value: s.prefix,
      });
    } else {
      prefixOwner.set(s.prefix, serverName);
    }
    if (s.stdio) {
      if (!doc.commands[s.stdio.command]) {
        problems.push({
          path: ['servers', serverName, 'stdio', 'command'],
          message: `layer one (structural): command "${s.stdio.command}" is not on the allowlist (declare it under commands)`,
          value: s.stdio.command,
        });
      }
      push(metaProblem(['servers', serverName, 'stdio', 'command'], s.stdio.command));
      for (const [i, a] of s.stdio.args.entries()) push(metaProblem(['servers', serverName, 'stdio', 'args', i], a));
      for (const [k, v] of Object.entries(s.stdio.env)) {
        push(metaProblem(['servers', serverName, 'stdio', 'env', k], v));
      }
    }
    if (s.http) {
      if (s.upstreamEra === 'modern' || s.upstreamEra === 'match')
        problems.push({
          path: ['servers', serverName, 'upstreamEra'],
          message: 'applies to stdio upstreams only; an http upstream is spoken to in 2025-11-25',
        });
      const url = new URL(s.http.url);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        problems.push({ path: ['servers', serverName, 'http', 'url'], message: 'must be an http:// or https:// URL' });
      }
      for (const [h, v] of Object.entries(s.http.headers)) {
        push(metaProblem(['servers', serverName, 'http', 'headers', h], v));
        for (const m of v.matchAll(SECRET_REF)) {
          if (!domain?.secrets?.[m[1] ?? '']) {
            problems.push({
              path: ['servers', serverName, 'http', 'headers', h],
              message: `references secret "${m[1]}" which trust domain "${s.domain}" does not declare`,
            });
          }
        }
      }
    }
    if (s.probe && domain?.kind === 'principal') {
      problems.push({
        path: ['servers', serverName, 'probe'],
        message: `a server in principal domain "${s.domain}" never shares, so it is never probed; remove the probe`,
      });
    }
  }

  for (const [laneName, lane] of Object.entries(doc.lanes)) {
    if (lane.naming === 'bare' && lane.servers.length !== 1) {
      problems.push({
        path: ['lanes', laneName, 'naming'],
        message: `naming: bare needs exactly one server in the loadout (has ${lane.servers.length}); with more, names could collide`,
      });
    }
    const seen = new Set<string>();
    lane.servers.forEach((ref, i) => {
      if (!doc.servers[ref]) {
        problems.push({ path: ['lanes', laneName, 'servers', i], message: `server "${ref}" is not declared in servers` });
      }
      if (seen.has(ref)) problems.push({ path: ['lanes', laneName, 'servers', i], message: `server "${ref}" is listed twice` });
      seen.add(ref);
    });
  }

  for (const [domainName, d] of Object.entries(doc.trustDomains)) {
    for (const [secret, ref] of Object.entries(d.secrets ?? {})) {
      push(metaProblem(['trustDomains', domainName, 'secrets', secret, 'file'], ref.file));
    }
  }
  return problems;
};
