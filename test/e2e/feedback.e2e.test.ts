// A visitor rates a reply on `parley start`: a thumbs-down with a comment becomes a record of the configured
// feedback dataset on the local platform (read back through the platform's API), the page hears
// `parley-feedback`, and the rating is still shown after a reload. Copy copies the reply.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startParley, type ParleyStart } from './harness/parley-start.js';

let parley: ParleyStart;
let apiKey: string;
let datasetId: string;

beforeAll(async () => {
  parley = await startParley();
  apiKey = /API key\s+(\S+)/.exec(parley.banner)?.[1] ?? '';
  datasetId = /dataset "Chat feedback" (\S+)/.exec(parley.banner)?.[1] ?? '';
}, 90_000);

afterAll(async () => {
  await parley?.close();
});

interface DatasetRecord { payload: { messages: Array<{ role: string; content: unknown }> }; properties: Record<string, unknown> }

async function records(): Promise<DatasetRecord[]> {
  const res = await fetch(`${parley.url}/v1/observability/datasets/${datasetId}/records?page_size=100`, { headers: { authorization: `Bearer ${apiKey}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { records: { results: DatasetRecord[] } }).records.results;
}

describe('feedback on parley start', () => {
  it('names the feedback dataset in the banner', () => {
    expect(apiKey).not.toBe('');
    expect(datasetId).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('a thumbs-down with a comment becomes a record of the configured dataset', async () => {
    const context = await parley.browser.newContext();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: parley.url });
    const page = await context.newPage();
    await page.goto(parley.url + '/');
    await page.evaluate(() => {
      (window as unknown as { feedback: unknown[] }).feedback = [];
      document.querySelector('agent-chat')!.addEventListener('parley-feedback', (e) => (window as unknown as { feedback: unknown[] }).feedback.push((e as CustomEvent).detail));
    });
    const input = page.locator('agent-chat [part="input"]');
    await input.fill('Which lamp suits a reading corner?');
    await input.press('Enter');
    const down = page.locator('agent-chat [part~="feedback-down-button"]').last();
    await down.waitFor({ timeout: 60_000 });
    await page.locator('agent-chat [part="send-button"]').waitFor({ timeout: 60_000 });

    // Copy: the reply's markdown reaches the clipboard, and "Copied" is said.
    await page.locator('agent-chat [part="copy-button"]').last().click();
    await page.locator('agent-chat [part="copy-button"]', { hasText: 'Copied' }).waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    const replyText = await page.locator('agent-chat [part~="message-assistant"] [part="bubble"]').last().innerText();
    const words = copied.match(/\p{L}{4,}/gu) ?? [];
    expect(words.length).toBeGreaterThan(2);
    for (const word of words.slice(0, 5)) expect(replyText).toContain(word);

    const before = (await records()).length;
    await down.click();
    expect(await down.getAttribute('aria-pressed')).toBe('true');
    const comment = page.locator('agent-chat [part="feedback-comment"]');
    await expect.poll(() => comment.evaluate((el) => (el.getRootNode() as ShadowRoot).activeElement === el)).toBe(true);
    await comment.fill('It did not name a lamp.');
    await page.locator('agent-chat [part~="feedback-send-button"]').click();

    await expect.poll(async () => (await records()).length, { timeout: 20_000 }).toBe(before + 1);
    const record = (await records()).find((r) => r.properties.comment === 'It did not name a lamp.')!;
    expect(record.properties).toMatchObject({ rating: 'down', source: 'parley-relay' });
    expect(record.payload.messages[0]).toMatchObject({ role: 'user', content: 'Which lamp suits a reading corner?' });
    expect(record.payload.messages.at(-1)!.role).toBe('assistant');

    const events = await page.evaluate(() => (window as unknown as { feedback: Array<Record<string, unknown>> }).feedback);
    expect(events).toEqual([expect.objectContaining({ rating: 'down', comment: 'It did not name a lamp.', messageId: record.properties.message_id, conversationId: record.properties.conversation_id })]);

    // Kept across a reload.
    await page.reload();
    await expect.poll(() => page.locator('agent-chat [part~="feedback-down-button"]').last().getAttribute('aria-pressed'), { timeout: 30_000 }).toBe('true');
    expect(await page.locator('agent-chat [part~="feedback-up-button"]').last().getAttribute('aria-pressed')).toBe('false');
    await context.close();
  });
});
