import type { RpcMessage } from '../rpc/jsonrpc.js';
import { noteAnswerSize } from '../rpc/answer-size.js';
import { LARGE_TURN_CHARS } from '../rpc/turn.js';

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

/** A message parsed, a long result's size noted for the answer bytes its lane holds in the host (answer-size.ts). */
const weighed = (text: string): RpcMessage => {
  const m = JSON.parse(text) as RpcMessage;
  if (text.length >= LARGE_TURN_CHARS && 'result' in m) noteAnswerSize(m.result, text.length);
  return m;
};

/**
 * Every JSON-RPC message of a POST's answer, in order: one JSON body, or the events of an SSE
 * stream. A body or an event past `limit` bytes is not read further (TooLarge).
 */
export const messagesOf = async (res: Response, each: (m: RpcMessage) => void, limit: number): Promise<void> => {
  const type = res.headers.get('content-type') ?? '';
  if (type.includes('application/json')) {
    each(weighed(await boundedText(res, limit)));
    return;
  }
  if (!type.includes('text/event-stream') || !res.body) return;
  const decoder = new TextDecoder();
  let buf = '';
  // Bytes of the event being read, and where the search for its end goes on from: a large event
  // arriving in many chunks is scanned once, not from its start at every chunk.
  let pending = 0;
  let from = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buf += decoder.decode(chunk, { stream: true });
    pending += chunk.byteLength;
    if (pending > limit) throw new TooLarge(pending);
    let cut = false;
    for (let sep = buf.indexOf('\n\n', from); sep >= 0; sep = buf.indexOf('\n\n')) {
      cut = true;
      const data = buf
        .slice(0, sep)
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n');
      buf = buf.slice(sep + 2);
      if (data) each(weighed(data));
    }
    // What is left is the start of the next event (small after a cut; measured only then).
    if (cut) pending = Buffer.byteLength(buf);
    from = Math.max(0, buf.length - 1);
  }
};
