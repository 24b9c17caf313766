/**
 * The observability dataset `parley start` gives the relay for visitors' ratings of replies (`<agent-chat>`'s
 * thumbs): created once, found again by its name. Each rating becomes a record of it (the relay's `feedback`
 * option), which the platform's judge can then evaluate (`POST /v1/observability/dataset-records/{id}/live-judging`).
 */
type Fetch = (request: Request) => Promise<Response>;

/** Name of the demo's feedback dataset. */
export const FEEDBACK_DATASET_NAME = 'Chat feedback';

/** The id of the dataset named {@link FEEDBACK_DATASET_NAME}, created when there is none. */
export async function ensureFeedbackDataset(fetch: Fetch, apiKey: string, origin = 'http://platform.internal'): Promise<string> {
  const call = async (method: string, path: string, body?: unknown): Promise<any> => {
    const res = await fetch(new Request(origin + path, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }));
    if (!res.ok) throw new Error(`demo setup: ${method} ${path} answered ${res.status}: ${await res.text()}`);
    return res.json();
  };
  for (let page = 1; page <= 20; page++) {
    const { datasets } = await call('GET', `/v1/observability/datasets?page_size=100&page=${page}`) as { datasets: { results: Array<{ id: string; name: string }>; next: string | null } };
    const found = datasets.results.find((d) => d.name === FEEDBACK_DATASET_NAME);
    if (found) return found.id;
    if (!datasets.next) break;
  }
  const created = await call('POST', '/v1/observability/datasets', {
    name: FEEDBACK_DATASET_NAME, description: 'Ratings of <agent-chat> replies from the demo pages (thumbs up or down, and the comment)',
  });
  return created.id as string;
}
