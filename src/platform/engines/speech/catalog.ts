import type { ModelCard } from '../../../client/types.js';
import type { PresetVoice, SpeechEngine } from './types.js';

/**
 * The text-to-speech models and preset voices the platform serves, found by id or alias (models) and
 * by id or slug (voices). Kept apart from the chat registry so a TTS model never resolves as a chat model.
 */
export class SpeechCatalog {
  private readonly byModel = new Map<string, { engine: SpeechEngine; card: ModelCard }>();
  private readonly cards: ModelCard[] = [];
  private readonly voiceList: Array<{ engine: SpeechEngine; voice: PresetVoice }> = [];
  private readonly byVoice = new Map<string, { engine: SpeechEngine; voice: PresetVoice }>();

  constructor(readonly engines: SpeechEngine[]) {
    for (const engine of engines) {
      for (const card of engine.models()) {
        this.cards.push(card);
        for (const name of [card.id, ...card.aliases]) if (!this.byModel.has(name)) this.byModel.set(name, { engine, card });
      }
      for (const voice of engine.voices()) {
        const entry = { engine, voice };
        this.voiceList.push(entry);
        for (const key of [voice.id, voice.slug]) if (!this.byVoice.has(key)) this.byVoice.set(key, entry);
      }
    }
  }

  /** The engine and card serving `model` (id or alias), or undefined; no model → the first engine's first card. */
  resolveModel(model?: string | null): { engine: SpeechEngine; card: ModelCard } | undefined {
    if (model == null) {
      const card = this.cards[0];
      return card ? this.byModel.get(card.id) : undefined;
    }
    return this.byModel.get(model);
  }

  /** A preset voice of `engine` by id or slug; no voice → the engine's default (its first voice). */
  resolveVoice(engine: SpeechEngine, voiceId?: string | null): PresetVoice | undefined {
    if (voiceId == null) return engine.voices()[0];
    const found = this.byVoice.get(voiceId) ?? this.byVoice.get(voiceId.toLowerCase());
    return found && found.engine === engine ? found.voice : undefined;
  }

  voices(): PresetVoice[] {
    return this.voiceList.map((v) => v.voice);
  }

  models(): ModelCard[] {
    return [...this.cards];
  }

  async close(): Promise<void> {
    await Promise.all(this.engines.map((e) => e.close?.()));
  }
}
