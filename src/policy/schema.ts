import { z } from 'zod';
import { parseDuration } from '../auth/duration.js';
import { SECRET_RULE_IDS } from '../guard/secrets/rule-ids.js';
import { GATEWAY_DEFAULTS, gateway } from './schema-gateway.js';

export { AUDIT_DEFAULTS, LIMIT_DEFAULTS } from './schema-gateway.js';

/**
 * The policy file's schema. Every object is strict: an unknown key is an error, because a
 * typo in a security policy ("shrae: never") must not silently mean the default.
 * Cross-references and the guard's structural rules live in crosscheck.ts; this file is shape.
 */

const name = z.string().regex(/^[a-z][a-z0-9-]{0,62}$/, 'must be lowercase letters, digits and "-", starting with a letter (max 63)');

export const PREFIX_PATTERN = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
const prefix = z
  .string()
  .max(32, 'at most 32 characters')
  .regex(PREFIX_PATTERN, 'must be lowercase letters and digits, "-" between them, no "_" (it separates prefix and tool)');

/** Seconds of a duration written "90s", "15m", "12h", "30d", "2w" (or whole seconds); NaN if malformed. */
export const durationSeconds = (v: string | number): number => {
  if (typeof v === 'number') return v;
  try {
    return parseDuration(v);
  } catch {
    return Number.NaN;
  }
};
/** A duration between min and max seconds, the one convention of the policy and the CLI. */
const duration = (min: number, max: number) =>
  z.union([z.string(), z.number().int()]).superRefine((v, ctx) => {
    const secs = durationSeconds(v);
    if (Number.isNaN(secs)) ctx.addIssue({ code: 'custom', message: 'must look like 90s, 15m, 12h, 30d or 2w' });
    else if (secs < min || secs > max) ctx.addIssue({ code: 'custom', message: `must be between ${min}s and ${max}s` });
  });

const secretName = z.string().regex(/^[A-Z][A-Z0-9_]{0,127}$/, 'must be an UPPER_SNAKE environment name');

const secretRef = z.strictObject({
  file: z.string().min(1).describe('Path of the file holding the value. {lane} makes the trust domain per-lane.'),
});

const trustDomain = z.strictObject({
  kind: z.enum(['shared', 'principal']).describe('shared: one host for all lanes; principal: one host per lane, never shared'),
  secrets: z.record(secretName, secretRef).optional(),
  description: z.string().optional(),
});

const command = z.strictObject({
  path: z.string().min(1).describe('Absolute path of the program, or "{node}" for the Node.js running lanegate'),
});

const stdio = z.strictObject({
  command: z.string().min(1).describe('A key of `commands`: only allowlisted programs run'),
  args: z.array(z.string()).default([]),
  env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name'), z.string()).default({}),
});

const http = z.strictObject({
  url: z.url(),
  headers: z.record(z.string(), z.string()).default({}).describe('Values may reference a domain secret as {secret:NAME}'),
});

const probeStep = z
  .strictObject({
    tool: z.string().min(1).optional().describe('A tool to call (tools/call)'),
    prompt: z.string().min(1).optional().describe('A prompt to get (prompts/get)'),
    resource: z.string().min(1).optional().describe('A resource URI to read (resources/read)'),
    args: z.record(z.string(), z.unknown()).default({}),
    volatile: z.array(z.string()).default([]).describe('JSON paths in the output that may differ between runs'),
  })
  .refine((s) => [s.tool, s.prompt, s.resource].filter((x) => x !== undefined).length === 1, {
    message: 'a probe step names exactly one of tool, prompt or resource',
  });

const secretAction = z
  .union([
    z.enum(['block', 'redact', 'log']),
    z.strictObject({
      arguments: z.enum(['block', 'log']).optional().describe("A lane's request holding a secret. Default block"),
      answers: z
        .enum(['block', 'redact', 'log'])
        .optional()
        .describe("An upstream's answer holding a secret. Default block in a shared domain, redact in a principal one"),
      ignore: z.array(z.enum(SECRET_RULE_IDS)).default([]).describe('Rule ids not applied to this server (never injected_secret)'),
    }),
  ])
  .describe(
    'What the host does when a call carries a secret (README: Secrets on the data path). A word sets both directions (redact: block requests, redact answers). A value this domain injects is never let through',
  );

const server = z
  .strictObject({
    prefix,
    domain: name,
    description: z.string().optional(),
    enabled: z.boolean().default(true),
    stdio: stdio.optional(),
    http: http.optional(),
    share: z.enum(['auto', 'never']).default('auto'),
    upstreamEra: z
      .enum(['auto', 'legacy', 'modern', 'match'])
      .default('auto')
      .describe(
        'The protocol era spoken to this stdio upstream. auto: the era of each lane request when the upstream speaks it, else the other one (learned from its answer to the first opening; a handshake-era-only server gets one child as with legacy). legacy: always the handshake era (2025-11-25). modern: always 2026-07-28 (server/discover, per-request envelope, input_required passed through). match: always the era of each lane request',
      ),
    probe: z.array(probeStep).optional(),
    expect: z
      .strictObject({
        version: z.string().min(1).optional().describe('The version the server must report (serverInfo.version)'),
        tools: z.array(z.string().min(1)).optional().describe('The exact tool names (unprefixed) the server must list'),
      })
      .optional()
      .describe('The declared inventory: a mismatch is a loud drift report'),
    onDrift: z
      .enum(['report', 'withhold'])
      .default('report')
      .describe('withhold: serve the lane without it until the inventory is accepted'),
    idle: duration(1, 86_400).default('5m').describe('How long a dedicated child may sit unused before it stops: 90s, 15m, 12h, 1d'),
    callTimeout: duration(1, 3_600).default('60s').describe('How long one call may take upstream: 30s, 5m, 1h'),
    idleSeconds: z.number().int().min(1).max(86_400).optional().describe('Deprecated: write idle: "5m"'),
    callTimeoutSeconds: z.number().int().min(1).max(3_600).optional().describe('Deprecated: write callTimeout: "60s"'),
    secrets: secretAction.optional(),
  })
  .refine((s) => (s.stdio ? 1 : 0) + (s.http ? 1 : 0) === 1, {
    message: 'a server needs exactly one of `stdio` or `http`',
  });

const lane = z.strictObject({
  servers: z.array(name).default([]),
  enabled: z.boolean().default(true),
  catalog: z.enum(['full', 'search']).default('full'),
  naming: z.enum(['prefixed', 'bare']).default('prefixed').describe('bare: a lane with exactly one server sees its own names, unprefixed'),
  tokensNotBefore: z.iso.datetime({ offset: true }).optional().describe('Tokens for this lane issued before this instant are void'),
  description: z.string().optional(),
});

export const policySchema = z.strictObject({
  $schema: z.string().optional(),
  version: z.literal(1),
  gateway: gateway.default(GATEWAY_DEFAULTS),
  commands: z.record(name, command).default({}),
  trustDomains: z.record(name, trustDomain),
  servers: z.record(name, server).default({}),
  lanes: z.record(name, lane).default({}),
  revokedTokenIds: z.array(z.string().min(1)).default([]),
});

export type PolicyDoc = z.output<typeof policySchema>;
export type ServerSpec = PolicyDoc['servers'][string];
export type LaneSpec = PolicyDoc['lanes'][string];
export type TrustDomainSpec = PolicyDoc['trustDomains'][string];
export type ProbeStep = z.output<typeof probeStep>;
