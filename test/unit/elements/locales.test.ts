import { describe, expect, test } from 'vitest';
import { defaultAgentChatStrings } from '../../../src/elements/agent-chat/strings.js';
import { defaultSpeechPlayerStrings } from '../../../src/elements/speech-player/strings.js';
import { defaultAudioTranscriberStrings } from '../../../src/elements/audio-transcriber/strings.js';
import { defaultDocOcrViewerStrings } from '../../../src/elements/doc-ocr-viewer/strings.js';
import { localeChain, localize, registerLocale, shippedLocales } from '../../../src/elements/internal/locale.js';
import type { CompleteLocaleCatalogue, LocalePart } from '../../../src/elements/internal/locale.js';
import type { PlatformErrorShape, VoiceInputErrorKind } from '../../../src/client/contracts.js';
import type { TranscriptionErrorKind } from '../../../src/elements/audio-transcriber/events.js';
import type { OcrErrorKind } from '../../../src/elements/doc-ocr-viewer/events.js';
import fr from '../../../src/elements/locales/fr.js';
import de from '../../../src/elements/locales/de.js';
import es from '../../../src/elements/locales/es.js';
import ar from '../../../src/elements/locales/ar.js';

const english: CompleteLocaleCatalogue = {
  agentChat: defaultAgentChatStrings,
  speechPlayer: defaultSpeechPlayerStrings,
  audioTranscriber: defaultAudioTranscriberStrings,
  docOcrViewer: defaultDocOcrViewerStrings,
};
const catalogues: Record<string, CompleteLocaleCatalogue> = { en: english, fr, de, es, ar };
const parts = Object.keys(english) as LocalePart[];

const platformError = (status: number, type: PlatformErrorShape['type'], extra: Partial<PlatformErrorShape> = {}): PlatformErrorShape => ({
  status, type, code: null, message: 'upstream detail', retryAfter: null, ...extra,
});
/** One error of each sentence `<agent-chat>` and `<speech-player>` have. */
const platformErrors: PlatformErrorShape[] = [
  platformError(403, 'authentication_error', { code: 'origin_not_allowed' }),
  platformError(0, 'network_error'),
  platformError(200, 'stream_error'),
  platformError(401, 'authentication_error'),
  platformError(404, 'not_found_error'),
  platformError(413, 'invalid_request_error'),
  platformError(422, 'invalid_request_error'),
  platformError(429, 'rate_limit_error'),
  platformError(429, 'rate_limit_error', { retryAfter: 1 }),
  platformError(429, 'rate_limit_error', { retryAfter: 12.2 }),
  platformError(503, 'server_error'),
  platformError(500, 'server_error'),
  platformError(418, 'invalid_request_error'),
];
const voiceKinds: VoiceInputErrorKind[] = ['permission-denied', 'no-microphone', 'unsupported', 'microphone-busy', 'network', 'platform'];
const transcriptionKinds: TranscriptionErrorKind[] = [
  'permission-denied', 'no-microphone', 'microphone-busy', 'unsupported', 'not-audio', 'network', 'interrupted', 'platform', 'not-available',
];
const ocrKinds: OcrErrorKind[] = ['network', 'forbidden', 'url-not-allowed', 'too-large', 'rejected', 'rate-limited', 'busy', 'other'];

