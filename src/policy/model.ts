/**
 * The resolved policy: what the gateway runs on. Plain JSON (it is handed to hosts), absolute
 * paths, placeholders other than {lane} expanded. Secrets are references (file paths) only.
 */
export interface GatewayConfig {
  host: string;
  port: number;
  stateDir: string;
  issuer: string;
  audience: string;
  maxBodyBytes: number;
  limits: Limits;
  allowedOrigins: string[];
  publicUrl?: string;
  audit: AuditConfig;
}

/** gateway.audit: the audit trail's file and rotation. */
export interface AuditConfig {
  enabled: boolean;
  maxBytes: number;
  keep: number;
  hashArguments: boolean;
}

/** gateway.limits: what one lane, and the whole front, may have open at once. */
export interface Limits {
  jsonDepth: number;
  sessionsPerLane: number;
  streamsPerLane: number;
  callsPerLane: number;
  /** Calls in flight shared equally among the active lanes when several are. */
  sharedCalls: number;
  requestsPerLane: number;
  connections: number;
  /** Largest answer an upstream may give, in bytes (enforced by the host as the child writes). */
  resultBytes: number;
  /** Bytes held for one connection not yet taken by its client; past it the connection closes. */
  unsentBytesPerConnection: number;
  /** The same, summed over one lane's connections; an answer past it is refused. */
  unsentBytesPerLane: number;
  /** The same, summed over every lane. */
  unsentBytes: number;
  /** Request bytes of one lane in flight at once; more wait unread. */
  bytesInFlightPerLane: number;
  /** A connection whose client takes nothing of an answer for this long is closed. */
  stalledSendSeconds: number;
}

export interface SecretRef {
  name: string;
  /** May contain {lane}; then the domain is per-lane. */
  file: string;
}

export interface DomainConfig {
  name: string;
  kind: 'shared' | 'principal';
  /** One host per lane: kind principal, or a secret file path naming {lane}. */
  perLane: boolean;
  secrets: SecretRef[];
}

export type Transport =
  | { kind: 'stdio'; command: string; commandPath: string; args: string[]; env: Record<string, string> }
  | { kind: 'http'; url: string; headers: Record<string, string> };

export interface ProbeStepConfig {
  /** What the step runs: a tool call, a prompt get or a resource read. */
  method: 'tools/call' | 'prompts/get' | 'resources/read';
  /** The tool or prompt name, or the resource URI (unprefixed, as the upstream knows it). */
  name: string;
  args: Record<string, unknown>;
  volatile: string[];
}

/** servers.X.secrets, resolved: what the host does when a call carries a secret, each way. */
export interface SecretsPolicy {
  arguments: 'block' | 'log';
  answers: 'block' | 'redact' | 'log';
  /** Rule ids turned off for this server (never `injected_secret`). */
  ignore: string[];
}

export interface ServerConfig {
  name: string;
  prefix: string;
  domain: string;
  enabled: boolean;
  share: 'auto' | 'never';
  /** The protocol era the host speaks to this upstream. */
  upstreamEra: 'auto' | 'legacy' | 'modern' | 'match';
  transport: Transport;
  /** args or env mention {lane}: every lane gets its own launch, structurally. */
  perLaneLaunch: boolean;
  probe?: ProbeStepConfig[];
  expect?: { version?: string; tools?: string[] };
  onDrift: 'report' | 'withhold';
  idleMs: number;
  callTimeoutMs: number;
  /** Absent in hand-built configs: then block both ways. */
  secrets?: SecretsPolicy;
}

export interface LaneConfig {
  name: string;
  servers: string[];
  enabled: boolean;
  catalog: 'full' | 'search';
  naming: 'prefixed' | 'bare';
  /** Epoch seconds; tokens with an earlier iat are void. */
  tokensNotBefore?: number;
}

export interface Policy {
  file: string;
  policyDir: string;
  gateway: GatewayConfig;
  domains: Record<string, DomainConfig>;
  servers: Record<string, ServerConfig>;
  lanes: Record<string, LaneConfig>;
  revokedTokenIds: string[];
}
