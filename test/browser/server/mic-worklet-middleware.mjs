// Dev-server route for the browser tests: the microphone's worklet module beside the capture's source
// (`/src/audio/capture/parley-mic-worklet.js`), as the build ships it beside the bundles, so the suites load
// it the way pages do (the capture falls back to a blob: URL only where the file is missing). Its text comes
// from the tsc build (scripts/mic-worklet.mjs): `npm run build` first, as npm test does.
import { micWorklet } from '../../../scripts/mic-worklet.mjs';

export function micWorkletMiddleware() {
  let worklet;
  return async function micWorkletRoute(ctx, next) {
    if (ctx.path.startsWith('/src/audio/capture/') && ctx.path.endsWith('.js')) {
      worklet ??= await micWorklet();
      if (ctx.path === `/src/audio/capture/${worklet.file}`) {
        ctx.type = 'text/javascript';
        ctx.body = worklet.source;
        return;
      }
    }
    await next();
  };
}
