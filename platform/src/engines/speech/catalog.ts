import type { ModelCard } from 'parley-kit/types';
import { ModelRegistry } from '../model-registry.js';
import type { PresetVoice, SpeechEngine } from './types.js';

/**
 * The text-to-speech models and preset voices the platform serves, found by id or alias (models) and
 * by id or slug (voices). Kept apart from the chat registry so a TTS model never resolves as a chat model.
 */
export class SpeechCatalog extends ModelRegistry<SpeechEngine> {
  private readonly voiceList: PresetVoice[] = [];
  private readonly byVoice = new Map<string, { engine: SpeechEngine; voice: PresetVoice }>();

  constructor(engines: SpeechEngine[]) {
    super(engines);
    for (const engine of engines) {
      for (const voice of engine.voices()) {
        this.voiceList.push(voice);
        for (const key of [voice.id, voice.slug]) if (!this.byVoice.has(key)) this.byVoice.set(key, { engine, voice });
      }
    }
  }

  /** The engine and card serving `model` (id or alias), or undefined; no model → the first engine's first card. */
  resolveModel(model?: string | null): { engine: SpeechEngine; card: ModelCard } | undefined {
    const name = model ?? this.models()[0]?.id;
    return name === undefined ? undefined : this.resolve(name);
  }

  /** A preset voice of `engine` by id or slug; no voice → the engine's default (its first voice). */
  resolveVoice(engine: SpeechEngine, voiceId?: string | null): PresetVoice | undefined {
    if (voiceId == null) return engine.voices()[0];
    const found = this.byVoice.get(voiceId) ?? this.byVoice.get(voiceId.toLowerCase());
    return found && found.engine === engine ? found.voice : undefined;
  }

  /** The engine a preset voice belongs to. */
  engineOfVoice(voice: PresetVoice): SpeechEngine {
    const found = this.byVoice.get(voice.id);
    if (!found) throw new Error(`engineOfVoice: '${voice.id}' is not a preset voice of this catalog`);
    return found.engine;
  }

  voices(): PresetVoice[] {
    return [...this.voiceList];
  }
}
