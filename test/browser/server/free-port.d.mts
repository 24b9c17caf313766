/** A loopback port free now (for a server whose URL must be known before it starts). */
export function freePort(): Promise<number>;
