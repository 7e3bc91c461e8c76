// Inputs for bench/run.mjs: an order-like schema, valid documents of about 0.5 KB and 15 KB, and
// LLM-shaped broken output of about 2 KB and 50 KB. Deterministic (no Math.random), so two runs
// (and two builds) measure the same bytes.

/** An order as a model might be asked for it: required fields, pattern, enum, nested arrays of
 *  objects, additionalProperties: false at every level. Keywords mean the same in draft-07 (Ajv's
 *  default) and 2020-12 (selfheal's and @cfworker/json-schema's setting here). */
export const ORDER_SCHEMA = Object.freeze({
  type: 'object',
  required: ['id', 'status', 'currency', 'customer', 'items', 'total'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', pattern: '^ord_[A-Za-z0-9]{8,}$' },
    status: { enum: ['pending', 'paid', 'shipped', 'delivered', 'cancelled'] },
    currency: { type: 'string', enum: ['USD', 'EUR', 'JPY', 'GBP'] },
    createdAt: { type: 'string', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T' },
    customer: {
      type: 'object',
      required: ['id', 'name', 'email'],
      additionalProperties: false,
      properties: {
        id: { type: 'string', pattern: '^cus_[a-z0-9]+$' },
        name: { type: 'string', minLength: 1 },
        email: { type: 'string', pattern: '^[^@\\s]+@[^@\\s]+$' },
        tier: { enum: ['free', 'pro', 'enterprise'] },
      },
    },
    items: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['sku', 'name', 'quantity', 'unitPrice'],
        additionalProperties: false,
        properties: {
          sku: { type: 'string', pattern: '^[A-Z]{3}-[0-9]{4}$' },
          name: { type: 'string', minLength: 1 },
          quantity: { type: 'integer', minimum: 1 },
          unitPrice: { type: 'number', minimum: 0 },
          tags: { type: 'array', items: { type: 'string' } },
          options: {
            type: 'array',
            items: {
              type: 'object',
              required: ['name', 'value'],
              additionalProperties: false,
              properties: { name: { type: 'string' }, value: { type: 'string' } },
            },
          },
        },
      },
    },
    shipping: {
      type: 'object',
      required: ['method', 'address'],
      additionalProperties: false,
      properties: {
        method: { enum: ['standard', 'express', 'pickup'] },
        address: {
          type: 'object',
          required: ['line1', 'city', 'country'],
          additionalProperties: false,
          properties: {
            line1: { type: 'string' },
            line2: { type: 'string' },
            city: { type: 'string' },
            postalCode: { type: 'string', pattern: '^[0-9A-Z -]{3,10}$' },
            country: { type: 'string', pattern: '^[A-Z]{2}$' },
          },
        },
      },
    },
    total: { type: 'number', minimum: 0 },
    notes: { type: ['string', 'null'] },
  },
});

const WORDS = ['Desk', 'Lamp', 'Cable', 'Chair', 'Mug', 'Notebook', 'Pen', 'Monitor', 'Stand', 'Hub'];
const COLORS = ['black', 'white', 'oak', 'steel', 'red'];

function item(i) {
  return {
    sku: `${['ABC', 'DEF', 'XYZ'][i % 3]}-${String(1000 + ((i * 37) % 9000)).padStart(4, '0')}`,
    name: `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} №${i}`,
    quantity: 1 + (i % 4),
    unitPrice: Math.round(((i * 1931) % 20000) + 99) / 100,
    tags: ['office', COLORS[i % COLORS.length]],
    options: [{ name: 'color', value: COLORS[(i * 3) % COLORS.length] }],
  };
}

