/**
 * JSON text to be sent as it is, in place of a value, by a transport that writes lines itself
 * (LinePeer): what the sender already holds as text is not parsed and serialised again. The text
 * must be one JSON value; the sender vouches for it (the front sends only a body it parsed).
 */
export class JsonText {
  constructor(readonly json: string) {}
}
