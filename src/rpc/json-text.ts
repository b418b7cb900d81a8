import type { WireParts } from './parts.js';
/**
 * JSON text to be sent as it is, in place of a value, by a transport that writes lines itself
 * (LinePeer): what the sender already holds as text is not parsed and serialised again. The text
 * must be one JSON value that the sender parsed (the front sends only a body it parsed). It may
 * be given as parts, in order (a head of the sender's own and a lane's body): they are written one
 * after the other and never joined, so a 4 MB body is not copied to be sent on.
 *
 * The link is newline-delimited, so the text must never hold a line break. In JSON that parsed, a
 * raw CR or LF can only be whitespace between tokens (inside a string it must be escaped, or the
 * parse fails), so each becomes a space: the value is unchanged and the text stays one line.
 * A lane that pretty-prints its body, or puts a newline before a message of its own, cannot end
 * the link's line early.
 */
const oneLine = (json: string): string => (json.includes('\n') || json.includes('\r') ? json.replace(/[\r\n]/g, ' ') : json);

export class JsonText {
  readonly parts: WireParts;

  /**
   * `order`: the order the message keeps on a link (LineOptions.orderOf), when the sender knows it.
   * A bytes part is a string value's text that parsed (large-body.ts): it holds no raw line break.
   */
  constructor(
    json: string | WireParts,
    readonly order?: string,
  ) {
    this.parts = typeof json === 'string' ? [oneLine(json)] : json.map((p) => (typeof p === 'string' ? oneLine(p) : p));
  }
}
