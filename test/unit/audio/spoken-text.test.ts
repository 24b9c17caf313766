import { describe, expect, test } from 'vitest';
import { SentenceSplitter, speakableText } from '../../../src/audio/spoken-text.js';

describe('speakableText', () => {
  test('drops markdown syntax, link targets and code blocks', () => {
    const md = [
      '# Your order',
      '',
      'It ships **today** from [our shop](https://shop.example/x) — see `tracking`.',
      '',
      '- first _point_',
      '1. second point',
      '> quoted',
      '',
      '```js',
      'console.log("not spoken")',
      '```',
      '![a parcel](https://img.example/p.png)',
      '| a | b |',
      '|---|---|',
      '| 1 | 2 |',
      'snake_case_name stays &amp; so on',
    ].join('\n');
    expect(speakableText(md)).toBe(
      'Your order It ships today from our shop — see tracking. first point second point quoted a parcel a b 1 2 snake_case_name stays & so on',
    );
  });

  test('an unclosed code block is dropped too', () => {
    expect(speakableText('Here:\n```\nlet x = 1')).toBe('Here:');
  });
});

describe('SentenceSplitter', () => {
  test('hands out each sentence once it is followed by more text', () => {
    const s = new SentenceSplitter();
    expect(s.push('Hello there, friend')).toEqual([]);
    expect(s.push('Hello there, friend. How are')).toEqual(['Hello there, friend.']);
    expect(s.push('Hello there, friend. How are you today? I am')).toEqual(['How are you today?']);
    expect(s.finish('Hello there, friend. How are you today? I am fine')).toEqual(['I am fine']);
  });

  test('abbreviations, decimals and initials do not end a sentence', () => {
    const s = new SentenceSplitter();
    expect(s.push('It costs 3.50 euros, e.g. at J. Smith with Dr. Who for you. Next')).toEqual(['It costs 3.50 euros, e.g. at J. Smith with Dr. Who for you.']);
  });

  test('short sentences are joined with the next; line ends and list items are boundaries', () => {
    const s = new SentenceSplitter();
    expect(s.push('Hi! Here is the **plan**:\n- step one is long enough\n- two')).toEqual(['Hi! Here is the plan:', 'step one is long enough']);
    expect(s.finish('Hi! Here is the **plan**:\n- step one is long enough\n- two')).toEqual(['two']);
  });

  test('code blocks are skipped, and wait until they close', () => {
    const s = new SentenceSplitter();
    const a = 'Run this command now:\n```sh\nnpm start. Then';
    expect(s.push(a)).toEqual(['Run this command now:']);
    const b = `${a}\n\`\`\`\nAnd it works fine. Done`;
    expect(s.push(b)).toEqual(['And it works fine.']);
    expect(s.finish(b)).toEqual(['Done']);
  });
});
