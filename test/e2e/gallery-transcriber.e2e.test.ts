// The gallery (`/` of `parley start`) as shipped: its <audio-transcriber> names no model, so the client asks
// for its default, and the demo relay's policy must allow it. A visitor picks a WAV file and reads its words.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, startParley, type ParleyStart } from './harness/parley-start.js';

let parley: ParleyStart;

beforeAll(async () => {
  parley = await startParley();
}, 90_000);

afterAll(async () => {
  await parley?.close();
});

describe('the gallery transcriber, as shipped', () => {
  it('turns a WAV file into text, with the model the element asks for by default', async () => {
    const page = await parley.browser.newPage();
    const answers: number[] = [];
    page.on('response', (response) => {
      if (new URL(response.url()).pathname === '/api/v1/audio/transcriptions') answers.push(response.status());
    });
    const failures: unknown[] = [];
    await page.goto(parley.url + '/');
    const transcriber = page.locator('audio-transcriber');
    // No model on the page: the client sends its default (before the demo policy listed it, the relay answered 403).
    expect(await transcriber.getAttribute('model'), 'the page names no model').toBe(null);
    expect(await transcriber.evaluate((el) => (el as HTMLElement & { model: string }).model)).toBe('');
    await transcriber.evaluate((el) => el.addEventListener('parley-transcription-error', (e) => ((window as unknown as { failures: unknown[] }).failures ??= []).push((e as CustomEvent).detail)));

    const chooser = page.waitForEvent('filechooser');
    await page.locator('audio-transcriber [part="drop-zone"]').click();
    await (await chooser).setFiles(join(ROOT, 'test/fixtures/transcription/fox.wav'));

    // The words, or the error (a refusal would say so at once).
    const words = page.locator('audio-transcriber [part="transcript"]', { hasText: 'lazy dog' });
    await words.or(page.locator('audio-transcriber [part="error"]')).waitFor({ timeout: 60_000 });
    expect(await page.locator('audio-transcriber [part="error"]').allTextContents()).toEqual([]);
    expect(await words.count()).toBe(1);
    failures.push(...await page.evaluate(() => (window as unknown as { failures?: unknown[] }).failures ?? []));
    expect(failures).toEqual([]);
    expect(answers).toEqual([200]);
    await page.close();
  }, 90_000);
});
