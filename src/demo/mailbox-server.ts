#!/usr/bin/env node
import { createHash } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

/**
 * The default policy's principal-domain server: a stand-in for one person's mailbox broker.
 * It holds MAILBOX_TOKEN (its domain's secret, from a file only its host reads) and proves it
 * without revealing it: `whoami` answers a short fingerprint of the credential it was given.
 * Its mailbox is in memory, per process: the gateway gives each lane its own process.
 */
const token = process.env.MAILBOX_TOKEN ?? '';
const fingerprint = token ? createHash('sha256').update(token).digest('hex').slice(0, 12) : 'none';
const inbox: { from: string; subject: string; body: string }[] = [
  { from: 'welcome@example.invalid', subject: 'Welcome', body: 'This mailbox lives in a dedicated process.' },
];

serveStdio(() => {
  const server = new McpServer({ name: 'lanegate-demo-mailbox', version: '0.1.0' }, { capabilities: { tools: {} } });
  server.registerTool(
    'whoami',
    { description: 'Fingerprint of the mailbox credential this process holds (never the credential).', inputSchema: z.object({}) },
    async () => ({ content: [{ type: 'text', text: `credential fingerprint ${fingerprint}` }] }),
  );
  server.registerTool(
    'list_messages',
    { description: 'List the subjects in this mailbox.', inputSchema: z.object({}), annotations: { readOnlyHint: true } },
    async () => ({ content: [{ type: 'text', text: JSON.stringify(inbox.map((m, i) => ({ id: i, from: m.from, subject: m.subject }))) }] }),
  );
  server.registerTool(
    'save_draft',
    {
      description: 'Save a message in this mailbox.',
      inputSchema: z.object({ subject: z.string().max(200), body: z.string().max(10_000) }),
    },
    async ({ subject, body }) => {
      inbox.push({ from: 'me', subject, body });
      return { content: [{ type: 'text', text: `saved as message ${inbox.length - 1}` }] };
    },
  );
  return server;
});
