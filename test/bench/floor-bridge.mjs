// The floor for a one-hop HTTP → stdio MCP bridge, written for lanegate's bench: node:http, one
// child over stdio, no auth, no sessions, nothing parsed but the id. A request body goes to the
// child as one line under a fresh numeric id; the reply line with that id comes back as
// application/json with the client's id put back. Notifications get 202, GET gets 405. What any
// Node gateway with one hop costs at least. Usage: node floor-bridge.mjs PORT -- CMD ARGS...
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';

const [portArg, sep, cmd, ...args] = process.argv.slice(2);
if (sep !== '--' || !cmd) {
  process.stderr.write('usage: node floor-bridge.mjs PORT -- CMD ARGS...\n');
  process.exit(2);
}
const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'inherit'] });
const waiting = new Map();
let next = 0;
let pending = '';
child.stdout.setEncoding('utf8');
child.stdout.on('data', (chunk) => {
  pending += chunk;
  for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
    const line = pending.slice(0, nl);
    pending = pending.slice(nl + 1);
    const m = /"id"\s*:\s*(\d+)/.exec(line);
    const entry = m ? waiting.get(Number(m[1])) : undefined;
    if (!entry) continue;
    waiting.delete(Number(m[1]));
    entry.res.writeHead(200, { 'content-type': 'application/json' }).end(line.replace(m[0], `"id":${entry.id}`));
  }
});
const server = createServer((req, res) => {
  if (req.method !== 'POST') return void res.writeHead(405).end();
  const parts = [];
  req.on('data', (c) => parts.push(c));
  req.on('end', () => {
    const body = Buffer.concat(parts).toString('utf8');
    const msg = JSON.parse(body);
    if (msg.id === undefined) {
      child.stdin.write(`${body}\n`);
      return void res.writeHead(202).end();
    }
    next += 1;
    waiting.set(next, { res, id: JSON.stringify(msg.id) });
    child.stdin.write(`${JSON.stringify({ ...msg, id: next })}\n`);
  });
});
server.listen(Number(portArg), '127.0.0.1', () => process.stdout.write(`listening ${server.address().port}\n`));
process.on('SIGTERM', () => {
  child.kill();
  process.exit(0);
});
