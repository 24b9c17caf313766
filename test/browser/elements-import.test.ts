// Importing an element's class module defines nothing and adds no global (architecture rule 3).
import { expect } from '@open-wc/testing';

it('importing the agent-chat class module defines no element and adds no global', async () => {
  const before = new Set(Object.getOwnPropertyNames(window));
  const { AgentChat } = await import('../../src/elements/agent-chat/agent-chat.js');
  expect(AgentChat).to.be.a('function');
  expect(customElements.get('agent-chat')).to.equal(undefined);
  const added = Object.getOwnPropertyNames(window).filter((name) => !before.has(name) && !name.startsWith('litElementVersions') && name !== 'litHtmlVersions' && name !== 'reactiveElementVersions' && name !== 'litIssuedWarnings');
  expect(added).to.deep.equal([]);
});