/** A valid order with `n` items. */
export function order(n) {
  const items = Array.from({ length: n }, (_, i) => item(i));
  return {
    id: 'ord_7Hq2Lx9PZk',
    status: 'paid',
    currency: 'EUR',
    createdAt: '2025-03-14T09:26:53Z',
    customer: { id: 'cus_4f9a2c', name: 'Ada Lovelace', email: 'ada@example.org', tier: 'pro' },
    items,
    shipping: {
      method: 'express',
      address: { line1: '12 Analytical Row', city: 'London', postalCode: 'NW1 2DB', country: 'GB' },
    },
    total: Math.round(items.reduce((s, it) => s + it.quantity * it.unitPrice, 0) * 100) / 100,
    notes: null,
  };
}

/** Compact JSON text of an order whose size is closest to `bytes`. */
export function orderText(bytes) {
  let n = 1;
  while (JSON.stringify(order(n + 1)).length <= bytes) n++;
  return JSON.stringify(order(n));
}

/**
 * The same order written the way models break it: a ```json fence, unquoted keys, trailing
 * commas, a line comment, Python literals, pretty-printed. No prose outside the fence and no
 * apostrophes inside single-quoted strings: on those jsonrepair 3.15 gives a different value
 * (prose becomes an array of strings; `'it's'` becomes `"it\"s"`), see docs/PERFORMANCE.md.
 */
export function brokenOrderText(bytes) {
  const render = (n) => {
    const o = order(n);
    const lines = ['```json', '{'];
    lines.push(`  id: "${o.id}",`, `  status: '${o.status}',`, `  currency: "${o.currency}",`);
    lines.push(`  createdAt: "${o.createdAt}", // ISO 8601`);
    lines.push(`  customer: { id: "${o.customer.id}", name: "${o.customer.name}", email: "${o.customer.email}", tier: "${o.customer.tier}", },`);
    lines.push('  items: [');
    for (const it of o.items) {
      lines.push(
        `    { sku: "${it.sku}", name: "${it.name}", quantity: ${it.quantity}, unitPrice: ${it.unitPrice}, ` +
          `tags: ["${it.tags[0]}", "${it.tags[1]}",], options: [{ name: "color", value: "${it.options[0].value}", },], },`,
      );
    }
    lines.push('  ],');
    lines.push(`  shipping: { method: "express", address: { line1: "${o.shipping.address.line1}", city: "London", postalCode: "NW1 2DB", country: "GB", }, },`);
    lines.push(`  total: ${o.total},`, '  notes: None,', '  gift: False,', '}', '```', '');
    return lines.join('\n');
  };
  let n = 1;
  while (render(n + 1).length <= bytes) n++;
  return render(n);
}

/** A small schema and reply for the RepairLoop rows (the shape of the README example). */
export const CITY_SCHEMA = Object.freeze({
  type: 'object',
  properties: { city: { type: 'string' }, population: { type: 'integer' } },
  required: ['city'],
  additionalProperties: false,
});
export const CITY_REPLY = '{"city":"Paris","population":2100000}';
export const PROMPT = Object.freeze({
  system: 'Reply with JSON only.',
  user: 'Give the capital of France as {"city": string, "population": integer}.',
});

/**
 * A reply with three ```json fences of about `bytes / 3` each and prose between them, the
 * schema-aligned parsing case (issue 11): the first two hold orders the order schema rejects
 * (a status it does not list, then an id that is a number), the third the valid order. With
 * `first: true` the valid order comes first instead. Returns the reply and the order's text.
 */
export function threeFenceReply(bytes, { first = false } = {}) {
  const valid = orderText(Math.floor(bytes / 3) - 60);
  const o = JSON.parse(valid);
  const blocks = [JSON.stringify({ ...o, status: 'draft' }), JSON.stringify({ ...o, id: 7 }), valid];
  if (first) blocks.unshift(blocks.pop());
  const fence = (b) => '```json\n' + b + '\n```';
  const reply = `Here is a draft first:\n${fence(blocks[0])}\nThen another try:\n${fence(blocks[1])}\n` +
    `And the order you asked for:\n${fence(blocks[2])}\nLet me know if anything is missing.`;
  return { reply, order: valid };
}
