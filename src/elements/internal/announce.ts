/**
 * Text for an element's polite live region. Screen readers say a live region again only when its text
 * changes, so the same message twice in a row gets a no-break space added.
 */
export function nextAnnouncement(current: string, message: string): string {
  return message === current ? `${message}\u00a0` : message;
}
