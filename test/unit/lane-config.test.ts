import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { CONFIG_FORMATS, laneConfig } from '../../src/cli/lane-config.js';

const URL_ = 'http://127.0.0.1:8750/mcp';
const TOKEN = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJhIn0.c2ln';
const headers = z.strictObject({ Authorization: z.literal(`Bearer ${TOKEN}`) });
const one = <T extends z.ZodType>(entry: T) => z.record(z.literal('lanegate'), entry);

/**
 * Each client's documented shape for a remote (Streamable HTTP) server with a header, as its docs
 * give it: VS Code's mcp.json `servers` with `type: http`; Cursor's `mcpServers` with `url`;
 * Windsurf's `serverUrl` (its `url` does not connect); Gemini CLI's `httpUrl` (its `url` means SSE).
 */
const SCHEMAS = {
  json: z.strictObject({ mcpServers: one(z.strictObject({ type: z.literal('http'), url: z.literal(URL_), headers })) }),
  vscode: z.strictObject({ servers: one(z.strictObject({ type: z.literal('http'), url: z.literal(URL_), headers })) }),
  cursor: z.strictObject({ mcpServers: one(z.strictObject({ url: z.literal(URL_), headers })) }),
  windsurf: z.strictObject({ mcpServers: one(z.strictObject({ serverUrl: z.literal(URL_), headers })) }),
  gemini: z.strictObject({ mcpServers: one(z.strictObject({ httpUrl: z.literal(URL_), headers })) }),
};

describe('client configs in each client’s documented shape', () => {
  for (const [format, schema] of Object.entries(SCHEMAS)) {
    it(`${format}: valid JSON in that shape`, () => {
      const r = schema.safeParse(JSON.parse(laneConfig(format as keyof typeof SCHEMAS, 'lanegate', URL_, TOKEN)));
      assert.ok(r.success, r.success ? '' : JSON.stringify(r.error.issues));
    });
  }
  it('codex: a config.toml table with url and http_headers', () => {
    const lines = laneConfig('codex', 'lanegate', URL_, TOKEN).split('\n');
    assert.deepEqual(lines, ['[mcp_servers.lanegate]', `url = "${URL_}"`, `http_headers = { "Authorization" = "Bearer ${TOKEN}" }`]);
  });
  it('claude: a `claude mcp add` command for an http transport with the header', () => {
    assert.equal(
      laneConfig('claude', 'lanegate', URL_, TOKEN),
      `claude mcp add --transport http lanegate ${URL_} --header "Authorization: Bearer ${TOKEN}"`,
    );
  });
  it('every format is covered here', () => {
    assert.deepEqual([...CONFIG_FORMATS].sort(), [...Object.keys(SCHEMAS), 'codex', 'claude'].sort());
  });
});
