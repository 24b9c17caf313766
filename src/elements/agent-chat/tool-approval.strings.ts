/**
 * The English words of the consent cards (tool-approval.ts). They come with its code, not with the element's
 * first load; strings.ts lists them in `defaultAgentChatStrings` with the others.
 */
export const toolApprovalEnglish = {
  approvalQuestion: (name: string) => `Allow ${name} to run?`,
  approvalAnnouncement: (name: string) => `${name} asks for your permission to run.`,
  allowTool: 'Allow',
  denyTool: 'Deny',
  toolDeclined: (name: string) => `Declined: ${name} did not run.`,
};
