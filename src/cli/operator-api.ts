import { readOperatorToken } from '../front/operator/operator.js';
import type { Policy } from '../policy/model.js';

/** The running gateway's base URL from the policy (or an override). */
export const gatewayBase = (policy: Policy, url?: string): string =>
  (
    url ??
    policy.gateway.publicUrl ??
    `http://${policy.gateway.host.includes(':') ? `[${policy.gateway.host}]` : policy.gateway.host}:${policy.gateway.port}`
  ).replace(/\/mcp$/, '');

/** Where and how the operator CLI talks to the gateway's API, or undefined (with a message) without a token. */
export const operatorApi = (policy: Policy, url?: string): { base: string; headers: Record<string, string> } | undefined => {
  const token = process.env.LANEGATE_OPERATOR_TOKEN ?? readOperatorToken(policy.gateway.stateDir);
  if (!token) {
    process.stderr.write('no operator token: set LANEGATE_OPERATOR_TOKEN or run as the user that owns the state dir\n');
    return undefined;
  }
  return { base: gatewayBase(policy, url), headers: { authorization: `Bearer ${token}` } };
};
