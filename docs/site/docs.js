// The reference pages' only script (a file, for a strict CSP): each live example lists the events its element fires,
// as text (an event's detail is data from the element, never markup).
const MAX_DETAIL = 160;

function describe(event) {
  if (!('detail' in event) || event.detail === null || event.detail === undefined) return event.type;
  let detail;
  try {
    detail = JSON.stringify(event.detail);
  } catch {
    detail = String(event.detail);
  }
  if (detail === undefined) return event.type;
  return `${event.type} ${detail.length > MAX_DETAIL ? `${detail.slice(0, MAX_DETAIL)}…` : detail}`;
}

for (const example of document.querySelectorAll('[data-live-example]')) {
  const log = example.querySelector('.event-log');
  const names = (example.getAttribute('data-events') ?? '').split(' ').filter(Boolean);
  for (const name of names) {
    example.addEventListener(name, (event) => {
      const item = document.createElement('li');
      const code = document.createElement('code');
      code.textContent = describe(event);
      item.append(code);
      log.append(item);
      while (log.children.length > 20) log.firstElementChild.remove();
    });
  }
}
