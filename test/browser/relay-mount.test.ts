// The dev server hosts the real relay (in front of the local platform) at /api: SSE must stream through it.
import { expect } from '@open-wc/testing';

describe('relay mounted in the test server', () => {
  it('streams a conversation: the first event arrives long before the reply ends', async () => {
    const fixtures = await (await fetch('/api-test/fixtures')).json();
    const session = await fetch('/api/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(session.status).to.equal(200);
    const { token } = await session.json();
    const started = performance.now();
    const res = await fetch('/api/v1/conversations', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, accept: 'text/event-stream' },
      body: JSON.stringify({ model: fixtures.model, inputs: 'Show me some markdown with a table and code', stream: true }),
    });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.contain('text/event-stream');
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    let firstDeltaAt = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      if (!firstDeltaAt && text.includes('message.output.delta')) firstDeltaAt = performance.now();
    }
    const ended = performance.now();
    expect(text).to.contain('conversation.response.done');
    expect(firstDeltaAt - started).to.be.lessThan((ended - started) / 2);
  });
});
