import { Client, type ClientOptions } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Notification } from '@modelcontextprotocol/sdk/types.js';

/**
 * A real SDK v1 client (@modelcontextprotocol/sdk) to the gateway in the handshake era. The v2
 * client has no task API; v1's `experimental.tasks` (callToolStream, getTask, getTaskResult,
 * listTasks, cancelTask) is what a task-using lane runs today. Notifications it has no handler for
 * are kept in `seen`.
 */
export const connectV1 = async (
  url: string,
  token: string,
  capabilities: Record<string, unknown> = {},
  options: Omit<ClientOptions, 'capabilities'> = {},
): Promise<{ client: Client; seen: Notification[] }> => {
  const client = new Client({ name: 'test-v1', version: '1.0.0' }, { ...options, capabilities });
  const seen: Notification[] = [];
  client.fallbackNotificationHandler = async (n) => {
    seen.push(n);
  };
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  return { client, seen };
};
