/**
 * Quality of the lexicon classifier on labelled fixtures (test/fixtures/classifier/*.jsonl, one
 * `{text, labels}` per line; `labels` = the categories that must be flagged, [] for benign text).
 * `moderation.jsonl` is the development set the lexicon was tuned on; `holdout.jsonl` was written afterwards and
 * not tuned on, so its floor is lower. Both: per-category precision/recall/F1, a macro-F1 floor, and no benign
 * text flagged at all.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createLexiconClassifier } from '../../src/engines/classifier/lexicon-engine.js';
import { FLAG_THRESHOLD, MODERATION_CATEGORIES, type ModerationCategory } from '../../src/engines/classifier/types.js';

interface Row { text: string; labels: ModerationCategory[] }

const engine = createLexiconClassifier();

function load(name: string): Row[] {
  const url = new URL(`../fixtures/classifier/${name}`, import.meta.url);
  return readFileSync(url, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Row);
}

const flagged = (text: string) => {
  const scores = engine.scoreText(text);
  return MODERATION_CATEGORIES.filter((c) => scores[c] >= FLAG_THRESHOLD);
};

/** Per-category precision, recall and F1 of the engine on `rows`. */
function evaluate(rows: Row[]) {
  const counts = Object.fromEntries(MODERATION_CATEGORIES.map((c) => [c, { tp: 0, fp: 0, fn: 0 }])) as Record<ModerationCategory, { tp: number; fp: number; fn: number }>;
  for (const row of rows) {
    const got = flagged(row.text);
    for (const c of MODERATION_CATEGORIES) {
      const predicted = got.includes(c);
      const expected = row.labels.includes(c);
      if (predicted && expected) counts[c].tp++;
      else if (predicted) counts[c].fp++;
      else if (expected) counts[c].fn++;
    }
  }
  const perCategory = MODERATION_CATEGORIES.map((c) => {
    const { tp, fp, fn } = counts[c];
    const precision = tp + fp ? tp / (tp + fp) : 1;
    const recall = tp + fn ? tp / (tp + fn) : 1;
    const f1 = precision + recall ? (2 * precision * recall) / (precision + recall) : 0;
    return { category: c, precision, recall, f1, support: tp + fn };
  });
  const macroF1 = perCategory.reduce((s, r) => s + r.f1, 0) / perCategory.length;
  return { perCategory, macroF1 };
}

describe.each([
  { file: 'moderation.jsonl', macroFloor: 0.9, recallFloor: 0.75, minRows: 90 },
  { file: 'holdout.jsonl', macroFloor: 0.85, recallFloor: 0.6, minRows: 40 },
])('lexicon classifier on $file', ({ file, macroFloor, recallFloor, minRows }) => {
  const rows = load(file);

  it('has labelled examples of every category and benign ones', () => {
    expect(rows.length).toBeGreaterThanOrEqual(minRows);
    for (const c of MODERATION_CATEGORIES) expect(rows.filter((r) => r.labels.includes(c)).length, c).toBeGreaterThanOrEqual(3);
    expect(rows.filter((r) => r.labels.length === 0).length).toBeGreaterThanOrEqual(10);
  });

  it(`reaches macro F1 ≥ ${macroFloor} and recall ≥ ${recallFloor} in every category`, () => {
    const { perCategory, macroF1 } = evaluate(rows);
    for (const r of perCategory) expect(r.recall, `${r.category} recall`).toBeGreaterThanOrEqual(recallFloor);
    expect(macroF1).toBeGreaterThanOrEqual(macroFloor);
  });

  it('flags no benign text', () => {
    const wrongly = rows.filter((r) => r.labels.length === 0).map((r) => ({ text: r.text, flagged: flagged(r.text) })).filter((r) => r.flagged.length);
    expect(wrongly).toEqual([]);
  });
});

describe('lexicon classifier behaviour', () => {
  it('is deterministic', () => {
    const text = 'I know where you live. Email me at a@b.co';
    expect(engine.scoreText(text)).toEqual(engine.scoreText(text));
    expect(createLexiconClassifier().scoreText(text)).toEqual(engine.scoreText(text));
  });

  it('handles negation, leetspeak and inflections', () => {
    expect(engine.scoreText('I will kill you').violence_and_threats).toBeGreaterThan(0.5);
    expect(engine.scoreText('I would never kill you').violence_and_threats).toBeLessThan(0.5);
    expect(engine.scoreText('I will k1ll you').violence_and_threats).toBeGreaterThan(0.5);
    expect(engine.scoreText('He was stabbing people').violence_and_threats).toBeGreaterThan(engine.scoreText('He was eating').violence_and_threats);
  });

  it('checks card and IBAN checksums instead of flagging any long number', () => {
    expect(engine.scoreText('card 4111 1111 1111 1111').pii).toBeGreaterThan(0.5);
    expect(engine.scoreText('card 4111 1111 1111 1112').pii).toBeLessThan(0.5);
    expect(engine.scoreText('IBAN GB82 WEST 1234 5698 7654 32').pii).toBeGreaterThan(0.5);
    expect(engine.scoreText('IBAN GB82 WEST 1234 5698 7654 33').pii).toBeLessThan(0.5);
  });

  it('needs hostility near a protected group for hate', () => {
    expect(engine.scoreText('I hate immigrants').hate_and_discrimination).toBeGreaterThan(0.5);
    expect(engine.scoreText('I hate traffic jams').hate_and_discrimination).toBeLessThan(0.5);
    expect(engine.scoreText('Immigrants founded many companies').hate_and_discrimination).toBeLessThan(0.5);
  });

  it('judges a conversation on its last turn, earlier turns adding context only', () => {
    const harmful = 'Tell me how to cook meth.';
    expect(engine.scoreConversation([harmful, 'What a nice day']).dangerous_and_criminal_content).toBeLessThan(0.5);
    expect(engine.scoreConversation(['What a nice day', harmful]).dangerous_and_criminal_content).toBeGreaterThan(0.5);
  });
});
