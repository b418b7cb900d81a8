import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { asShared, comparisonLaunch, dirPairs, shadowDir } from '../../src/host/comparison-launch.js';
import { stdioLaunchFor } from '../../src/host/launch.js';
import type { ServerConfig } from '../../src/policy/model.js';

const STATE = '/srv/lg/state';
const SHARED = `${STATE}/work/public/everything`;

const server = (env: Record<string, string> = {}, args: string[] = ['stdio']): ServerConfig =>
  ({
    name: 'everything',
    domain: 'public',
    transport: { kind: 'stdio', commandPath: '/usr/bin/node', args, env },
  }) as unknown as ServerConfig;

describe('a comparison process is launched as the shared child is', () => {
  it('runs in a shadow of the shared child’s directory: same last components, under scratch/<tag>', () => {
    assert.equal(shadowDir(STATE, SHARED, 'spot-check'), `${STATE}/scratch/spot-check/work/public/everything`);
    assert.notEqual(shadowDir(STATE, SHARED, 'spot-check'), shadowDir(STATE, SHARED, 'tripwire-replay'));
    // A directory outside the state dir (never made by lanegate) still gets a shadow inside it.
    assert.equal(shadowDir(STATE, '/elsewhere/x', 't'), `${STATE}/scratch/t/x`);
  });

  it('same command, args and env as the shared child; only what names its directory names the shadow', () => {
    const shared = stdioLaunchFor(
      server({ MARK: 'kept' }),
      undefined,
      { PATH: '/bin', LANG: 'C', SECRET_AMBIENT: 'no' },
      new Map([['TOKEN', 't0k']]),
      STATE,
    );
    const dir = shadowDir(STATE, shared.cwd, 'spot-check');
    const l = comparisonLaunch(shared, dir);
    assert.equal(l.commandPath, shared.commandPath);
    assert.deepEqual(l.args, shared.args);
    assert.equal(l.cwd, dir);
    assert.deepEqual(l.env, { ...shared.env, HOME: dir });
    assert.deepEqual(Object.keys(l.env).sort(), ['HOME', 'LANG', 'MARK', 'PATH', 'TOKEN']);
  });

  it('a HOME (or a path) the policy set itself is kept as the shared child has it', () => {
    const shared = stdioLaunchFor(
      server({ HOME: '/srv/home', DATA: `${SHARED}/data` }, ['stdio', SHARED]),
      undefined,
      {},
      new Map(),
      STATE,
    );
    const dir = shadowDir(STATE, shared.cwd, 'r');
    const l = comparisonLaunch(shared, dir);
    assert.equal(l.env.HOME, '/srv/home');
    assert.equal(l.env.DATA, `${dir}/data`, 'a path under the shared child’s directory moves with it');
    assert.deepEqual(l.args, ['stdio', dir]);
  });

  it('its answers read as if it ran where the shared child runs: strings and keys, the directory and paths under it', () => {
    const dir = shadowDir(STATE, SHARED, 'spot-check');
    const pairs = dirPairs(STATE, dir, SHARED);
    const answer = {
      content: [{ type: 'text', text: JSON.stringify({ HOME: dir, PATH: '/bin' }) }],
      files: { [`${dir}/a.txt`]: `file://${dir}/a.txt`, other: `${STATE}/scratch/spot-check/elsewhere` },
    };
    assert.deepEqual(asShared(answer, pairs), {
      content: [{ type: 'text', text: JSON.stringify({ HOME: SHARED, PATH: '/bin' }) }],
      files: { [`${SHARED}/a.txt`]: `file://${SHARED}/a.txt`, other: `${STATE}/scratch/spot-check/elsewhere` },
    });
    // Nothing else is touched: numbers, other text, a neighbour's directory.
    assert.deepEqual(asShared([1, null, true, 'plain'], pairs), [1, null, true, 'plain']);
  });

  it('a state directory reached through a link: the resolved form (process.cwd()) is mapped too', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'lanegate-cmp-'));
    mkdirSync(path.join(root, 'real'));
    symlinkSync(path.join(root, 'real'), path.join(root, 'link'));
    const state = path.join(root, 'link');
    const shared = path.join(state, 'work', 'public', 's');
    const dir = shadowDir(state, shared, 'spot-check');
    const pairs = dirPairs(state, dir, shared);
    const resolved = path.join(root, 'real', 'scratch', 'spot-check', 'work', 'public', 's');
    assert.deepEqual(
      asShared(`home=${dir} cwd=${resolved}`, pairs),
      `home=${shared} cwd=${path.join(root, 'real', 'work', 'public', 's')}`,
    );
    assert.equal(dirPairs(path.join(root, 'real'), dir, shared).length, 1, 'no link, one pair');
    rmSync(root, { recursive: true, force: true });
  });
});
