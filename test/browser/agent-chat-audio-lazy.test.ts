// <agent-chat>'s audio code is loaded by the first press that needs it (Read aloud, the microphone,
// Hands-free), never by focusing or typing in the chat; the press itself makes and starts a plain
// AudioContext (iOS lets audio start only inside a gesture) and the reply speaker plays into it once loaded.
// This file must import none of the audio modules before its first test has looked.
import { aTimeout, expect, html, oneEvent, waitUntil } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import { RELAY, chat, handsFreeButton, input, harness, q } from './helpers/voice-chat.js';
import { watchAudioContexts } from './helpers/audio-contexts.js';

const AUDIO_MODULES = /reply-speaker|\/voice-in\.|speech-playback|mic-capture|capture-worklet/;
const audioRequests = () => performance.getEntriesByType('resource').map((e) => e.name).filter((name) => AUDIO_MODULES.test(name));

let model = '';
before(async () => {
  model = (await (await fetch('/api-test/fixtures')).json()).model;
});

describe('<agent-chat> audio code, loaded on first use', function () {
  this.timeout(120_000);

  it('focusing, pressing and typing in the chat load no audio code and make no AudioContext', async () => {
    expect(audioRequests(), 'nothing loaded before the test').to.deep.equal([]);
    const contexts = watchAudioContexts();
    try {
      const el = await chat(html`<agent-chat relay-url=${RELAY} model=${model} resume="none" voice-input></agent-chat>`);
      const base = q(el, '[part~="base"]')!;
      base.dispatchEvent(new PointerEvent('pointerdown', { bubbles: true, composed: true }));
      input(el).focus();
      await sendKeys({ type: 'Hello' });
      await aTimeout(200); // a load, were one started, would have been requested by now
      expect(audioRequests()).to.deep.equal([]);
      expect(contexts.made).to.deep.equal([]);
      expect(harness(el).speaker).to.equal(null);
    } finally {
      contexts.restore();
    }
  });

  it('Read aloud makes and starts an AudioContext inside the click, and the speaker plays the reply into it', async () => {
    // The dev server serves the audio code as hundreds of modules (one chunk in the build): compiled here first.
    await import('../../src/audio/reply-speaker.js');
    const el = await chat(html`<agent-chat relay-url=${RELAY} model=${model} resume="none"></agent-chat>`);
    const finished = oneEvent(el, 'parley-reply-finished');
    input(el).focus();
    await sendKeys({ type: 'Hello there' });
    await sendKeys({ press: 'Enter' });
    await finished;
    await el.updateComplete;
    expect(harness(el).speaker, 'a chat that has not spoken has no speaker').to.equal(null);

    const contexts = watchAudioContexts();
    try {
      const first = oneEvent(el, 'parley-speech-first-audio');
      q<HTMLButtonElement>(el, '[part~="read-aloud-button"]')!.click();
      expect(contexts.made.length, 'made inside the click').to.equal(1);
      await first;
      const speaker = harness(el).speaker!;
      expect(speaker.playback.context as unknown).to.equal(contexts.made[0]);
      expect(speaker.playback.context.state).to.equal('running');
      expect(speaker.playback.scheduler.received).to.be.greaterThan(0);
      speaker.stop();
      el.remove();
      await waitUntil(() => contexts.made[0].state === 'closed', 'the context is closed with the element');
    } finally {
      contexts.restore();
    }
  });

  it('turning hands-free on makes an AudioContext inside the click; turning it off makes none', async () => {
    await import('../../src/elements/agent-chat/voice-in.js');
    const el = await chat(html`<agent-chat relay-url=${RELAY} model=${model} resume="none" voice-input></agent-chat>`);
    const contexts = watchAudioContexts();
    try {
      handsFreeButton(el).click();
      expect(contexts.made.length, 'made inside the click').to.equal(1);
      await el.updateComplete;
      await waitUntil(() => harness(el).speaker, 'the speaker loaded');
      expect(harness(el).speaker!.playback.context as unknown).to.equal(contexts.made[0]);
      handsFreeButton(el).click();
      await el.updateComplete;
      expect(el.handsFree).to.equal(false);
      el.remove();
    } finally {
      contexts.restore();
    }
  });
});
