/**
 * What every area's routes are given: the database, the engines, the request limits, and the services areas
 * share (the agent and conversation stores, tenancy's directory and usage ledger, the FIM models), wired by
 * app.ts. The only imports of http/ that name area modules, and type-only: the context is where they meet.
 */
import type { Db } from '../store/db.js';
import type { AgentStore } from '../agents/store.js';
import type { ConversationStore } from '../conversations/store.js';
import type { ChatModelRegistry } from '../engines/chat/registry.js';
import type { SpeechCatalog } from '../engines/speech/catalog.js';
import type { TranscriptionCatalog } from '../engines/transcription/catalog.js';
import type { OcrCatalog } from '../engines/ocr/catalog.js';
import type { ClassifierCatalog } from '../engines/classifier/catalog.js';
import type { EmbeddingCatalog } from '../engines/embeddings/catalog.js';
import type { FimCatalog } from '../completions/infill.js';
import type { Directory } from '../tenancy/directory.js';
import type { UsageLedger } from '../tenancy/usage.js';

export type { PlatformEnv } from './caller.js';

/** What every route module is given. */
export interface PlatformContext {
  db: Db;
  conversations: ConversationStore;
  agents: AgentStore;
  chat: ChatModelRegistry;
  /** Text-to-speech models and preset voices (never resolvable as chat models). */
  speech: SpeechCatalog;
  /** Speech-to-text models (never resolvable as chat or TTS models). */
  transcription: TranscriptionCatalog;
  /** Audio inputs of transcription: size cap in bytes and the hosts `file_url` may fetch from. */
  audioInput: { maxAudioBytes: number; urlAllowlist: readonly string[] };
  /** OCR models (never resolvable as chat, TTS or STT models). */
  ocr: OcrCatalog;
  /** Documents of OCR: size cap in bytes and the hosts `document_url`/`image_url` may fetch from. */
  ocrInput: { maxBytes: number; urlAllowlist: readonly string[] };
  /** Moderation and classifier models (never resolvable as chat, TTS, STT or OCR models). */
  classifiers: ClassifierCatalog;
  /** Embedding models (`parley-embed`, alias `mistral-embed`); never resolvable as chat models. */
  embeddings: EmbeddingCatalog;
  /** Fill-in-the-middle models (`parley-infill`, alias `codestral-latest`); the chat models do not claim completion_fim. */
  fim: FimCatalog;
  limits: { maxJsonBytes: number };
  /** Users, workspaces, roles; resolves API keys to callers and enforces rate and spend limits. */
  directory: Directory;
  /** Token usage per caller and model, as served (the admin usage report reads it). */
  usage: UsageLedger;
}
