/**
 * How a custom voice speaks on the local platform. The local engine (espeak-ng, formant synthesis) cannot
 * clone a voice from a sample. What it can do honestly: speak the voice's language with the espeak-ng voice
 * variant whose pitch is closest to the sample's median pitch (voices/pitch.ts). So a custom voice made
 * from a high-pitched sample speaks high, one from a low sample speaks low; timbre, accent and rhythm are
 * espeak-ng's own. The voice's answer says so in its `description` when the creator gave none.
 */
import type { Voice } from 'parley-kit/types';
import type { Db } from '../store/db.js';
import type { SpeechCatalog } from '../engines/speech/catalog.js';
import type { PresetVoice, SpeechEngine } from '../engines/speech/types.js';
import { getVoice } from './store.js';

/**
 * Median pitch (Hz) of each espeak-ng variant, measured with voices/pitch.ts on the engine's output
 * for an English sentence (the variant files set pitch the same way for every language).
 * voices.test.ts measures the engine again and checks the binding moves the output's pitch towards the sample.
 */
const VARIANT_PITCH_HZ: ReadonlyArray<readonly [variant: string, hz: number]> = [
  ['m1', 93], ['m4', 94], ['m2', 100], ['m6', 100], ['m5', 101], ['m7', 103], ['m3', 104],
  ['f4', 175], ['f1', 176], ['f2', 191], ['f5', 200], ['f3', 203],
];

/** The espeak-ng variant closest in pitch to `hz`, with its pitch. */
export function closestVariant(hz: number): { variant: string; hz: number } {
  let best = VARIANT_PITCH_HZ[0];
  for (const v of VARIANT_PITCH_HZ) if (Math.abs(v[1] - hz) < Math.abs(best[1] - hz)) best = v;
  return { variant: best[0], hz: best[1] };
}

/** The engine's preset voice for the first of `languages` (exact tag, then the same base language), else its default. */
function presetFor(engine: SpeechEngine, languages: readonly string[] | null | undefined): PresetVoice {
  const presets = engine.voices();
  const wanted = (languages?.[0] ?? '').toLowerCase();
  const base = wanted.split(/[-_]/)[0];
  return (
    presets.find((p) => p.languages.some((l) => l.toLowerCase() === wanted)) ??
    presets.find((p) => p.languages.some((l) => l.toLowerCase().split('-')[0] === base)) ??
    presets[0]
  );
}

/** What the voice's answer says about how it speaks here (its `description` when the creator gave none). */
export function bindingNote(pitchHz: number): string {
  const { variant, hz } = closestVariant(pitchHz);
  return `Custom voice from a sample with a median pitch of ${Math.round(pitchHz)} Hz. The local platform cannot clone voices: ` +
    `it speaks with espeak-ng variant ${variant} (about ${hz} Hz), the closest in pitch to the sample.`;
}

/** The voice the engine synthesises for a custom voice: its language's preset with the variant closest in pitch. */
export function bindCustomVoice(engine: SpeechEngine, voice: Voice, pitchHz: number): PresetVoice {
  const preset = presetFor(engine, voice.languages);
  const language = preset.engineVoice.split('+')[0];
  return {
    ...voice,
    slug: voice.slug ?? voice.id,
    languages: voice.languages ?? preset.languages,
    engineVoice: `${language}+${closestVariant(pitchHz).variant}`,
  };
}

/**
 * The voice `POST /v1/audio/speech` synthesises for `voiceId`: a preset (id or slug), else a custom voice of
 * the workspace (id or slug) bound to the engine; undefined when there is neither.
 */
export async function resolveSpeechVoice(db: Db, catalog: SpeechCatalog, workspaceId: string, engine: SpeechEngine, voiceId: string | null | undefined): Promise<PresetVoice | undefined> {
  const preset = catalog.resolveVoice(engine, voiceId);
  if (preset || voiceId == null) return preset;
  const custom = await getVoice(db, workspaceId, voiceId);
  return custom && bindCustomVoice(engine, custom.voice, custom.pitchHz);
}
