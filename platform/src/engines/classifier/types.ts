/**
 * The classifier engine contract of the local platform (architecture rule 6: engines behind small interfaces),
 * and the wire shapes of `/v1/moderations`, `/v1/chat/moderations`, `/v1/classifications` and
 * `/v1/chat/classifications` (reference §8; SDK models/components/moderationresponse.ts, classificationresponse.ts).
 */
import type { ModelCard } from 'parley-kit/types';

/** The nine policy categories of Mistral Moderation (v1, `mistral-moderation-2411`), in the order the API lists them. */
export const MODERATION_CATEGORIES = [
  'sexual',
  'hate_and_discrimination',
  'violence_and_threats',
  'dangerous_and_criminal_content',
  'selfharm',
  'health',
  'financial',
  'law',
  'pii',
] as const;

export type ModerationCategory = (typeof MODERATION_CATEGORIES)[number];

/** A score in 0..1 per category. */
export type CategoryScores = Record<ModerationCategory, number>;

/** A category is flagged when its score reaches this (the API's booleans). */
export const FLAG_THRESHOLD = 0.5;

/** A classifier: scores texts and conversations on the nine categories. Pure and deterministic. */
export interface ClassifierEngine {
  readonly id: string;
  models(): ModelCard[];
  /** Scores of one text. */
  scoreText(text: string): CategoryScores;
  /** Scores of the last turn of a conversation (texts of its messages, in order), in the context of the earlier turns. */
  scoreConversation(turns: readonly string[]): CategoryScores;
  close?(): Promise<void>;
}

/** One moderated input: `categories` are the booleans, `category_scores` the scores. */
export interface ModerationResult {
  categories: Record<ModerationCategory, boolean>;
  category_scores: CategoryScores;
}

/** Token counts of a classifier request (the real answer carries `usage` too; the SDK drops it). */
export interface ClassifierUsage {
  prompt_tokens: number;
  completion_tokens: 0;
  total_tokens: number;
  request_count: 1;
}

export interface ModerationResponse {
  id: string;
  model: string;
  results: ModerationResult[];
  usage: ClassifierUsage;
}

/** One classified input: per target (here, per category) the score of each label. */
export type ClassificationResult = Record<string, { scores: Record<string, number> }>;

export interface ClassificationResponse {
  id: string;
  model: string;
  results: ClassificationResult[];
  usage: ClassifierUsage;
}
