import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Browser, chromium } from 'playwright-core';
import { EVERYTHING, FIXTURE, policyHead, type RunningGateway, startGateway } from '../helpers/gateway.js';
import { modernPost } from '../helpers/mcp.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const POLICY = `${policyHead()}
trustDomains:
  public: { kind: shared }
  alice: { kind: principal }
servers:
  everything:
    prefix: every
    domain: public
    stdio: { command: node, args: ["${EVERYTHING}", "stdio"] }
    probe: [{ tool: echo, args: { message: "{{canary}}" } }]
  poisoned: { prefix: poisoned, domain: public, stdio: { command: node, args: ["${FIXTURE}", "--poison"] } }
  mailbox: { prefix: mail, domain: alice, stdio: { command: node, args: ["${FIXTURE}"] } }
lanes:
  research: { servers: [everything, poisoned] }
  inbox: { servers: [everything, mailbox], catalog: search }
`;

// A developer without a browser skips this; CI (CI=true) installs one, and fails without it.
const skip = existsSync(CHROMIUM) || process.env.CI === 'true' ? false : `no browser at ${CHROMIUM}`;
describe('dashboard in a real headless browser', { skip }, () => {
  let gw: RunningGateway;
  let browser: Browser;
  before(async () => {
    gw = await startGateway(POLICY);
    // A lane uses the poisoned server once, so the guard has refused it before we look.
    await modernPost(gw.url, await gw.token('research'), 1, 'tools/list');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });
  after(async () => {
    await browser?.close();
    await gw?.stop();
  });

  it('a lane token never opens it; the operator token does; the page renders; measuring runs to the end', async () => {
    const origin = gw.url.replace(/\/mcp$/, '');
    const page = await browser.newPage({ viewport: { width: 1500, height: 1000 } });
    const first = await page.goto(`${origin}/dashboard`);
    assert.equal(first?.status(), 401);
    await page.fill('input[name=token]', await gw.token('research'));
    await page.click('button[type=submit]');
    assert.match(await page.content(), /not the operator token/);
    await page.fill('input[name=token]', gw.operatorToken);
    await page.click('button[type=submit]');
    await page.waitForSelector('#server-everything');
    const rows = await page.$$eval('tr[id^=server-]', (trs) => trs.map((t) => t.id));
    assert.deepEqual(rows.sort(), ['server-everything', 'server-mailbox', 'server-poisoned']);
    const poisoned = await page.textContent('#server-poisoned');
    assert.match(poisoned ?? '', /refused/);
    assert.match((await page.textContent('.refusal')) ?? '', /poisoned.*echo/s);
    assert.match((await page.textContent('#server-mailbox')) ?? '', /principal_domain/);
    assert.equal(await page.$eval('#fill', (e) => (e as HTMLElement).style.width), '0%', 'no bar before any measure has run');
    assert.match((await page.textContent('body')) ?? '', /No trust overrides/);
    await page.click('#measure');
    await page.waitForFunction(() => document.getElementById('fill')?.dataset.done === 'true', undefined, { timeout: 60_000 });
    assert.match((await page.textContent('#progress')) ?? '', /done: 2 of 2 measured/);
    await page.waitForLoadState('load');
    await page.waitForFunction(() => /demonstrated/.test(document.getElementById('server-everything')?.textContent ?? ''), undefined, {
      timeout: 15_000,
    });
    const shot = process.env.LANEGATE_SCREENSHOT;
    if (shot) {
      mkdirSync(path.dirname(shot), { recursive: true });
      await page.screenshot({ path: shot, fullPage: true });
    }
    const api = await page.evaluate(async () => (await fetch('/api/measure', { method: 'POST' })).status);
    assert.equal(api, 401, 'a browser POST without the CSRF header is refused');
  });

  it('labels domain kind and placement apart, shows each lane where lanes differ, and lists processes and hazards', async () => {
    // The pass the test before ran from the page (the same pass as /api/measure) demonstrated echo:
    // a restart places the server from its records (a second pass would only find the same again).
    await gw.stop();
    gw = await startGateway(readFileSync(gw.policyFile, 'utf8'), { dir: gw.dir });
    // research stays on the shared child (echo is demonstrated); inbox asks outside the scope and moves.
    const research = await gw.token('research');
    const inbox = await gw.token('inbox');
    await modernPost(gw.url, research, 1, 'tools/call', { name: 'every_echo', arguments: { message: 'hi' } });
    await modernPost(gw.url, inbox, 1, 'tools/call', {
      name: 'lanegate_call',
      arguments: { name: 'every_get-sum', arguments: { a: 1, b: 2 } },
    });
    const origin = gw.url.replace(/\/mcp$/, '');
    const page = await browser.newPage({ viewport: { width: 1500, height: 1000 } });
    await page.goto(`${origin}/dashboard`);
    await page.fill('input[name=token]', gw.operatorToken);
    await page.click('button[type=submit]');
    await page.waitForSelector('#server-everything');
    const domain = (await page.textContent('#server-everything td.domain')) ?? '';
    const placement = (await page.textContent('#server-everything td.placement')) ?? '';
    assert.match(domain, /public\s*domain kind: shared/);
    assert.match(placement, /^shared process/);
    assert.doesNotMatch(domain, /process/, 'the domain cell speaks of the domain only');
    const lanes = await page.$$eval('#server-everything .lane-placement', (ds) => ds.map((d) => d.textContent ?? ''));
    assert.deepEqual(lanes.sort(), ['lane inbox: dedicated (since it called tools/call get-sum)', 'lane research: shared']);
    assert.match((await page.textContent('#server-mailbox td.placement')) ?? '', /dedicated per lane/);
    const procs = await page.$$eval('#processes tr.process', (trs) =>
      trs.map((t) => Array.from(t.querySelectorAll('td')).map((d) => d.textContent ?? '')),
    );
    assert.equal(procs[0]?.[0], 'front');
    assert.equal(procs[0]?.[1], String(gw.pid));
    assert.ok(
      procs.some((r) => /everything/.test(r[0] ?? '') && /research/.test(r[3] ?? '') && /^\d+$/.test(r[1] ?? '') && /MB$/.test(r[2] ?? '')),
      JSON.stringify(procs),
    );
    assert.ok(
      procs.some((r) => /everything/.test(r[0] ?? '') && r[3] === 'inbox'),
      'the lane moved off has a child of its own',
    );
    assert.match((await page.textContent('body')) ?? '', /Hazards\s*(No hazard observed|server\s*hazard)/);
  });
});
