/**
 * The English words of the attachment tray (attachment-tray.ts). They come with its code, not with the
 * element's first load; strings.ts lists them in `defaultAgentChatStrings` with the others.
 */
import { counter, fileSizeIn } from '../internal/locale-format.js';

const count = counter('en');
const fileSize = fileSizeIn('en');

export const attachmentTrayEnglish = {
  attachmentsLabel: 'Attached files',
  attachedImage: 'Attached image',
  removeAttachment: (name: string) => `Remove ${name}`,
  attachmentAdded: (name: string) => `${name} attached`,
  attachmentRemoved: (name: string) => `${name} removed`,
  fileSize,
  attachmentTooLarge: (name: string, size: number, limit: number) => `${name} is ${fileSize(size)}; the limit is ${fileSize(limit)}.`,
  attachmentWrongType: (name: string, types: string) => `${name} can’t be attached: accepted types are ${types}.`,
  attachmentTooMany: (name: string, limit: number) => `${name} wasn’t attached: ${count(limit, { one: 'one file', other: '# files' })} per message at most.`,
  attachmentUnreadable: (name: string) => `${name} could not be read.`,
};
