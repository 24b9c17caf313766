// The page's side of <agent-chat>: a tool the agent can call in the page, and a handler for finished replies.
const chat = document.getElementById('chat');

// Tools are functions in the page; their definitions tell a model (without an agent) what it may call.
chat.tools = {
  get_order_status: ({ order_id }) => ({ order_id, status: order_id === '1042' ? 'shipped' : 'unknown' }),
};
chat.toolDefinitions = [{
  type: 'function',
  function: {
    name: 'get_order_status',
    description: 'The shipping status of an order of the shop',
    parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
  },
}];

chat.addEventListener('parley-reply-finished', (event) => {
  // The reply is text from the platform: shown as text, never as HTML.
  document.getElementById('last-reply').textContent = `Last reply: ${event.detail.text.slice(0, 80)}`;
});
