/**
 * The English words of the search bar (search-bar.ts). They come with its code, not with the element's first
 * load; strings.ts lists them in `defaultAgentChatStrings` with the others.
 */
import { counter } from '../internal/locale-format.js';

const count = counter('en');

export const searchBarEnglish = {
  searchLabel: 'Search messages',
  searchPrevious: 'Previous match',
  searchNext: 'Next match',
  closeSearch: 'Close search',
  searchMatches: (current: number, total: number) => `${count(current, { other: '#' })} of ${count(total, { one: '# match', other: '# matches' })}`,
  searchNoMatches: 'No matches',
};
