// Importing an element's class module defines nothing and adds no global (architecture rule 3).
import { expect } from '@open-wc/testing';

const LIT_GLOBALS = (name: string) => name.startsWith('litElementVersions') || ['litHtmlVersions', 'reactiveElementVersions', 'litIssuedWarnings'].includes(name);

const modules: Array<[tag: string, load: () => Promise<Record<string, unknown>>, exportName: string]> = [
  ['agent-chat', () => import('../../src/elements/agent-chat/agent-chat.js'), 'AgentChat'],
  ['audio-transcriber', () => import('../../src/elements/audio-transcriber/audio-transcriber.js'), 'AudioTranscriber'],
  ['doc-ocr-viewer', () => import('../../src/elements/doc-ocr-viewer/doc-ocr-viewer.js'), 'DocOcrViewer'],
];

for (const [tag, load, exportName] of modules) {
  it(`importing the ${tag} class module defines no element and adds no global`, async () => {
    const before = new Set(Object.getOwnPropertyNames(window));
    const module = await load();
    expect(module[exportName]).to.be.a('function');
    expect(customElements.get(tag)).to.equal(undefined);
    const added = Object.getOwnPropertyNames(window).filter((name) => !before.has(name) && !LIT_GLOBALS(name));
    expect(added).to.deep.equal([]);
  });
}
