import { PassThrough, type Readable, type Writable } from 'node:stream';

export interface LinkEnd {
  input: Readable;
  output: Writable;
}

/**
 * The link's in-memory transport: two ends, each writing what the other reads, NDJSON as on a
 * host's stdio. Front and host code run unchanged over it, in one process (tests).
 */
export const memoryLink = (): { front: LinkEnd; host: LinkEnd } => {
  const toHost = new PassThrough();
  const toFront = new PassThrough();
  return { front: { input: toFront, output: toHost }, host: { input: toHost, output: toFront } };
};
