// Dev-server routes for the browser tests: `/api-test/probe/*` answers a 1×1 PNG and records the hit;
// `GET /api-test/hits` lists the hits, `DELETE /api-test/hits` clears them.
const PNG_1X1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);

export function probeMiddleware() {
  /** @type {Array<{ path: string, query: string }>} */
  const hits = [];
  return async function probe(ctx, next) {
    if (ctx.path.startsWith('/api-test/probe/')) {
      hits.push({ path: ctx.path, query: ctx.querystring });
      ctx.set('cache-control', 'no-store');
      ctx.type = 'image/png';
      ctx.body = PNG_1X1;
      return;
    }
    if (ctx.path === '/api-test/hits') {
      if (ctx.method === 'DELETE') hits.length = 0;
      ctx.set('cache-control', 'no-store');
      ctx.body = ctx.method === 'DELETE' ? { ok: true } : hits;
      return;
    }
    await next();
  };
}
