/** The page `parley start` serves at `/`: what is running and how to call it. */
export function demoPage({ origin, models }: { origin: string; models: Array<{ id: string; description: string | null }> }): string {
  const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
  const rows = models.map((m) => `<li><code>${esc(m.id)}</code> — ${esc(m.description ?? '')}</li>`).join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Parley — local platform</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 50rem; margin: 2rem auto; padding: 0 1rem; color: #1d1d1f; }
  code, pre { font-family: ui-monospace, monospace; background: #f4f4f5; border-radius: 4px; }
  pre { padding: .75rem; overflow-x: auto; }
</style>
</head>
<body>
<main>
<h1>Parley</h1>
<p>The local platform is serving the platform HTTP API at <code>${esc(origin)}/v1</code>, stored on disk under <code>.parley/</code>.
The widgets (<code>&lt;agent-chat&gt;</code>, <code>&lt;speech-player&gt;</code>, <code>&lt;audio-transcriber&gt;</code>,
<code>&lt;doc-ocr-viewer&gt;</code>) and the token relay are not part of this version yet; this page lists what you can call today.</p>
<h2>Models</h2>
<ul>
${rows}
</ul>
<h2>Try it</h2>
<pre>curl -s ${esc(origin)}/v1/conversations \\
  -H "Authorization: Bearer $PARLEY_API_KEY" -H 'content-type: application/json' \\
  -d '{"model":"parley-local","inputs":"Show me some markdown","stream":true}'</pre>
<pre>import { Mistral } from '@mistralai/mistralai';
const client = new Mistral({ serverURL: '${esc(origin)}', apiKey: process.env.PARLEY_API_KEY });
const res = await client.beta.conversations.start({ model: 'parley-local', inputs: 'Hello' });</pre>
</main>
</body>
</html>
`;
}
