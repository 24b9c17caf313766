// Demo wiring: the agent ids come from the server (it created the demo agents), and the
// order-status tool runs here, in the page, when the agent calls it.
const config = await fetch('/demo-config.json').then((r) => r.json());

const orders = {
  1042: { status: 'shipped', carrier: 'PostNord', eta: '2 days' },
  1043: { status: 'being packed', eta: '4 days' },
};

// The order tracker's tools run on the platform (an MCP connector): no page tools, its own agent.
const tracker = document.querySelector('agent-chat[data-demo-agent="orders"]');
if (tracker) {
  if (config.ordersAgentId) tracker.setAttribute('agent-id', config.ordersAgentId);
  else {
    tracker.hidden = true;
    document.querySelector('#orders-unavailable').hidden = false;
  }
}

for (const chat of document.querySelectorAll('agent-chat:not([data-demo-agent])')) {
  if (config.agentId) chat.setAttribute('agent-id', config.agentId);
  else if (config.model) chat.setAttribute('model', config.model);
  chat.tools = {
    get_order_status: ({ order_id }) => orders[String(order_id).replace(/\D/g, '')] ?? { error: `No order ${order_id}` },
    // Runs only once the visitor allows it: the chat shows the call with Allow and Deny first.
    cancel_order: Object.assign(({ order_id }) => {
      const order = orders[String(order_id).replace(/\D/g, '')];
      if (!order) return { error: `No order ${order_id}` };
      order.status = 'cancelled';
      return { order_id: String(order_id), status: 'cancelled' };
    }, { requiresApproval: true }),
  };
}

// Gallery only: the speech player speaks the textarea, and the chat can speak its replies.
const player = document.querySelector('speech-player');
const text = document.querySelector('#speech-text');
if (player && text) {
  player.setAttribute('text', text.value);
  text.addEventListener('input', () => player.setAttribute('text', text.value));
}
document.querySelector('#speak-replies')?.addEventListener('change', (event) => {
  document.querySelector('agent-chat')?.toggleAttribute('speak-replies', event.target.checked);
});
