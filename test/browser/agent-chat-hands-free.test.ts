// <agent-chat> hands-free turns against the REAL relay, local platform and Chromium's fake microphone
// (it says "The quick brown fox jumps over the lazy dog." then 2.5 s of silence, looped): listen, send,
// the reply is spoken, listen again; barge-in by the looping microphone; typing turns it off.
import { expect, html, oneEvent, waitUntil } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import type { AgentChat } from '../../src/elements/agent-chat/agent-chat.js';
import {
  HEARD, RELAY, VERBATIM, chat, handsFreeButton, input, harness, mic, prepareVoiceChat, status, userMessages,
} from './helpers/voice-chat.js';

let model = '';
const busy = (el: AgentChat) => harness(el).busy;

before(async function () {
  this.timeout(60_000);
  model = await prepareVoiceChat();
});

describe('<agent-chat> hands-free (real microphone path)', function () {
  this.timeout(50_000);

  it('hands-free: the utterance is sent and answered, the reply is spoken, then it listens again until turned off', async () => {
    const el = await chat(html`<agent-chat relay-url=${RELAY} model=${model} resume="none" .voiceOptions=${VERBATIM} voice-input></agent-chat>`);
    const changes: boolean[] = [];
    el.addEventListener('parley-hands-free-changed', (e) => changes.push(e.detail.on));
    const sent = oneEvent(el, 'parley-message-sent');
    const spoken = oneEvent(el, 'parley-speech-first-audio');
    handsFreeButton(el).click();
    await el.updateComplete;
    expect(el.handsFree).to.equal(true);
    expect(el.hasAttribute('hands-free')).to.equal(true);
    expect(handsFreeButton(el).getAttribute('aria-pressed')).to.equal('true');
    await waitUntil(() => status(el) === 'Listening…', 'listening', { timeout: 5000 });

    expect((await sent).detail.text).to.match(HEARD);
    await waitUntil(() => status(el) === 'Thinking…' || status(el).startsWith('Speaking'), 'thinking', { timeout: 5000 });
    await spoken;
    await waitUntil(() => status(el) === 'Speaking… (talk to interrupt)', 'speaking', { timeout: 5000 });
    expect(harness(el).speaker!.playback.scheduler.active).to.equal(true);
    // The reply ends (read to the end, or talked over by the looping microphone): listening again.
    await waitUntil(() => status(el) === 'Listening…', 'listening again', { timeout: 20_000 });
    expect(mic(el).getAttribute('aria-pressed')).to.equal('true');
    expect(userMessages(el)[0]).to.match(HEARD);

    handsFreeButton(el).click();
    await el.updateComplete;
    expect(el.hasAttribute('hands-free')).to.equal(false);
    expect(status(el)).to.equal('');
    expect(changes).to.deep.equal([true, false]);
    if (busy(el)) el.stop();
    await waitUntil(() => !busy(el), 'turn ended');
  });

  it('hands-free barge-in: the looping microphone talking over the reply stops its playback at once, and its words are the next turn', async () => {
    const el = await chat(html`<agent-chat relay-url=${RELAY} model=${model} resume="none" .voiceOptions=${VERBATIM} voice-input hands-free></agent-chat>`);
    await oneEvent(el, 'parley-speech-first-audio');
    const speaker = harness(el).speaker!;
    const playback = speaker.playback;
    // Every stop of the reply speaker, with what was playing then: a barge-in stops it mid-reply, while a
    // reply read to its end stops by itself (its audio finished, no stop()).
    const stops: Array<{ speaking: string | null; playing: boolean }> = [];
    const stop = speaker.stop;
    speaker.stop = function (this: typeof speaker) {
      stops.push({ speaking: this.speakingId, playing: this.playback.scheduler.active });
      return stop.call(this);
    };
    await waitUntil(() => status(el) === 'Speaking… (talk to interrupt)', 'speaking', { timeout: 5000 });
    // The reply is about 60 words (well over 10 s of speech); the fake microphone says its sentence again
    // within 5.5 s of any moment, so it talks over the reply long before the reply could end.
    const nextTurn = oneEvent(el, 'parley-message-sent');
    await waitUntil(() => status(el) === 'Listening…', 'barge-in', { timeout: 20_000 });
    expect(stops.find((s) => s.speaking !== null), 'the reply was stopped while it was being spoken, its audio still playing')
      .to.deep.include({ playing: true });
    expect(playback.scheduler.active).to.equal(false);
    expect(harness(el).speaker!.speakingId).to.equal(null);
    const played = playback.played;
    await new Promise((r) => setTimeout(r, 300));
    expect(playback.played, 'no more audio after the barge-in').to.equal(played);
    expect((await nextTurn).detail.text).to.match(HEARD);
    expect(userMessages(el).length).to.equal(2);
    el.handsFree = false;
    await el.updateComplete;
    if (busy(el)) el.stop();
    await waitUntil(() => !busy(el), 'turn ended');
  });

  it('typing in the message box turns hands-free off and keeps the text', async () => {
    const el = await chat(html`<agent-chat relay-url=${RELAY} model=${model} resume="none" .voiceOptions=${VERBATIM} voice-input></agent-chat>`);
    handsFreeButton(el).click();
    await waitUntil(() => status(el) === 'Listening…', 'listening', { timeout: 5000 });
    const off = oneEvent(el, 'parley-hands-free-changed');
    input(el).focus();
    await sendKeys({ type: 'x' });
    expect((await off).detail.on).to.equal(false);
    await el.updateComplete;
    expect(handsFreeButton(el).getAttribute('aria-pressed')).to.equal('false');
    expect(mic(el).getAttribute('aria-pressed')).to.equal('false');
    expect(input(el).value.endsWith('x')).to.equal(true);
    // No microphone keeps writing into the box.
    const value = input(el).value;
    await new Promise((r) => setTimeout(r, 1500));
    expect(input(el).value).to.equal(value);
  });

});
