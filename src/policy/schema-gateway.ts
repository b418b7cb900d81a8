import { z } from 'zod';

/**
 * The policy's `gateway:` block: where the front listens, what one lane (and the whole gateway)
 * may open at once, and the audit trail. Shape only, strict like the rest of schema.ts.
 */

const listen = z
  .string()
  .regex(/^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\]|localhost):\d{1,5}$/, 'must be a loopback host:port (127.x.x.x, [::1] or localhost)');

/** Defaults for `gateway.limits`: generous for a busy agent, small enough that one lane cannot take the front down. */
export const LIMIT_DEFAULTS = {
  jsonDepth: 64,
  sessionsPerLane: 256,
  streamsPerLane: 32,
  callsPerLane: 64,
  sharedCalls: 32,
  requestsPerLane: 128,
  connections: 2048,
  resultBytes: 32 * 1024 * 1024,
  unsentBytesPerConnection: 40 * 1024 * 1024,
  unsentBytesPerLane: 64 * 1024 * 1024,
  unsentBytes: 256 * 1024 * 1024,
  bytesInFlightPerLane: 8 * 1024 * 1024,
  stalledSendSeconds: 30,
};

const limits = z.strictObject({
  jsonDepth: z
    .number()
    .int()
    .min(8)
    .max(1000)
    .default(LIMIT_DEFAULTS.jsonDepth)
    .describe('Deepest JSON nesting a request may have (400 past it)'),
  sessionsPerLane: z
    .number()
    .int()
    .min(1)
    .default(LIMIT_DEFAULTS.sessionsPerLane)
    .describe('Handshake-era sessions per lane; past it the least recently used one ends'),
  streamsPerLane: z
    .number()
    .int()
    .min(1)
    .default(LIMIT_DEFAULTS.streamsPerLane)
    .describe('Open GET streams and subscriptions/listen streams per lane (429 past it; one GET stream per session, 409 for a second)'),
  callsPerLane: z
    .number()
    .int()
    .min(1)
    .default(LIMIT_DEFAULTS.callsPerLane)
    .describe('Requests of one lane in flight at once (429 past it)'),
  sharedCalls: z
    .number()
    .int()
    .min(4)
    .default(LIMIT_DEFAULTS.sharedCalls)
    .describe(
      'While several lanes are active, the calls in flight they share equally: each runs at most this divided by the active lanes (at least 4); its next calls wait their turn',
    ),
  requestsPerLane: z
    .number()
    .int()
    .min(1)
    .default(LIMIT_DEFAULTS.requestsPerLane)
    .describe('Open HTTP requests of one lane, streams included (429 past it)'),
  connections: z
    .number()
    .int()
    .min(16)
    .default(LIMIT_DEFAULTS.connections)
    .describe('TCP connections the front accepts at once, all lanes together'),
  resultBytes: z
    .number()
    .int()
    .min(64 * 1024)
    .max(1024 * 1024 * 1024)
    .default(LIMIT_DEFAULTS.resultBytes)
    .describe('Largest answer an upstream may give (bytes): a larger one is refused at once with an error naming this setting'),
  unsentBytesPerConnection: z
    .number()
    .int()
    .min(64 * 1024)
    .default(LIMIT_DEFAULTS.unsentBytesPerConnection)
    .describe(
      'Bytes the front holds for one connection that its client has not taken yet; past it the connection is closed and its buffers freed',
    ),
  unsentBytesPerLane: z
    .number()
    .int()
    .min(64 * 1024)
    .default(LIMIT_DEFAULTS.unsentBytesPerLane)
    .describe(
      "Bytes of one lane's answers not yet delivered that the front holds (its connections' unread answers) and, apart, that each host holds while it checks them; an answer past it is refused",
    ),
  unsentBytes: z
    .number()
    .int()
    .min(1024 * 1024)
    .default(LIMIT_DEFAULTS.unsentBytes)
    .describe(
      "Bytes of all lanes' answers not yet delivered that the front holds and, apart, that each host holds; an answer past it is refused",
    ),
  bytesInFlightPerLane: z
    .number()
    .int()
    .min(64 * 1024)
    .default(LIMIT_DEFAULTS.bytesInFlightPerLane)
    .describe('Request bytes of one lane read and in flight at once; its next requests wait (unread) for their turn'),
  stalledSendSeconds: z
    .number()
    .int()
    .min(1)
    .max(3600)
    .default(LIMIT_DEFAULTS.stalledSendSeconds)
    .describe('A connection whose client takes none of an answer for this long is closed and its buffers freed'),
});

/** Defaults for `gateway.audit`: on, 10 MiB per file, the current file plus five rotated ones. */
export const AUDIT_DEFAULTS = { enabled: true, maxBytes: 10 * 1024 * 1024, keep: 5, hashArguments: false };

const audit = z.strictObject({
  enabled: z.boolean().default(AUDIT_DEFAULTS.enabled).describe('Write one record per lane request that reaches an upstream'),
  maxBytes: z
    .number()
    .int()
    .min(4096)
    .default(AUDIT_DEFAULTS.maxBytes)
    .describe('Size past which <stateDir>/audit/audit.jsonl is rotated to audit.1.jsonl'),
  keep: z.number().int().min(1).max(100).default(AUDIT_DEFAULTS.keep).describe('Rotated files kept (audit.1.jsonl ... audit.N.jsonl)'),
  hashArguments: z
    .boolean()
    .default(AUDIT_DEFAULTS.hashArguments)
    .describe("Add a SHA-256 of each call's arguments (arguments and results themselves are never recorded)"),
});

export const gateway = z.strictObject({
  listen: listen.default('127.0.0.1:8750'),
  stateDir: z.string().default('./.lanegate'),
  issuer: z.string().min(1).default('lanegate'),
  audience: z.string().min(1).default('lanegate'),
  maxBodyBytes: z
    .number()
    .int()
    .min(1024)
    .max(64 * 1024 * 1024)
    .default(4 * 1024 * 1024),
  allowedOrigins: z.array(z.string()).default([]),
  publicUrl: z.url().optional(),
  limits: limits.default(LIMIT_DEFAULTS).describe('What one lane (and the whole gateway) may open at once'),
  audit: audit.default(AUDIT_DEFAULTS).describe('The audit trail: one JSONL record per upstream request, never arguments or results'),
});

/** The whole `gateway:` block when a policy leaves it out. */
export const GATEWAY_DEFAULTS = {
  listen: '127.0.0.1:8750',
  stateDir: './.lanegate',
  issuer: 'lanegate',
  audience: 'lanegate',
  maxBodyBytes: 4 * 1024 * 1024,
  allowedOrigins: [],
  limits: LIMIT_DEFAULTS,
  audit: AUDIT_DEFAULTS,
};
