/** Reads JSON-RPC messages one by one from an SSE response body (data: lines). */
export const sseMessages = (res: Response): (() => Promise<Record<string, unknown>>) => {
  const reader = res.body?.getReader();
  if (!reader) throw new Error('response has no body');
  const dec = new TextDecoder();
  let buf = '';
  return async () => {
    for (let i = 0; i < 200; i += 1) {
      const m = /data: (.*)\n/.exec(buf);
      if (m?.[1]) {
        buf = buf.slice((m.index ?? 0) + m[0].length);
        return JSON.parse(m[1]) as Record<string, unknown>;
      }
      const { value, done } = await reader.read();
      if (done) break;
      buf += dec.decode(value, { stream: true });
    }
    throw new Error('stream ended');
  };
};
