/**
 * The English words of the conversation list (conversation-list-view.ts). They come with its code, not with
 * the element's first load; strings.ts lists them in `defaultAgentChatStrings` with the others.
 */
export const conversationListEnglish = {
  closeConversations: 'Back to chat',
  noConversations: 'No saved conversations yet.',
  deleteConversation: (title: string) => `Delete conversation: ${title}`,
  untitledConversation: 'Untitled conversation',
};
