import { isNode, LineCounter, type Document } from 'yaml';
import type { ProblemPath } from './problem.js';

/**
 * Maps a document path to a 1-based line:col. A path that does not exist (a missing required
 * key) is reported at its nearest existing ancestor, so every problem has a place to look.
 */
export const positionOf = (doc: Document, lc: LineCounter, path: ProblemPath): { line: number; col: number } => {
  for (let n = path.length; n >= 0; n -= 1) {
    const node = n === 0 ? doc.contents : doc.getIn(path.slice(0, n) as (string | number)[], true);
    if (isNode(node) && node.range) {
      const pos = lc.linePos(node.range[0]);
      return { line: pos.line, col: pos.col };
    }
  }
  return { line: 1, col: 1 };
};

export { LineCounter };
