/**
 * The English words of copy, feedback and sources under replies (reply-actions.ts, sources-view.ts). They
 * come with that code, not with the element's first load; strings.ts lists them in `defaultAgentChatStrings`
 * with the others.
 */
import { counter } from '../internal/locale-format.js';

const count = counter('en');

export const replyActionsEnglish = {
  copyReply: 'Copy',
  copied: 'Copied',
  copyFailed: 'Could not copy: select the text and copy it yourself.',
  goodReply: 'Good reply',
  badReply: 'Bad reply',
  feedbackComment: 'What was wrong? (optional)',
  sendFeedback: 'Send feedback',
  skipFeedback: 'Skip',
  feedbackThanks: 'Thanks for your feedback.',
  sources: (n: number) => `Sources (${count(n, { other: '#' })})`,
  sourcePage: (n: number) => `page ${n}`,
  showInDocument: (n: number) => `Show page ${n} in the document`,
};
