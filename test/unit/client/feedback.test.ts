import { describe, expect, test } from 'vitest';
import { ParleyClient } from '../../../src/client/client.js';
import { RelaySession } from '../../../src/client/session.js';
import { PlatformError } from '../../../src/client/errors.js';
import { json, scriptedFetch } from './helpers.js';

const session = (features?: string[]) => json({
  token: 't1', expires_at: new Date(Date.now() + 600_000).toISOString(), session_id: 'ses_1', resume_token: 'rs_1', ...(features ? { features } : {}),
});

describe('client.feedback', () => {
  test('available() is what the relay\'s session answer lists; send() posts the rating to the conversation\'s feedback route', async () => {
    const script = scriptedFetch([session(['feedback']), new Response(null, { status: 204 })]);
    const relay = new RelaySession({ relayUrl: 'https://site.test/api', fetch: script.fetch });
    const client = new ParleyClient({ baseUrl: 'https://site.test/api', fetch: script.fetch, session: relay });
    expect(await client.feedback.available()).toBe(true);
    expect(relay.features).toEqual(['feedback']);
    await client.feedback.send('conv_1', { message_id: 'msg_1', rating: 'down', comment: 'No.' });
    expect(script.calls[1]).toMatchObject({
      method: 'POST', url: 'https://site.test/api/v1/conversations/conv_1/feedback', body: { message_id: 'msg_1', rating: 'down', comment: 'No.' },
      headers: { authorization: 'Bearer t1' },
    });
  });

  test('not available from a relay that does not list it, nor without a relay session; a refusal is a PlatformError', async () => {
    const script = scriptedFetch([session(), json({ object: 'error', message: 'Conversation not found', type: 'invalid_request_error', param: null, code: 'not_found' }, 404)]);
    const client = new ParleyClient({ baseUrl: 'https://site.test/api', fetch: script.fetch, session: new RelaySession({ relayUrl: 'https://site.test/api', fetch: script.fetch }) });
    expect(await client.feedback.available()).toBe(false);
    await expect(client.feedback.send('conv_x', { message_id: 'msg_1', rating: 'up' })).rejects.toBeInstanceOf(PlatformError);
    expect(await new ParleyClient({ baseUrl: 'https://site.test/api', getToken: async () => 'own' }).feedback.available()).toBe(false);
  });
});
