/**
 * JSON text to be sent as it is, in place of a value, by a transport that writes lines itself
 * (LinePeer): what the sender already holds as text is not parsed and serialised again. The text
 * must be one JSON value that the sender parsed (the front sends only a body it parsed).
 *
 * The link is newline-delimited, so the text must never hold a line break. In JSON that parsed, a
 * raw CR or LF can only be whitespace between tokens (inside a string it must be escaped, or the
 * parse fails), so each becomes a space: the value is unchanged and the text stays one line.
 * A lane that pretty-prints its body, or puts a newline before a message of its own, cannot end
 * the link's line early.
 */
export class JsonText {
  readonly json: string;

  constructor(json: string) {
    this.json = json.includes('\n') || json.includes('\r') ? json.replace(/[\r\n]/g, ' ') : json;
  }
}
