import type { RpcMessage } from '../rpc/jsonrpc.js';

/** An answer past gateway.limits.resultBytes: reading stopped at `bytes`. */
export class TooLarge extends Error {
  constructor(readonly bytes: number) {
    super('answer too large');
  }
}

/** A JSON body read up to `limit` bytes, never further. */
const boundedText = async (res: Response, limit: number): Promise<string> => {
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) {
    await res.body?.cancel().catch(() => undefined);
    throw new TooLarge(declared);
  }
  if (!res.body) return '';
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let n = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    n += chunk.byteLength;
    if (n > limit) throw new TooLarge(n);
    parts.push(decoder.decode(chunk, { stream: true }));
  }
  return parts.join('') + decoder.decode();
};

/**
 * Every JSON-RPC message of a POST's answer, in order: one JSON body, or the events of an SSE
 * stream. A body or an event past `limit` bytes is not read further (TooLarge).
 */
export const messagesOf = async (res: Response, each: (m: RpcMessage) => void, limit: number): Promise<void> => {
  const type = res.headers.get('content-type') ?? '';
  if (type.includes('application/json')) {
    each(JSON.parse(await boundedText(res, limit)) as RpcMessage);
    return;
  }
  if (!type.includes('text/event-stream') || !res.body) return;
  const decoder = new TextDecoder();
  let buf = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buf += decoder.decode(chunk, { stream: true });
    if (buf.length > limit) throw new TooLarge(buf.length);
    for (let sep = buf.indexOf('\n\n'); sep >= 0; sep = buf.indexOf('\n\n')) {
      const data = buf
        .slice(0, sep)
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n');
      buf = buf.slice(sep + 2);
      if (data) each(JSON.parse(data) as RpcMessage);
    }
  }
};
