import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ProbeStepConfig } from '../../src/policy/model.js';
import { judgeSpot, spotBaseline, spotParams, spotSteps } from '../../src/shareability/spot.js';

const echo: ProbeStepConfig = { method: 'tools/call', name: 'echo', args: { text: '{{canary}}' }, volatile: [] };
const stamp: ProbeStepConfig = { method: 'tools/call', name: 'stamp', args: {}, volatile: ['structuredContent.at'] };
const out = (text: string, extra: Record<string, unknown> = {}) => ({ content: [{ type: 'text', text }], ...extra });

describe('spot checks: judged with the demonstration’s rules', () => {
  it('runs only the probe steps inside the scope, with the canary substituted', () => {
    assert.deepEqual(spotSteps([echo, stamp], new Set(['tools/call echo'])), [echo]);
    assert.deepEqual(spotParams(echo, 'lgcanaryX'), { name: 'echo', arguments: { text: 'lgcanaryX' } });
    assert.deepEqual(spotParams({ method: 'resources/read', name: 'demo://{{canary}}', args: {}, volatile: [] }, 'c1'), {
      uri: 'demo://c1',
    });
  });

  it('the same output under another canary is no difference', () => {
    const base = spotBaseline([echo], 'c0', 'c1', [out('Echo: c0')], [out('Echo: c1')]);
    assert.deepEqual(judgeSpot(base, [echo], 'c2', [out('Echo: c2')]), []);
  });

  it('state shown in the output is a difference, with its path', () => {
    const base = spotBaseline([echo], 'c0', 'c1', [out('Echo: c0')], [out('Echo: c1')]);
    assert.deepEqual(judgeSpot(base, [echo], 'c2', [out('Echo: c2 (17 notes so far)')]), [
      { request: 'tools/call echo', moved: ['content[0].text'] },
    ]);
  });

  it('leaves that differ between the two fresh runs, and declared volatile paths, are noise', () => {
    const base = spotBaseline(
      [stamp],
      'c0',
      'c1',
      [out('pid 11', { structuredContent: { at: 1 } })],
      [out('pid 12', { structuredContent: { at: 2 } })],
    );
    assert.deepEqual(judgeSpot(base, [stamp], 'c2', [out('pid 99', { structuredContent: { at: 3 } })]), []);
    assert.deepEqual(judgeSpot(base, [stamp], 'c2', [out('pid 99', { structuredContent: { at: 3, extra: true } })]), [
      { request: 'tools/call stamp', moved: ['structuredContent.extra'] },
    ]);
  });

  it('an error, or a step whose baseline errored, is not judged (an error is not evidence)', () => {
    const base = spotBaseline([echo, stamp], 'c0', 'c1', [out('Echo: c0'), { error: 'x' }], [out('Echo: c1'), out('ok')]);
    assert.deepEqual(judgeSpot(base, [echo, stamp], 'c2', [{ error: 'timeout' }, out('anything')]), []);
  });
});
