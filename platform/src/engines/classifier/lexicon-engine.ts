/**
 * `parley-moderation`: the local platform's moderation and classification model. A deterministic lexicon
 * classifier, not a neural network: each category's evidence is the sum of the weights of the lexicon phrases
 * found in the text (negated ones dropped), of hostility aimed at a protected group (hate), of a request for advice
 * on a health, money or legal topic, and of personal data found by pattern (pii); a logistic function squashes
 * bias + evidence to a 0..1 score. Same text, same scores; no model files, no network.
 */
import type { ModelCard } from 'parley-kit/types';
import { modelCard } from '../model-card.js';
import { LEXICON, NEGATION_WINDOW, NEGATORS, NEUTRAL, type Feature } from './lexicon.js';
import { findPii } from './pii.js';
import { stems } from './text.js';
import { MODERATION_CATEGORIES, type CategoryScores, type ClassifierEngine, type ModerationCategory } from './types.js';

/** Logit of a text with no evidence: every score starts near 0.018. */
const BIAS = -4;
/** Share of an earlier turn's evidence that counts for the last turn of a conversation. */
const CONTEXT_WEIGHT = 0.25;
/** Evidence a request for advice adds to a health, financial or law topic present in the same text. */
const ADVICE_BONUS = 2.5;
/** Most words between a group and hostility for the hostility to count as hate. */
const HATE_WINDOW = 8;
const ADVICE_CATEGORIES: readonly ModerationCategory[] = ['health', 'financial', 'law'];

export const PARLEY_MODERATION_CARD: ModelCard = modelCard({
  id: 'parley-moderation',
  name: 'Parley moderation (lexicon classifier)',
  description:
    'Deterministic lexicon classifier standing in for Mistral Moderation, not a neural model: curated English word and ' +
    'phrase weights per category matched on word stems (leetspeak folded, negation handled), hostility near a protected ' +
    'group for hate, advice requests for health/financial/law, and pattern detectors for personal data (e-mail, phone, ' +
    'payment card with Luhn check, IBAN with mod-97 check, US SSN, street address), squashed to 0..1 by a logistic ' +
    'function and flagged at 0.5. Scores the nine v1 categories; as a classifier each category is a target with labels ' +
    'flagged / not_flagged. Chat input: the last turn is scored, earlier turns add a quarter of their evidence.',
  ownedBy: 'mistralai',
  created: 1_700_000_000,
  capabilities: { moderation: true, classification: true },
  aliases: ['mistral-moderation-latest', 'mistral-moderation-2411', 'mistral-moderation-2603'],
  maxContextLength: 8192,
});

type Weights = Partial<Record<Feature, number>>;

interface Phrase {
  tokens: string[];
  weights: Weights;
}

/** A lexicon phrase found at words [start, end). */
interface Match {
  start: number;
  end: number;
  weights: Weights;
  negated: boolean;
}

const CATEGORY_SET: ReadonlySet<string> = new Set(MODERATION_CATEGORIES);
const isCategory = (f: Feature): f is ModerationCategory => CATEGORY_SET.has(f);

/** The lexicon as stem sequences indexed by their first stem, longest first. */
class CompiledLexicon {
  private readonly byFirst = new Map<string, Phrase[]>();
  private readonly negators: ReadonlySet<string> = new Set(NEGATORS.flatMap(stems));

  constructor() {
    const phrases = new Map<string, Phrase>();
    const add = (text: string, feature?: Feature, weight?: number) => {
      const tokens = stems(text);
      const key = tokens.join(' ');
      const phrase = phrases.get(key) ?? { tokens, weights: {} };
      if (feature !== undefined && weight !== undefined) phrase.weights[feature] = (phrase.weights[feature] ?? 0) + weight;
      phrases.set(key, phrase);
    };
    for (const [feature, terms] of Object.entries(LEXICON) as Array<[Feature, Record<string, number>]>) {
      for (const [text, weight] of Object.entries(terms)) add(text, feature, weight);
    }
    for (const text of NEUTRAL) add(text);
    for (const phrase of phrases.values()) {
      const list = this.byFirst.get(phrase.tokens[0]) ?? [];
      list.push(phrase);
      this.byFirst.set(phrase.tokens[0], list);
    }
    for (const list of this.byFirst.values()) list.sort((a, b) => b.tokens.length - a.tokens.length);
  }

  /** Longest-first, non-overlapping matches of the lexicon in `tokens`. */
  matches(tokens: readonly string[]): Match[] {
    const found: Match[] = [];
    let i = 0;
    while (i < tokens.length) {
      const phrase = this.byFirst.get(tokens[i])?.find((p) => p.tokens.every((t, k) => tokens[i + k] === t));
      if (!phrase) {
        i++;
        continue;
      }
      const negated = tokens.slice(Math.max(0, i - NEGATION_WINDOW), i).some((t) => this.negators.has(t));
      found.push({ start: i, end: i + phrase.tokens.length, weights: phrase.weights, negated });
      i += phrase.tokens.length;
    }
    return found;
  }
}

const zero = (): CategoryScores => Object.fromEntries(MODERATION_CATEGORIES.map((c) => [c, 0])) as CategoryScores;
const gap = (a: Match, b: Match) => Math.max(0, Math.max(a.start, b.start) - Math.min(a.end, b.end));
const squash = (logit: number) => 1 / (1 + Math.exp(-logit));

/** The lexicon classifier (see the file comment); `parley-moderation` is its one model. */
export class LexiconClassifier implements ClassifierEngine {
  readonly id = 'lexicon';
  private readonly lexicon = new CompiledLexicon();

  models(): ModelCard[] {
    return [PARLEY_MODERATION_CARD];
  }

  scoreText(text: string): CategoryScores {
    return this.scores(this.evidence(text));
  }

  scoreConversation(turns: readonly string[]): CategoryScores {
    const total = this.evidence(turns.at(-1) ?? '');
    for (const turn of turns.slice(0, -1)) {
      const earlier = this.evidence(turn);
      for (const c of MODERATION_CATEGORIES) total[c] += CONTEXT_WEIGHT * Math.max(0, earlier[c]);
    }
    return this.scores(total);
  }

  /** Evidence per category (logit units, before the bias) of one text. */
  private evidence(text: string): CategoryScores {
    const evidence = zero();
    const matches = this.lexicon.matches(stems(text));
    const counted = (m: Match, f: Feature) => {
      const w = m.weights[f] ?? 0;
      return m.negated && w > 0 ? 0 : w;
    };
    for (const m of matches) {
      for (const f of Object.keys(m.weights) as Feature[]) if (isCategory(f)) evidence[f] += counted(m, f);
    }
    const groups = matches.filter((m) => m.weights.group !== undefined);
    for (const m of matches) {
      const hostility = counted(m, 'hostile');
      if (hostility > 0 && groups.some((g) => g !== m && gap(g, m) <= HATE_WINDOW)) evidence.hate_and_discrimination += hostility;
    }
    if (matches.some((m) => counted(m, 'advice') > 0)) {
      for (const c of ADVICE_CATEGORIES) if (evidence[c] > 0) evidence[c] += ADVICE_BONUS;
    }
    for (const finding of findPii(text)) evidence.pii += finding.weight;
    return evidence;
  }

  private scores(evidence: CategoryScores): CategoryScores {
    const out = zero();
    for (const c of MODERATION_CATEGORIES) out[c] = squash(BIAS + evidence[c]);
    return out;
  }
}

/** The default classifier engine of the local platform. */
export function createLexiconClassifier(): ClassifierEngine {
  return new LexiconClassifier();
}
