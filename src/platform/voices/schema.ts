/** Database migrations of this area, applied in order once each; never edit a shipped entry, add a new one. */
export const MIGRATIONS: string[] = [];
