import { describe, expect, test } from 'vitest';
import { DEFAULT_SCHEDULE, contentPlayed, initialSchedule, placeChunk } from '../../../src/audio/schedule.js';

describe('placeChunk', () => {
  test('the first chunk starts one lead after its arrival; the next ones follow back to back', () => {
    let state = initialSchedule();
    const a = placeChunk(state, 10, 0.2);
    expect(a).toMatchObject({ start: 10.05, first: true, underrun: false });
    state = a.state;
    const b = placeChunk(state, 10.1, 0.3);
    expect(b.start).toBe(a.end);
    expect(b).toMatchObject({ first: false, underrun: false });
    expect(b.end).toBeCloseTo(10.55, 12);
    expect(b.state.underruns).toBe(0);
  });

  test('a chunk arriving after its slot is an underrun: counted, rescheduled with a longer lead', () => {
    const a = placeChunk(initialSchedule(), 0, 0.1);
    const late = placeChunk(a.state, 0.2, 0.1);
    expect(late).toMatchObject({ underrun: true, first: false });
    expect(late.start).toBeCloseTo(0.2 + DEFAULT_SCHEDULE.underrunLead, 12);
    expect(late.state.underruns).toBe(1);
    const later = placeChunk(late.state, late.end + 1, 0.1);
    expect(later.state.underruns).toBe(2);
    expect(later.state.lead).toBeGreaterThan(late.state.lead);
    let s = later.state;
    for (let i = 0; i < 10; i++) s = placeChunk(s, 100 * (i + 1), 0.1).state;
    expect(s.lead).toBe(DEFAULT_SCHEDULE.maxLead);
  });

  test('a chunk due within the safety margin counts as late', () => {
    const a = placeChunk(initialSchedule(), 0, 0.1);
    expect(placeChunk(a.state, a.end - 0.001, 0.1).underrun).toBe(true);
    expect(placeChunk(a.state, a.end - 0.01, 0.1).underrun).toBe(false);
  });

  test('the rate shortens or stretches a chunk on the timeline', () => {
    expect(placeChunk(initialSchedule(), 0, 1, 2).end).toBeCloseTo(0.55, 12);
    expect(placeChunk(initialSchedule(), 0, 1, 0.5).end).toBeCloseTo(2.05, 12);
  });

  test('many uneven chunks tile the timeline exactly', () => {
    let state = initialSchedule();
    const rate = 24000;
    const sizes = [480, 1201, 77, 2400, 3, 960];
    let start = -1;
    let end = 0;
    for (const n of sizes) {
      const slot = placeChunk(state, 0, n / rate);
      if (start < 0) start = slot.start;
      else expect(slot.start).toBe(end);
      end = slot.end;
      state = slot.state;
    }
    expect((end - start) * rate).toBeCloseTo(sizes.reduce((a, b) => a + b, 0), 6);
  });
});

describe('contentPlayed', () => {
  test('sums finished spans and the played part of the current one, in content seconds', () => {
    const spans = [{ start: 0, end: 1, content: 1 }, { start: 1, end: 1.5, content: 1 }, { start: 2, end: 3, content: 1 }];
    expect(contentPlayed(spans, 0)).toBe(0);
    expect(contentPlayed(spans, 0.5)).toBe(0.5);
    expect(contentPlayed(spans, 1.25)).toBe(1.5);
    expect(contentPlayed(spans, 1.8)).toBe(2);
    expect(contentPlayed(spans, 5)).toBe(3);
  });
});
