/**
 * The shop demo's orders (Lumen Lamps): fixed data, so the demo and its tests answer the same every time.
 */

export interface DemoOrder {
  order_id: string;
  status: 'processing' | 'shipped' | 'delivered' | 'cancelled';
  items: string[];
  total_eur: number;
  carrier: string | null;
  tracking_number: string | null;
  /** Expected (shipped) or actual (delivered) delivery day, ISO date. */
  delivery_date: string | null;
}

export const DEMO_ORDERS: readonly DemoOrder[] = [
  { order_id: '1041', status: 'delivered', items: ['Aurora desk lamp'], total_eur: 89, carrier: 'ColisExpress', tracking_number: 'CE-88120041', delivery_date: '2026-11-12' },
  { order_id: '1042', status: 'shipped', items: ['Halo floor lamp', 'Warm bulb E27 (2x)'], total_eur: 214, carrier: 'ColisExpress', tracking_number: 'CE-88120042', delivery_date: '2026-11-26' },
  { order_id: '1043', status: 'processing', items: ['Nook wall light'], total_eur: 129, carrier: null, tracking_number: null, delivery_date: null },
  { order_id: '1044', status: 'cancelled', items: ['Lumen pendant'], total_eur: 159, carrier: null, tracking_number: null, delivery_date: null },
];

/** The order with this number; `#1042`, `A-1042` and ` 1042 ` all name order 1042. */
export function findDemoOrder(orderId: string): DemoOrder | null {
  const digits = orderId.match(/\d+/)?.[0];
  return DEMO_ORDERS.find((o) => o.order_id === digits) ?? null;
}
