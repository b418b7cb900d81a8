// A recording loopback HTTP proxy placed between the conformance suite and the server under test.
//
// The suite has no option for request headers, and lanegate requires `Authorization: Bearer
// <lane token>`; this proxy adds it. It is otherwise transparent: method, path, headers and body
// pass through, responses (JSON or SSE) are streamed back unbuffered. `Host` / `Origin` naming the
// proxy itself are rewritten to name the target (so the gateway's DNS-rebinding guard sees what a
// direct client would send); any other Host/Origin (the suite's `evil.example.com` probe) passes
// verbatim.
//
// With `prefix`, it also undoes lanegate's naming so the suite's fixed names resolve: request
// names get `<prefix>_`, URIs get `<prefix>+` (body and the Mcp-Name header), and responses have
// them stripped. That mode measures "would this scenario pass if lanegate served the server
// unprefixed", separating prefix-only failures from gateway bugs. It rewrites only the JSON-RPC
// fields that carry names/URIs.
//
// Every exchange is recorded (request/response headers, bodies as seen on the suite's side of
// the proxy, and in prefix mode the rewritten upstream request too), tagged with `proxy.tag`.
import http from 'node:http';

const HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);
const CAP = 256 * 1024;

const addPrefix = (msg, prefix) => {
  if (!msg || typeof msg !== 'object' || typeof msg.method !== 'string' || !msg.params || typeof msg.params !== 'object') return;
  const p = msg.params;
  const name = (n) => (typeof n === 'string' && !n.startsWith(`${prefix}_`) ? `${prefix}_${n}` : n);
  const uri = (u) => (typeof u === 'string' && !u.startsWith(`${prefix}+`) ? `${prefix}+${u}` : u);
  switch (msg.method) {
    case 'tools/call':
    case 'prompts/get':
      p.name = name(p.name);
      break;
    case 'resources/read':
    case 'resources/subscribe':
    case 'resources/unsubscribe':
      p.uri = uri(p.uri);
      break;
    case 'completion/complete':
      if (p.ref?.type === 'ref/prompt') p.ref.name = name(p.ref.name);
      if (p.ref?.type === 'ref/resource') p.ref.uri = uri(p.ref.uri);
      break;
    default:
  }
};

const stripPrefix = (value, prefix, key) => {
  if (typeof value === 'string') {
    if (value.startsWith(`${prefix}+`)) return value.slice(prefix.length + 1);
    if (key === 'name' && value.startsWith(`${prefix}_`)) return value.slice(prefix.length + 1);
    return value;
  }
  if (Array.isArray(value)) return value.map((v) => stripPrefix(v, prefix, key));
  if (value && typeof value === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(value)) out[k] = stripPrefix(v, prefix, k);
    return out;
  }
  return value;
};

const rewriteJsonText = (text, fn) => {
  try {
    const parsed = JSON.parse(text);
    return JSON.stringify(Array.isArray(parsed) ? parsed.map(fn) : fn(parsed));
  } catch {
    return text;
  }
};

/**
 * @param {{ target: string, token?: string, prefix?: string, label: string }} opts
 * @returns {Promise<{ url: string, port: number, exchanges: object[], tag: string, take: (tag: string) => object[], close: () => Promise<void> }>}
 */
