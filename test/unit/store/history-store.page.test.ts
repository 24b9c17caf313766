// @vitest-environment happy-dom
import 'fake-indexeddb/auto';
import { expect, test, vi } from 'vitest';
import { HistoryStore } from '../../../src/store/history-store.js';

test('a page being hidden or left flushes pending writes at once', async () => {
  const store = await HistoryStore.open({ name: 'page-hide', writeIntervalMs: 60_000 });
  const puts = vi.spyOn(IDBObjectStore.prototype, 'put');
  store.putEntry('conv_a', { object: 'entry', type: 'message.input', id: 'msg_1', role: 'user', content: 'hi', created_at: '2026-01-01T00:00:00Z' });
  expect(puts).not.toHaveBeenCalled();
  window.dispatchEvent(new Event('pagehide'));
  await vi.waitFor(() => expect(puts).toHaveBeenCalledTimes(1));
  await store.close();
  // Closed stores stop listening.
  window.dispatchEvent(new Event('pagehide'));
});
