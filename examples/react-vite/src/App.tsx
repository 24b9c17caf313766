// <agent-chat> in React 19: typed by parley-kit/react (attributes, properties and on<event> handlers); React 19
// sets object properties such as `tools` on the element directly, so no wrapper component is needed.
import type {} from 'parley-kit/react';
import type { AgentChat, ClientTool, ParleyReplyFinishedDetail, Tool } from 'parley-kit';
import { useRef, useState } from 'react';

/** A tool the agent can call in the page: the page answers from its own data. */
const tools: Record<string, ClientTool> = {
  get_order_status: ({ order_id }: { order_id: string }) => ({ order_id, status: order_id === '1042' ? 'shipped' : 'unknown' }),
};

/** What a model (without an agent of its own) is told it may call. */
const toolDefinitions: Tool[] = [{
  type: 'function',
  function: {
    name: 'get_order_status',
    description: 'The shipping status of an order of the shop',
    parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
  },
}];

export function App() {
  const chat = useRef<AgentChat>(null);
  const [lastReply, setLastReply] = useState('');
  const replied = (e: CustomEvent<ParleyReplyFinishedDetail>) => setLastReply(e.detail.text.slice(0, 80));
  return (
    <main>
      <h1>Lumen Lamps</h1>
      <p>Ask the assistant about an order: “what is the status of order 1042?”</p>
      <p role="status">{lastReply && `Last reply: ${lastReply}`}</p>
      <button type="button" onClick={() => chat.current?.show()}>Open the chat</button>
      <agent-chat
        ref={chat}
        relay-url="/api"
        mode="launcher"
        heading="Lumen help"
        tools={tools}
        toolDefinitions={toolDefinitions}
        onparley-reply-finished={replied}
      />
    </main>
  );
}