export const startProxy = async ({ target, token, prefix, label }) => {
  const t = new URL(target);
  const exchanges = [];
  const sockets = new Set();
  const proxy = { url: '', port: 0, exchanges, tag: '', label };
  let seq = 0;

  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const own = [`127.0.0.1:${proxy.port}`, `localhost:${proxy.port}`, `[::1]:${proxy.port}`];
      const headers = {};
      for (const [k, v] of Object.entries(req.headers)) if (!HOP.has(k)) headers[k] = v;
      if (own.includes(String(headers.host).toLowerCase()))
        headers.host = `${String(headers.host).split(':').slice(0, -1).join(':')}:${t.port}`;
      if (typeof headers.origin === 'string' && own.some((o) => headers.origin.toLowerCase() === `http://${o}`)) {
        headers.origin = `${headers.origin.split(':').slice(0, -1).join(':')}:${t.port}`;
      }
      if (token) headers.authorization = `Bearer ${token}`;
      let body = Buffer.concat(chunks);
      const clientBody = body.toString('utf8');
      let upstreamBody;
      if (prefix) {
        if (body.length > 0 && /json/i.test(String(headers['content-type'] ?? ''))) {
          upstreamBody = rewriteJsonText(clientBody, (m) => {
            addPrefix(m, prefix);
            return m;
          });
          body = Buffer.from(upstreamBody, 'utf8');
        }
        const mname = headers['mcp-name'];
        if (typeof mname === 'string' && mname.length > 0) {
          headers['mcp-name'] = mname.includes('://') ? `${prefix}+${mname}` : `${prefix}_${mname}`;
        }
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') headers['content-length'] = String(body.length);
      const ex = {
        seq: ++seq,
        tag: proxy.tag,
        at: new Date().toISOString(),
        request: { method: req.method, path: req.url, headers: { ...req.headers }, body: clientBody.slice(0, CAP) },
        ...(upstreamBody !== undefined && upstreamBody !== clientBody ? { upstreamRequestBody: upstreamBody.slice(0, CAP) } : {}),
        response: undefined,
      };
      if (token) ex.injected = { authorization: 'Bearer <lane token>' };
      if (headers.host !== req.headers.host) ex.injected = { ...ex.injected, host: headers.host };
      if (headers.origin !== req.headers.origin) ex.injected = { ...ex.injected, origin: headers.origin };
      exchanges.push(ex);
      const up = http.request({ host: t.hostname, port: t.port, method: req.method, path: req.url, headers, agent: false }, (ures) => {
        const rh = {};
        for (const [k, v] of Object.entries(ures.headers)) if (!HOP.has(k)) rh[k] = v;
        const ctype = String(ures.headers['content-type'] ?? '');
        let recorded = '';
        const record = (s) => {
          if (recorded.length < CAP) recorded += s.slice(0, CAP - recorded.length);
        };
        ex.response = { status: ures.statusCode, headers: { ...ures.headers }, body: '' };
        const finish = () => {
          ex.response.body = recorded;
          ex.response.endedAt = new Date().toISOString();
        };
        if (prefix && /application\/json/i.test(ctype)) {
          const rc = [];
          ures.on('data', (c) => rc.push(c));
          ures.on('end', () => {
            const raw = Buffer.concat(rc).toString('utf8');
            const out = rewriteJsonText(raw, (m) => stripPrefix(m, prefix, ''));
            delete rh['content-length'];
            res.writeHead(ures.statusCode ?? 502, { ...rh, 'content-length': Buffer.byteLength(out) });
            res.end(out);
            record(out);
            finish();
          });
          ures.on('error', () => res.destroy());
          return;
        }
        if (prefix && /text\/event-stream/i.test(ctype)) {
          delete rh['content-length'];
          res.writeHead(ures.statusCode ?? 502, rh);
          res.flushHeaders();
          let pending = '';
          const emit = (line) => {
            const m = /^data:\s?(.*)$/.exec(line);
            const out = m ? `data: ${rewriteJsonText(m[1], (x) => stripPrefix(x, prefix, ''))}` : line;
            res.write(`${out}\n`);
            record(`${out}\n`);
          };
          ures.setEncoding('utf8');
          ures.on('data', (c) => {
            pending += c;
            let i = pending.indexOf('\n');
            while (i >= 0) {
              emit(pending.slice(0, i).replace(/\r$/, ''));
              pending = pending.slice(i + 1);
              i = pending.indexOf('\n');
            }
          });
          ures.on('end', () => {
            if (pending) emit(pending);
            res.end();
            finish();
          });
          ures.on('error', () => res.destroy());
          return;
        }
        res.writeHead(ures.statusCode ?? 502, rh);
        res.flushHeaders();
        ures.on('data', (c) => {
          record(c.toString('utf8'));
          res.write(c);
        });
        ures.on('end', () => {
          res.end();
          finish();
        });
        ures.on('error', () => res.destroy());
      });
      up.on('error', (e) => {
        ex.response = { status: 502, error: e.message };
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`proxy: ${e.message}`);
      });
      res.on('close', () => {
        if (!up.destroyed) up.destroy();
        if (ex.response && !ex.response.endedAt) ex.response.clientClosedAt = new Date().toISOString();
      });
      up.end(body.length > 0 ? body : undefined);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  proxy.port = server.address().port;
  proxy.url = `http://127.0.0.1:${proxy.port}${t.pathname}`;
  proxy.take = (tag) => exchanges.filter((e) => e.tag === tag);
  proxy.close = () =>
    new Promise((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return proxy;
};
