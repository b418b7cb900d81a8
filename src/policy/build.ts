import path from 'node:path';
import type { Policy, ProbeStepConfig, SecretsPolicy, ServerConfig } from './model.js';
import { expandPlaceholders, hasLanePlaceholder, type PlaceholderValues } from './placeholders.js';
import { durationSeconds, type PolicyDoc, type ProbeStep, type ServerSpec } from './schema.js';

/** A probe step as the policy writes it (tool, prompt or resource) → what the demonstration runs. */
export const probeStepOf = (p: ProbeStep): ProbeStepConfig => ({
  method: p.prompt !== undefined ? 'prompts/get' : p.resource !== undefined ? 'resources/read' : 'tools/call',
  name: p.prompt ?? p.resource ?? p.tool ?? '',
  args: p.args,
  volatile: p.volatile,
});

type Server = PolicyDoc['servers'][string];

/** Each trust domain with its secret files resolved; per lane if principal or a secret file names the lane. */
const domainsOf = (doc: PolicyDoc, policyDir: string, values: PlaceholderValues): Policy['domains'] => {
  const domains: Policy['domains'] = {};
  for (const [name, d] of Object.entries(doc.trustDomains)) {
    const secrets = Object.entries(d.secrets ?? {}).map(([secretName, ref]) => ({
      name: secretName,
      file: path.resolve(policyDir, expandPlaceholders(ref.file, values)),
    }));
    domains[name] = { name, kind: d.kind, perLane: d.kind === 'principal' || secrets.some((s) => hasLanePlaceholder(s.file)), secrets };
  }
  return domains;
};

/** A server's transport with placeholders expanded, and whether it names the lane (then it launches per lane). */
const transportOf = (
  s: Server,
  values: PlaceholderValues,
  resolvedCommands: Record<string, string>,
): { transport: ServerConfig['transport']; perLaneLaunch: boolean } => {
  if (s.stdio) {
    const args = s.stdio.args.map((a) => expandPlaceholders(a, values));
    const env = Object.fromEntries(Object.entries(s.stdio.env).map(([k, v]) => [k, expandPlaceholders(v, values)]));
    return {
      transport: { kind: 'stdio', command: s.stdio.command, commandPath: resolvedCommands[s.stdio.command] ?? '', args, env },
      perLaneLaunch: args.some(hasLanePlaceholder) || Object.values(env).some(hasLanePlaceholder),
    };
  }
  const h = s.http ?? { url: '', headers: {} };
  return {
    transport: { kind: 'http', url: h.url, headers: h.headers },
    perLaneLaunch: hasLanePlaceholder(h.url) || Object.values(h.headers).some(hasLanePlaceholder),
  };
};

const serverOf = (
  doc: PolicyDoc,
  name: string,
  s: Server,
  values: PlaceholderValues,
  resolvedCommands: Record<string, string>,
): ServerConfig => {
  const { transport, perLaneLaunch } = transportOf(s, values, resolvedCommands);
  return {
    name,
    prefix: s.prefix,
    domain: s.domain,
    enabled: s.enabled,
    share: s.share,
    upstreamEra: s.upstreamEra,
    transport,
    perLaneLaunch,
    ...(s.probe ? { probe: s.probe.map(probeStepOf) } : {}),
    ...(s.expect
      ? { expect: { ...(s.expect.version ? { version: s.expect.version } : {}), ...(s.expect.tools ? { tools: s.expect.tools } : {}) } }
      : {}),
    onDrift: s.onDrift,
    idleMs: (s.idleSeconds ?? durationSeconds(s.idle)) * 1000,
    callTimeoutMs: (s.callTimeoutSeconds ?? durationSeconds(s.callTimeout)) * 1000,
    secrets: secretsPolicyOf(s.secrets, doc.trustDomains[s.domain]?.kind ?? 'shared'),
  };
};

const lanesOf = (doc: PolicyDoc): Policy['lanes'] => {
  const lanes: Policy['lanes'] = {};
  for (const [name, l] of Object.entries(doc.lanes)) {
    lanes[name] = {
      name,
      servers: l.servers,
      enabled: l.enabled,
      catalog: l.catalog,
      naming: l.naming,
      ...(l.tokensNotBefore ? { tokensNotBefore: Math.floor(Date.parse(l.tokensNotBefore) / 1000) } : {}),
    };
  }
  return lanes;
};

/** Builds the resolved model from a validated document. Pure: command paths come resolved. */
export const buildPolicy = (doc: PolicyDoc, file: string, resolvedCommands: Record<string, string>, nodePath: string): Policy => {
  const policyDir = path.dirname(file);
  const stateDir = path.resolve(policyDir, expandPlaceholders(doc.gateway.stateDir, { policyDir, stateDir: '', node: nodePath }));
  const values: PlaceholderValues = { policyDir, stateDir, node: nodePath };
  const [host, portText] = splitListen(doc.gateway.listen);
  const servers: Policy['servers'] = {};
  for (const [name, s] of Object.entries(doc.servers)) servers[name] = serverOf(doc, name, s, values, resolvedCommands);
  return {
    file,
    policyDir,
    gateway: {
      host,
      port: Number(portText),
      stateDir,
      issuer: doc.gateway.issuer,
      audience: doc.gateway.audience,
      maxBodyBytes: doc.gateway.maxBodyBytes,
      limits: doc.gateway.limits,
      allowedOrigins: doc.gateway.allowedOrigins,
      audit: doc.gateway.audit,
      ...(doc.gateway.publicUrl ? { publicUrl: doc.gateway.publicUrl } : {}),
    },
    domains: domainsOf(doc, policyDir, values),
    servers,
    lanes: lanesOf(doc),
    revokedTokenIds: doc.revokedTokenIds,
  };
};

/**
 * servers.X.secrets resolved. Requests: block unless the policy says log. Answers: block in a
 * shared domain, redact in a principal one (the lane's own data keeps flowing, the secret does not).
 */
export const secretsPolicyOf = (spec: ServerSpec['secrets'], kind: 'shared' | 'principal'): SecretsPolicy => {
  const answers: SecretsPolicy['answers'] = kind === 'principal' ? 'redact' : 'block';
  if (spec === undefined) return { arguments: 'block', answers, ignore: [] };
  if (typeof spec === 'string') return { arguments: spec === 'log' ? 'log' : 'block', answers: spec, ignore: [] };
  return { arguments: spec.arguments ?? 'block', answers: spec.answers ?? answers, ignore: [...spec.ignore] };
};

export const splitListen = (listen: string): [string, string] => {
  const i = listen.lastIndexOf(':');
  const host = listen.slice(0, i);
  return [host.startsWith('[') ? host.slice(1, -1) : host, listen.slice(i + 1)];
};
