import { isMap, LineCounter, parseDocument, stringify } from 'yaml';

/** The indentation of the keys under servers.NAME in this policy text, or why there is none to paste under. */
export const serverIndent = (text: string, server: string): { indent: number; end: number; hasProbe: boolean } | { error: string } => {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc });
  const node = doc.getIn(['servers', server], true);
  if (!isMap(node) || !node.range) return { error: `servers.${server} is not a map in the policy` };
  if (node.flow) return { error: `servers.${server} is written inline ({ … }); write it as a block (one key per line) to paste under it` };
  const first = node.items[0]?.key as { range?: [number, number, number] } | undefined;
  if (!first?.range) return { error: `servers.${server} is empty` };
  return { indent: lc.linePos(first.range[0]).col - 1, end: node.range[1], hasProbe: node.has('probe') };
};

/** `probe:` and its steps, indented to sit under servers.NAME. Pure. */
export const probeBlock = (steps: unknown[], indent: number): string =>
  stringify({ probe: steps })
    .trimEnd()
    .split('\n')
    .map((l) => `${' '.repeat(indent)}${l}`)
    .join('\n');

/**
 * The policy text with the probe inserted as the last key of servers.NAME: the rest of the text,
 * comments and layout included, is kept byte for byte. Pure.
 */
export const insertProbe = (text: string, server: string, steps: unknown[]): { text: string } | { error: string } => {
  const at = serverIndent(text, server);
  if ('error' in at) return at;
  if (at.hasProbe) return { error: `servers.${server} already has a probe; edit it by hand (the proposal is printed without --write)` };
  // After the line the server's map ends on (its last value; a trailing comment on it stays there).
  const nl = text.indexOf('\n', Math.max(0, at.end - 1));
  const cut = nl === -1 ? text.length : nl + 1;
  const head = text.slice(0, cut);
  return { text: `${head}${head.endsWith('\n') ? '' : '\n'}${probeBlock(steps, at.indent)}\n${text.slice(cut)}` };
};
