/** The model cards of the local engines: a base model card that names only the capabilities it has. */
import type { BaseModelCard, ModelCapabilities } from 'parley-kit/types';

const NO_CAPABILITIES: ModelCapabilities = {
  completion_chat: false, function_calling: false, reasoning: false, completion_fim: false, fine_tuning: false,
  vision: false, ocr: false, classification: false, moderation: false, audio: false, audio_transcription: false,
  audio_transcription_realtime: false, audio_speech: false, unified_resources: false,
};

/** A base model card that claims only the capabilities named (every other one is false). */
export function modelCard(card: {
  id: string;
  name: string;
  description: string;
  /**
   * The provider that owns the model (`owned_by`, what `GET /v1/models?provider=` filters on): `mistralai`
   * for the local stand-ins of Mistral's models (the spec's base cards), whatever engine serves them.
   */
  ownedBy: string;
  created: number;
  capabilities: Partial<ModelCapabilities>;
  aliases?: string[];
  maxContextLength?: number;
}): BaseModelCard {
  return {
    id: card.id,
    object: 'model',
    created: card.created,
    owned_by: card.ownedBy,
    capabilities: { ...NO_CAPABILITIES, ...card.capabilities },
    name: card.name,
    description: card.description,
    max_context_length: card.maxContextLength ?? 32768,
    aliases: card.aliases ?? [],
    deprecation: null,
    deprecation_replacement_model: null,
    default_model_temperature: null,
    type: 'base',
  };
}
