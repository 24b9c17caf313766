/**
 * The browser's view of the network for Node tests: `navigator.onLine` and `online` events on the global,
 * installed before each test of the file that calls {@link browserNetwork} and removed after it.
 */
import { afterEach, beforeEach } from 'vitest';

export function browserNetwork() {
  const events = new EventTarget();
  const navigator = { onLine: true };
  const g = globalThis as Record<string, unknown>;
  beforeEach(() => {
    navigator.onLine = true;
    g.navigator = navigator;
    g.addEventListener = events.addEventListener.bind(events);
    g.removeEventListener = events.removeEventListener.bind(events);
  });
  afterEach(() => {
    delete g.navigator;
    delete g.addEventListener;
    delete g.removeEventListener;
  });
  return {
    navigator,
    /** The browser says it is offline (no event: browsers send `offline`, which nothing here listens to). */
    offline: () => {
      navigator.onLine = false;
    },
    /** The browser is back online and says so. */
    online: () => {
      navigator.onLine = true;
      events.dispatchEvent(new Event('online'));
    },
    /** An `online` event without a change of `navigator.onLine`. */
    onlineEvent: () => events.dispatchEvent(new Event('online')),
  };
}
