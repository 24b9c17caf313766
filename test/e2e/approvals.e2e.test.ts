// Issue 24, item 8 as a visitor meets it on `parley start`: a page tool marked for consent asks first and
// a Deny is respected; a tool the platform runs (the demo's MCP connector) shows what it is doing.
// Item 6 too: the shop agent's own starters (its metadata.starters) on an empty chat.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startParley, type ParleyStart } from './harness/parley-start.js';

let parley: ParleyStart;

beforeAll(async () => {
  parley = await startParley();
}, 90_000);

afterAll(async () => {
  await parley?.close();
});

async function send(page: Page, text: string) {
  const input = page.locator('agent-chat [part="input"]');
  await input.fill(text);
  await input.press('Enter');
}

async function openShop(): Promise<Page> {
  const page = await parley.browser.newPage();
  await page.goto(parley.url + '/shop.html');
  await page.locator('agent-chat [part~="launcher"]').click();
  return page;
}

describe('tools that ask first, and tools at work (parley start)', () => {
  it('the shop agent\'s starters are buttons on the empty chat; Enter on one sends it', async () => {
    const page = await openShop();
    const starters = page.locator('agent-chat [part~="starter"]');
    await starters.first().waitFor({ timeout: 30_000 });
    expect(await starters.allTextContents()).toEqual(['What is the status of order 1042?', 'Please cancel order 1043', 'Which lamps do you sell?']);
    await starters.first().focus();
    await page.keyboard.press('Enter');
    await page.locator('agent-chat [part~="message-user"]', { hasText: 'What is the status of order 1042?' }).waitFor({ timeout: 30_000 });
    await page.locator('agent-chat [part~="message-assistant"]', { hasText: 'PostNord' }).waitFor({ timeout: 60_000 });
    await expect(page.locator('agent-chat [part~="starters"]').count()).resolves.toBe(0);
    await page.close();
  }, 120_000);

  it('cancel_order asks the visitor first; Deny is respected: the tool does not run and the reply says it was declined', async () => {
    const page = await openShop();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await send(page, 'Please cancel order 1043');
    const card = page.locator('agent-chat [part~="tool-approval"]');
    await card.waitFor({ timeout: 60_000 });
    expect(await card.textContent()).toContain('Allow cancel_order to run?');
    expect(await card.locator('pre').textContent()).toContain('1043');
    // Asked, not run: no result yet, no reply.
    await expect(page.locator('agent-chat [part~="message-assistant"]').count()).resolves.toBe(0);
    // By keyboard: focus moved to the card; Tab to the arguments, Allow, Deny; Enter denies.
    const focusedPart = () => page.evaluate(() => document.querySelector('agent-chat')!.shadowRoot!.activeElement?.getAttribute('part') ?? null);
    await expect(focusedPart()).resolves.toBe('tool-approval');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await expect(focusedPart()).resolves.toBe('deny-button');
    await page.keyboard.press('Enter');
    const reply = page.locator('agent-chat [part~="message-assistant"]');
    // The reply is done when its regenerate button shows.
    await page.locator('agent-chat [part~="regenerate-button"]').waitFor({ timeout: 60_000 });
    await expect(card.count()).resolves.toBe(0);
    const text = await reply.first().textContent();
    expect(text).toContain('cancel_order');
    expect(text).toContain('declined');
    expect(text).toContain('did not run');
    // The call's recorded result is the decline.
    expect(await page.locator('agent-chat [part~="tool-call"]').first().textContent()).toContain('"declined": true');
    // The order was not cancelled: the page's order status tool still reports it being packed.
    await send(page, 'What is the status of order 1043?');
    await page.locator('agent-chat [part~="message-assistant"]', { hasText: 'being packed' }).waitFor({ timeout: 60_000 });
    expect(await page.locator('agent-chat').textContent()).not.toContain('cancelled');
    expect(errors).toEqual([]);
    await page.close();
  }, 180_000);

  it('a reload while cancel_order waits asks again; Allow runs it and the reply reports it', async () => {
    const page = await openShop();
    await send(page, 'Please cancel order 1042');
    const card = page.locator('agent-chat [part~="tool-approval"]');
    await card.waitFor({ timeout: 60_000 });
    await page.reload();
    await page.locator('agent-chat [part~="launcher"]').click();
    // The conversation opens again (resume="latest") and the call asks again.
    await card.waitFor({ timeout: 60_000 });
    expect(await card.textContent()).toContain('Allow cancel_order to run?');
    await page.locator('agent-chat [part~="allow-button"]').click();
    await page.locator('agent-chat [part~="message-assistant"]', { hasText: 'cancelled' }).waitFor({ timeout: 60_000 });
    await expect(card.count()).resolves.toBe(0);
    await page.close();
  }, 180_000);

  it('a tool the platform runs over MCP shows its progress line while it runs, gone once done', async () => {
    const page = await parley.browser.newPage();
    await page.goto(parley.url + '/orders.html');
    await page.locator('agent-chat [part~="tool-progress"]').waitFor({ state: 'attached', timeout: 30_000 });
    // Every text the status line shows, as it shows it.
    await page.evaluate(() => {
      const root = document.querySelector('agent-chat')!.shadowRoot!;
      const seen: string[] = [];
      (window as unknown as { progressSeen: string[] }).progressSeen = seen;
      new MutationObserver(() => {
        const line = root.querySelector('[part~="tool-progress"]');
        const text = line?.textContent?.trim() ?? '';
        if (text && seen.at(-1) !== text) seen.push(`${line!.getAttribute('role')}: ${text}`);
      }).observe(root, { subtree: true, childList: true, characterData: true });
    });
    await send(page, 'What is the status of order 1042?');
    await page.locator('agent-chat [part~="message-assistant"]', { hasText: 'CE-88120042' }).waitFor({ timeout: 60_000 });
    const seen = await page.evaluate(() => (window as unknown as { progressSeen: string[] }).progressSeen);
    expect(seen).toContain('status: Running get_order_status…');
    expect((await page.locator('agent-chat [part~="tool-progress"]').textContent())!.trim()).toBe('');
    await page.close();
  }, 120_000);
});
