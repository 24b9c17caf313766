// The playground's pure parts: the controls it reads from custom-elements.json, and the embed code it writes
// (escaped, and with a relay command and config file the relay's own config parser reads as the same settings).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { describe, expect, it } from 'vitest';
import { elementsOf } from '../../../demo/playground/manifest.js';
import { cssValueProblem, embedCode, relayCommands, relayPolicy, styleRules } from '../../../demo/playground/embed-code.js';
import { relayCliOptions, resolveRelayConfig } from '../../../src/relay/config.js';

const ROOT = join(import.meta.dirname, '../../..');
const manifest = JSON.parse(readFileSync(join(ROOT, 'custom-elements.json'), 'utf8'));
const elements = elementsOf(manifest);
const chat = elements.find((e) => e.tag === 'agent-chat')!;
const config = { defaultModels: { transcription: 'voxtral-mini-latest', realtime: 'voxtral-mini-transcribe-realtime-2602', ocr: 'mistral-ocr-latest' } };

describe('playground controls from the manifest', () => {
  it('gives every attribute of the four elements a control, of the kind its type says', () => {
    expect(elements.map((e) => e.tag).sort()).toEqual(['agent-chat', 'audio-transcriber', 'doc-ocr-viewer', 'speech-player']);
    for (const mod of manifest.modules) {
      for (const d of mod.declarations ?? []) {
        if (!d.customElement) continue;
        const model = elements.find((e) => e.tag === d.tagName)!;
        for (const a of d.attributes ?? []) expect(model.settings.map((s) => s.attribute), `${d.tagName} ${a.name}`).toContain(a.name);
        expect(model.cssProperties.map((p) => p.name)).toEqual((d.cssProperties ?? []).map((p: { name: string }) => p.name));
      }
    }
    const kind = (name: string) => chat.settings.find((s) => s.name === name)?.kind;
    expect(kind('theme')).toBe('select');
    expect(chat.settings.find((s) => s.name === 'mode')!.options).toEqual(['inline', 'launcher']);
    expect(kind('speak-replies')).toBe('switch');
    expect(kind('max-attachments')).toBe('number');
    expect(kind('starters')).toBe('json');
    expect(kind('tools')).toBe('tools');
    expect(kind('strings')).toBe('json');
    expect(kind('session'), 'a live session object is not a setting').toBeUndefined();
    // Read-only properties are not settable.
    expect(elements.find((e) => e.tag === 'speech-player')!.settings.map((s) => s.name)).not.toContain('status');
  });
});

describe('the embed code', () => {
  it('escapes what the user typed: attribute values, script literals and CSS values', () => {
    const { html } = embedCode({
      model: chat, values: { heading: 'Help "desk" <b>&', starters: ['</script><script>alert(1)</script>'], agentId: 'ag_1' },
      css: { light: {}, dark: {} }, page: {}, scriptUrl: 'https://cdn.example/agent-chat.js', relayUrl: 'https://relay.example', version: '1.2.3',
      relay: { port: 8789, upstream: 'https://api.example', origin: 'https://shop.example' }, policy: { agents: ['ag_1'], models: [], scopes: ['conversations'] }, key: { env: 'PLATFORM_API_KEY' },
    });
    expect(html).toContain('heading="Help &quot;desk&quot; &lt;b&gt;&amp;"');
    expect(html).toContain('element.starters = ["\\u003c/script>\\u003cscript>alert(1)\\u003c/script>"];');
    expect(html.match(/<\/script>/g)).toHaveLength(2);
    expect(cssValueProblem('red; } body { display: none')).toBeTruthy();
    expect(cssValueProblem('</style>')).toBeTruthy();
    expect(cssValueProblem('min(24rem, 100vw - 2.5rem)')).toBeUndefined();
  });

  it('writes the light values on the element and the dark ones for theme="dark" and a dark system', () => {
    expect(styleRules('agent-chat', { light: { '--parley-radius': '4px' }, dark: { '--parley-color-accent': '#ff8a00' } })).toBe([
      'agent-chat {\n  --parley-radius: 4px;\n}',
      'agent-chat[theme="dark"] {\n  --parley-color-accent: #ff8a00;\n}',
      '@media (prefers-color-scheme: dark) {\n  agent-chat:not([theme="light"]) {\n    --parley-color-accent: #ff8a00;\n  }\n}',
    ].join('\n'));
  });

  it('turns a default-on switch off with the property, and leaves defaults out', () => {
    const { html } = embedCode({
      model: chat, values: { voiceAutosend: false, mode: 'inline', theme: 'dark', speakReplies: true }, css: { light: {}, dark: {} }, page: { dir: 'rtl' },
      scriptUrl: 'x.js', relayUrl: '/api', version: '1', relay: { port: 1, upstream: 'http://a', origin: 'http://b' }, policy: { agents: [], models: [], scopes: [] }, key: { value: 'k' },
    });
    expect(html).toContain('<agent-chat relay-url="/api" speak-replies theme="dark" dir="rtl"></agent-chat>');
    expect(html).toContain('element.voiceAutosend = false;');
  });

  it('prints a relay command and a config file that the relay reads as the same settings', () => {
    const policy = relayPolicy('agent-chat', { agentId: 'ag_1', speakReplies: true, voiceInput: true }, config, { models: ['org/model@2'] });
    expect(policy).toEqual({ agents: ['ag_1'], models: ['voxtral-mini-transcribe-realtime-2602', 'org/model@2'], scopes: ['conversations', 'agents:read', 'speech', 'transcription'] });
    const relay = { port: 8789, upstream: 'http://127.0.0.1:8787', origin: 'http://localhost:3000' };
    const { command, configFile, configCommand } = relayCommands(relay, policy, { value: 'parley-dev-key' });
    expect(command.startsWith('PLATFORM_API_KEY=parley-dev-key npx parley-relay --port 8789 ')).toBe(true);
    expect(configCommand).toBe('PLATFORM_API_KEY=parley-dev-key npx parley-relay --config relay.json');
    const env = { PLATFORM_API_KEY: 'parley-dev-key' };
    const args = command.split(' ').slice(3);
    const fromFlags = resolveRelayConfig({ flags: parseArgs({ args, options: relayCliOptions(), strict: true }).values, env, readFile: () => { throw new Error('no file'); } });
    const fromFile = resolveRelayConfig({ flags: { config: 'relay.json' }, env, readFile: () => configFile });
    expect(fromFile).toEqual(fromFlags);
    expect(fromFlags).toMatchObject({ port: 8789, upstream: 'http://127.0.0.1:8787', allowedOrigins: ['http://localhost:3000'], agents: ['ag_1'], scopes: policy.scopes });
    expect(relayCommands(relay, policy, { env: 'PARLEY_API_KEY' }).command.startsWith('PLATFORM_API_KEY="$PARLEY_API_KEY" npx parley-relay')).toBe(true);
  });
});
