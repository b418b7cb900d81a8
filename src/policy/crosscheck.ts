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

type Server = PolicyDoc['servers'][string];
type Problems = (PathProblem | undefined)[];

/** Every allowlisted command path, read for shell text. */
const commandProblems = (doc: PolicyDoc): Problems =>
  Object.entries(doc.commands).map(([cmdName, cmd]) => metaProblem(['commands', cmdName, 'path'], cmd.path));

/** The server's trust domain is declared; its prefix is not the gateway's and not another server's (claimed in `owners`). */
const identityProblems = (doc: PolicyDoc, name: string, s: Server, owners: Map<string, string>): Problems => {
  const out: Problems = [];
  if (!doc.trustDomains[s.domain]) {
    out.push({ path: ['servers', name, 'domain'], message: `trust domain "${s.domain}" is not declared in trustDomains` });
  }
  if (s.prefix === 'lanegate') {
    out.push({
      path: ['servers', name, 'prefix'],
      value: s.prefix,
      message: 'layer one (structural): prefix "lanegate" is reserved for the gateway\'s own tools',
    });
  }
  const owner = owners.get(s.prefix);
  if (owner) {
    out.push({
      path: ['servers', name, 'prefix'],
      message: `layer one (structural): prefix "${s.prefix}" is already claimed by server "${owner}"; prefixes must be unique`,
      value: s.prefix,
    });
  } else {
    owners.set(s.prefix, name);
  }
  return out;
};

/** A stdio server's command is on the allowlist; it, its arguments and its environment carry no shell text. */
const stdioProblems = (doc: PolicyDoc, name: string, stdio: NonNullable<Server['stdio']>): Problems => [
  doc.commands[stdio.command]
    ? undefined
    : {
        path: ['servers', name, 'stdio', 'command'],
        message: `layer one (structural): command "${stdio.command}" is not on the allowlist (declare it under commands)`,
        value: stdio.command,
      },
  metaProblem(['servers', name, 'stdio', 'command'], stdio.command),
  ...stdio.args.map((a, i) => metaProblem(['servers', name, 'stdio', 'args', i], a)),
  ...Object.entries(stdio.env).map(([k, v]) => metaProblem(['servers', name, 'stdio', 'env', k], v)),
];

/** An http server: no stdio-only era, an http(s) URL, headers without shell text or undeclared secrets. */
const httpProblems = (doc: PolicyDoc, name: string, s: Server, http: NonNullable<Server['http']>): Problems => {
  const out: Problems = [];
  if (s.upstreamEra === 'modern' || s.upstreamEra === 'match')
    out.push({
      path: ['servers', name, 'upstreamEra'],
      message: 'applies to stdio upstreams only; an http upstream is spoken to in 2025-11-25',
    });
  const url = new URL(http.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    out.push({ path: ['servers', name, 'http', 'url'], message: 'must be an http:// or https:// URL' });
  }
  const secrets = doc.trustDomains[s.domain]?.secrets;
  for (const [h, v] of Object.entries(http.headers)) {
    out.push(metaProblem(['servers', name, 'http', 'headers', h], v));
    for (const m of v.matchAll(SECRET_REF)) {
      if (!secrets?.[m[1] ?? '']) {
        out.push({
          path: ['servers', name, 'http', 'headers', h],
          message: `references secret "${m[1]}" which trust domain "${s.domain}" does not declare`,
        });
      }
    }
  }
  return out;
};

/** One server, in the order a reader meets its settings. */
const serverProblems = (doc: PolicyDoc, name: string, s: Server, owners: Map<string, string>): Problems => [
  ...identityProblems(doc, name, s, owners),
  ...(s.stdio ? stdioProblems(doc, name, s.stdio) : []),
  ...(s.http ? httpProblems(doc, name, s, s.http) : []),
  s.probe && doc.trustDomains[s.domain]?.kind === 'principal'
    ? {
        path: ['servers', name, 'probe'],
        message: `a server in principal domain "${s.domain}" never shares, so it is never probed; remove the probe`,
      }
    : undefined,
];

/** A lane's loadout: declared servers, each once; `naming: bare` with exactly one. */
const laneProblems = (doc: PolicyDoc, laneName: string, lane: PolicyDoc['lanes'][string]): Problems => {
  const out: Problems = [];
  if (lane.naming === 'bare' && lane.servers.length !== 1) {
    out.push({
      path: ['lanes', laneName, 'naming'],
      message: `naming: bare needs exactly one server in the loadout (has ${lane.servers.length}); with more, names could collide`,
    });
  }
  const seen = new Set<string>();
  lane.servers.forEach((ref, i) => {
    if (!doc.servers[ref]) {
      out.push({ path: ['lanes', laneName, 'servers', i], message: `server "${ref}" is not declared in servers` });
    }
    if (seen.has(ref)) out.push({ path: ['lanes', laneName, 'servers', i], message: `server "${ref}" is listed twice` });
    seen.add(ref);
  });
  return out;
};

/** Every secret file path, read for shell text. */
const secretFileProblems = (doc: PolicyDoc): Problems =>
  Object.entries(doc.trustDomains).flatMap(([domainName, d]) =>
    Object.entries(d.secrets ?? {}).map(([secret, ref]) => metaProblem(['trustDomains', domainName, 'secrets', secret, 'file'], ref.file)),
  );

export const crossCheck = (doc: PolicyDoc): PathProblem[] => {
  const owners = new Map<string, string>();
  const all: Problems = [
    ...commandProblems(doc),
    ...Object.entries(doc.servers).flatMap(([name, s]) => serverProblems(doc, name, s, owners)),
    ...Object.entries(doc.lanes).flatMap(([laneName, lane]) => laneProblems(doc, laneName, lane)),
    ...secretFileProblems(doc),
  ];
  return all.filter((p): p is PathProblem => p !== undefined);
};
