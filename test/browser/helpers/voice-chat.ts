// Shared setup of the <agent-chat> voice tests (agent-chat-voice, agent-chat-hands-free): the relay, what the
// fake microphone is heard saying, capture options that keep its file as it is, shadow-DOM accessors, and
// the element's harness (agent-chat-harness.ts) for its session and reply speaker.
import { fixture, waitUntil } from '@open-wc/testing';
import type { html } from '@open-wc/testing';
import '../../../src/elements/agent-chat/define.js';
import type { AgentChat } from '../../../src/elements/agent-chat/agent-chat.js';
import { harness } from './agent-chat-harness.js';

export const RELAY = '/api';
/** Key words of the fake microphone's sentence as pocketsphinx hears it. */
export const HEARD = /\b(fox|lazy|dog)\b/i;
/** The fake microphone's file as it is (the browser's voice processing garbles synthetic speech). */
export const VERBATIM = { echoCancellation: false, noiseSuppression: false, autoGainControl: false };

export { harness };
export const q = <T extends HTMLElement = HTMLElement>(el: AgentChat, selector: string) => el.shadowRoot!.querySelector<T>(selector);
export const mic = (el: AgentChat) => q<HTMLButtonElement>(el, '[part~="mic-button"]')!;
export const handsFreeButton = (el: AgentChat) => q<HTMLButtonElement>(el, '[part~="hands-free-button"]')!;
export const input = (el: AgentChat) => q<HTMLTextAreaElement>(el, '[part~="input"]')!;
export const status = (el: AgentChat) => q(el, '[part~="voice-status"]')!.textContent!.trim();
export const userMessages = (el: AgentChat) =>
  [...el.shadowRoot!.querySelectorAll('[part~="message-user"] [part~="bubble"]')].map((b) => b.textContent!.trim());

/** Renders the element and waits for its chat session. */
export async function chat(template: ReturnType<typeof html>): Promise<AgentChat> {
  const el = await fixture<AgentChat>(template);
  await waitUntil(() => harness(el).session, 'session created', { timeout: 5000 });
  await el.updateComplete;
  return el;
}

/** For a `before` hook (allow it 60 s): the test platform's chat model, with the lazily loaded voice code compiled. */
export async function prepareVoiceChat(): Promise<string> {
  const { model } = (await (await fetch('/api-test/fixtures')).json()) as { model: string };
  // The dev server compiles the lazily loaded voice code on first request (seconds on a busy machine): do it once here.
  await Promise.all([import('../../../src/elements/agent-chat/voice-in.js'), import('../../../src/audio/reply-speaker.js')]);
  return model;
}
