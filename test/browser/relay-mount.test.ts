// The dev server hosts the real relay (in front of the local platform) at /api: SSE must stream through it.
import { expect } from '@open-wc/testing';

describe('relay mounted in the test server', () => {
  it('streams a conversation: the first delta arrives before the reply ends, the rest after it', async () => {
    const fixtures = await (await fetch('/api-test/fixtures')).json();
    const session = await fetch('/api/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(session.status).to.equal(200);
    const { token } = await session.json();
    const res = await fetch('/api/v1/conversations', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, accept: 'text/event-stream' },
      body: JSON.stringify({ model: fixtures.model, inputs: 'Show me some markdown with a table and code', stream: true }),
    });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.contain('text/event-stream');
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    // By order, not by clock: the platform paces its tokens, so a relay that passes bytes on as they come
    // delivers the first delta in an earlier read than the end, with more deltas in reads after it.
    const reads: string[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      reads.push(decoder.decode(value, { stream: true }));
    }
    const text = reads.join('');
    expect(text).to.contain('conversation.response.done');
    const firstDeltaRead = reads.findIndex((r) => r.includes('message.output.delta'));
    const doneRead = reads.findIndex((r) => r.includes('conversation.response.done'));
    const deltasAfter = reads.slice(firstDeltaRead + 1).join('').split('event: message.output.delta').length - 1;
    const deltas = text.split('event: message.output.delta').length - 1;
    expect(firstDeltaRead, 'the first delta came before the end').to.be.below(doneRead);
    expect(deltasAfter, 'most deltas came in later reads').to.be.greaterThan(deltas / 2);
  });
});
