// The probe is a dev-server route that records every request made to it (see server/probe-middleware.mjs):
// a URL under it that must not be fetched proves a leak if it shows up in the hits.
export interface ProbeHit { path: string; query: string }

/** An absolute URL under the probe. */
export function probeUrl(name: string): string {
  return `${location.origin}/api-test/probe/${name}`;
}

export async function probeHits(): Promise<ProbeHit[]> {
  const res = await fetch('/api-test/hits', { cache: 'no-store' });
  return res.json();
}

export async function resetProbe(): Promise<void> {
  await fetch('/api-test/hits', { method: 'DELETE' });
}