/** The arguments each function string is called with: every function of English must be listed. */
const samples: Record<LocalePart, Record<string, unknown[][]>> = {
  agentChat: {
    deleteConversation: [['Trip to Lyon']],
    showEarlier: [[0], [1], [2], [3], [11], [100], [1234]],
    searchMatches: [[1, 1], [3, 12], [1, 1234]],
    handoff: [['billing']],
    functionCall: [['get_weather']],
    toolExecution: [['web_search']],
    replyAnnouncement: [['Hello there']],
    linkWarningBody: [['example.com', 'evil.test']],
    imageBlocked: [['img.test', 'a cat'], ['img.test', '']],
    errorMessage: platformErrors.map((e) => [e]),
    voiceErrorMessage: voiceKinds.map((kind) => [{ kind, message: 'raw controller words' }]),
    removeAttachment: [['receipt.png']],
    attachmentAdded: [['receipt.png']],
    attachmentRemoved: [['receipt.png']],
    fileSize: [[12], [2048], [31.5 * 1024 * 1024]],
    attachmentTooLarge: [['scan.pdf', 31.5 * 1024 * 1024, 10 * 1024 * 1024]],
    attachmentWrongType: [['page.html', 'PNG, JPEG, PDF']],
    attachmentTooMany: [['5.png', 1], ['5.png', 2], ['5.png', 4], ['5.png', 11]],
    attachmentUnreadable: [['scan.pdf']],
    approvalQuestion: [['cancel_order']],
    approvalAnnouncement: [['cancel_order']],
    toolDeclined: [['cancel_order']],
    toolRunning: [['track_order']],
    sources: [[1], [2], [5], [11]],
    sourcePage: [[1], [12]],
    showInDocument: [[1], [12]],
  },
  speechPlayer: {
    progressText: [[3.4, 67]],
    rateOption: [[0.75], [1], [1.25]],
    errorMessage: platformErrors.map((e) => [e]),
  },
  audioTranscriber: {
    speaker: [['speaker_1'], ['narrator']],
    transcribingFile: [['memo.wav']],
    finalAnnouncement: [['bonjour']],
    errorMessage: transcriptionKinds.map((kind) => [kind, 'no-such-model']),
  },
  docOcrViewer: {
    working: [['report.pdf', 4, 10], ['report.pdf', 0, null], ['one.png', 1, 1]],
    done: [[0], [1], [2], [3], [11], [100]],
    pageTitle: [[2]],
    pageOf: [[2, 5]],
    originalOf: [[3]],
    drawingOriginal: [[3]],
    originalUnavailable: [[3]],
    matches: [[0, null], [1, null], [2, null], [3, null], [11, 2]],
    imageUnavailable: [['chart'], ['']],
    errorMessage: ocrKinds.map((kind) => ['no-such-model', kind]),
    notDocument: [['text/plain'], ['']],
  },
};

