// The public browser entry must be safe to import anywhere: no element defined, no global touched.
const expect = (ok: boolean, message: string) => {
  if (!ok) throw new Error(message);
};

it('importing the public entry defines no custom element and adds no global', async () => {
  const before = new Set(Object.getOwnPropertyNames(window));
  await import('../../src/index.js');
  // Lit's own version registries are the only globals allowed (lit writes them when first imported).
  const lit = new Set(['litElementVersions', 'litHtmlVersions', 'reactiveElementVersions', 'litIssuedWarnings', 'litPropertyMetadata']);
  const added = Object.getOwnPropertyNames(window).filter((name) => !before.has(name) && !lit.has(name));
  expect(added.length === 0, `globals added: ${added.join(', ')}`);
  for (const tag of ['agent-chat', 'speech-player', 'audio-transcriber', 'doc-ocr-viewer']) {
    expect(customElements.get(tag) === undefined, `${tag} was defined by importing the entry`);
  }
});
