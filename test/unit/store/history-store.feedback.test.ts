import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { HistoryStore } from '../../../src/store/history-store.js';

let store: HistoryStore | null = null;
afterEach(async () => { await store?.close(); store = null; });

describe('HistoryStore feedback (the visitor\'s ratings of replies)', () => {
  it('keeps ratings per conversation across a reopen, replaces and forgets them', async () => {
    const name = `feedback-${Math.random()}`;
    store = await HistoryStore.open({ name });
    await store.setFeedback('conv_a', 'msg_1', { rating: 'up' });
    await store.setFeedback('conv_a', 'msg_2', { rating: 'down', comment: 'Wrong lamp.' });
    await store.setFeedback('conv_ab', 'msg_9', { rating: 'up' });
    await store.close();

    store = await HistoryStore.open({ name });
    expect(await store.getFeedback('conv_a')).toEqual({ msg_1: { rating: 'up' }, msg_2: { rating: 'down', comment: 'Wrong lamp.' } });
    expect(await store.getFeedback('conv_ab')).toEqual({ msg_9: { rating: 'up' } });
    await store.setFeedback('conv_a', 'msg_1', { rating: 'down' });
    await store.setFeedback('conv_a', 'msg_2', null);
    expect(await store.getFeedback('conv_a')).toEqual({ msg_1: { rating: 'down' } });
    expect(await store.getFeedback('conv_none')).toEqual({});
  });

  it('deleting a conversation forgets its ratings, not those of others', async () => {
    store = await HistoryStore.open({ name: `feedback-${Math.random()}` });
    await store.putConversation({ id: 'conv_a', title: 'A', agentId: null, model: 'm', createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z' });
    await store.setFeedback('conv_a', 'msg_1', { rating: 'up' });
    await store.setFeedback('conv_b', 'msg_2', { rating: 'up' });
    await store.deleteConversation('conv_a');
    expect(await store.getFeedback('conv_a')).toEqual({});
    expect(await store.getFeedback('conv_b')).toEqual({ msg_2: { rating: 'up' } });
  });
});