describe('locale catalogues', () => {
  test('the shipped languages are English, French, German, Spanish and Arabic', () => {
    expect([...shippedLocales].sort()).toEqual(['ar', 'de', 'en', 'es', 'fr']);
  });

  test('every function of English has sample arguments here', () => {
    for (const part of parts) {
      const functions = Object.entries(english[part]).filter(([, v]) => typeof v === 'function').map(([k]) => k).sort();
      expect(Object.keys(samples[part]).sort(), part).toEqual(functions);
    }
  });

  for (const [tag, catalogue] of Object.entries(catalogues)) {
    test(`${tag}: every key of English, with the same type; strings and results non-empty`, () => {
      for (const part of parts) {
        const en = english[part] as unknown as Record<string, unknown>;
        const own = catalogue[part] as unknown as Record<string, unknown>;
        expect(Object.keys(own).sort(), `${tag}.${part}`).toEqual(Object.keys(en).sort());
        for (const [key, value] of Object.entries(en)) {
          const translated = own[key];
          expect(typeof translated, `${tag}.${part}.${key}`).toBe(typeof value);
          if (typeof translated === 'string') expect(translated.trim(), `${tag}.${part}.${key}`).not.toBe('');
          if (typeof translated === 'function') {
            for (const args of samples[part][key]!) {
              const out: unknown = translated(...args);
              expect(typeof out, `${tag}.${part}.${key}(${JSON.stringify(args)})`).toBe('string');
              expect((out as string).trim(), `${tag}.${part}.${key}(${JSON.stringify(args)})`).not.toBe('');
              expect(out as string, `${tag}.${part}.${key}: no unfilled placeholder`).not.toMatch(/#|undefined|null|NaN|\[object/);
            }
          }
        }
      }
    });

    test(`${tag}: each failure has its own sentence`, () => {
      const chat = new Set(platformErrors.map((e) => catalogue.agentChat.errorMessage(e)));
      expect(chat.size).toBe(platformErrors.length - 1); // 503 and 500 are both "the service had a problem"
      const voice = new Set(voiceKinds.map((kind) => catalogue.agentChat.voiceErrorMessage({ kind, message: `controller words for ${kind}` })));
      expect(voice.size).toBe(voiceKinds.length);
      const transcriber = new Set(transcriptionKinds.map((kind) => catalogue.audioTranscriber.errorMessage(kind, 'x')));
      expect(transcriber.size).toBe(transcriptionKinds.length);
      const reader = new Set(ocrKinds.map((kind) => catalogue.docOcrViewer.errorMessage('x', kind)));
      expect(reader.size).toBe(ocrKinds.length);
    });

    test(`${tag}: the visitor's error sentences leave the platform's own words out`, () => {
      for (const kind of transcriptionKinds) expect(catalogue.audioTranscriber.errorMessage(kind, 'no-such-model')).not.toContain('no-such-model');
      for (const kind of ocrKinds) expect(catalogue.docOcrViewer.errorMessage('no-such-model', kind)).not.toContain('no-such-model');
    });

    test(`${tag}: nothing forces left to right (no LRM, LRE, LRO)`, () => {
      const all: string[] = [];
      for (const part of parts) {
        for (const [key, value] of Object.entries(catalogue[part] as unknown as Record<string, unknown>)) {
          if (typeof value === 'string') all.push(value);
          else for (const args of samples[part][key]!) all.push((value as (...a: unknown[]) => string)(...args));
        }
      }
      for (const text of all) expect(text).not.toMatch(/[\u200e\u202a\u202d]/);
    });
  }

  test('the other languages are translations, not copies of English', () => {
    for (const tag of ['fr', 'de', 'es', 'ar']) {
      const c = catalogues[tag]!;
      expect(c.agentChat.send, tag).not.toBe('Send');
      expect(c.agentChat.errorMessage(platformError(0, 'network_error')), tag).not.toBe(defaultAgentChatStrings.errorMessage(platformError(0, 'network_error')));
      expect(c.docOcrViewer.chooseFile, tag).not.toBe(defaultDocOcrViewerStrings.chooseFile);
      expect(c.speechPlayer.nothingToSay, tag).not.toBe(defaultSpeechPlayerStrings.nothingToSay);
      expect(c.audioTranscriber.startRecording, tag).not.toBe(defaultAudioTranscriberStrings.startRecording);
    }
    expect(ar.agentChat.send).toMatch(/^[\u0600-\u06ff\s]+$/);
  });

  test('counts follow each language’s plural rules and number format', () => {
    expect(defaultAgentChatStrings.showEarlier(1)).toBe('Show 1 earlier message');
    expect(defaultAgentChatStrings.showEarlier(1234)).toBe('Show 1,234 earlier messages');
    expect(defaultAgentChatStrings.errorMessage(platformError(429, 'rate_limit_error', { retryAfter: 1 }))).toContain('in 1 second.');
    expect(fr.agentChat.showEarlier(1)).toBe('Afficher 1 message précédent');
    expect(fr.agentChat.showEarlier(3)).toBe('Afficher les 3 messages précédents');
    expect(de.docOcrViewer.done(1234)).toBe('1.234 Seiten gelesen.');
    expect([defaultSpeechPlayerStrings.rateOption(1.25), fr.speechPlayer.rateOption(1.25), de.speechPlayer.rateOption(0.75)]).toEqual(['1.25×', '1,25×', '0,75×']);
    expect(es.docOcrViewer.done(1)).toBe('Se leyó 1 página.');
    // Arabic has six forms: 0, 1, 2, 3–10, 11–99, 100…
    const arabic = [0, 1, 2, 3, 11, 100].map((n) => ar.docOcrViewer.done(n));
    expect(arabic).toEqual([
      'لم تتم قراءة أي صفحة.',
      'تمت قراءة صفحة واحدة.',
      'تمت قراءة صفحتين.',
      'تمت قراءة 3 صفحات.',
      'تمت قراءة 11 صفحة.',
      'تمت قراءة 100 صفحة.',
    ].map((s) => s.replace(/\d+/, (d) => new Intl.NumberFormat('ar').format(Number(d)))));
  });
});

describe('locale resolution', () => {
  test('a tag falls back along its prefixes (English last, implied)', () => {
    expect(localeChain('fr-CA')).toEqual(['fr-ca', 'fr']);
    expect(localeChain('zh_Hant_TW')).toEqual(['zh-hant-tw', 'zh-hant', 'zh']);
    expect(localeChain('en-GB')).toEqual(['en-gb']);
    expect(localeChain('EN')).toEqual([]);
  });

  test('without an element: English, with overrides and a registered English on top', () => {
    expect(localize(null, 'speechPlayer', defaultSpeechPlayerStrings, null)).toBe(defaultSpeechPlayerStrings);
    expect(localize(null, 'speechPlayer', defaultSpeechPlayerStrings, { play: 'Go' }).play).toBe('Go');
    registerLocale('en', { speechPlayer: { play: 'Start' } });
    try {
      const strings = localize(null, 'speechPlayer', defaultSpeechPlayerStrings, { pause: 'Hold' });
      expect([strings.play, strings.pause, strings.stop]).toEqual(['Start', 'Hold', 'Stop']);
    } finally {
      registerLocale('en', {});
    }
  });

  test('registerLocale refuses an empty tag or a missing catalogue', () => {
    expect(() => registerLocale(' ', {})).toThrow(TypeError);
    expect(() => registerLocale('pt', null as unknown as object)).toThrow(TypeError);
  });
});
