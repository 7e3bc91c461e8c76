// The example task every panel shares: extract an order as JSON (the same as examples/demo.mjs).

export const ORDER_SCHEMA = {
  type: "object",
  required: ["orderId", "items", "total"],
  additionalProperties: false,
  properties: {
    orderId: { type: "string", pattern: "^ORD-[0-9]{4}$" },
    items: {
      type: "array",
      minItems: 1,
      items: {
        type: "object",
        required: ["sku", "qty", "price"],
        properties: { sku: { type: "string" }, qty: { type: "integer", minimum: 1 }, price: { type: "number" } },
      },
    },
    total: { type: "number" },
  },
};

export const ORDER_PROMPT = {
  system: "You extract orders as JSON matching the schema. Reply with JSON only.",
  user: "Order ORD-1042: two mugs at 12.50 each and one teapot at 30.",
};

export const ALTERNATE_PROMPT = {
  system: "You extract orders as JSON. Work step by step: list each item with its quantity and unit price, then add up the total. Reply with the JSON only.",
  user: ORDER_PROMPT.user,
};

export const GOOD_ORDER = {
  orderId: "ORD-1042",
  items: [
    { sku: "mug", qty: 2, price: 12.5 },
    { sku: "teapot", qty: 1, price: 30 },
  ],
  total: 55,
};

export const GOOD_TEXT = JSON.stringify(GOOD_ORDER);

// The streamed scenario (`make demo`'s fifth, the Streaming panel): the model streams an order
// whose third field, `total`, is a string. The violation is definitive the moment that string
// closes ("55.00 EUR" can never become a number), so the host cuts the stream there, and the
// notes the model was about to write are never generated or paid for. One fix prompt heals it.
export const STREAM_BAD_TEXT =
  '{"orderId": "ORD-1042", "items": [{"sku": "mug", "qty": 2, "price": 12.5}, ' +
  '{"sku": "teapot", "qty": 1, "price": 30}], "total": "55.00 EUR", ' +
  '"notes": "Two mugs at 12.50 each come to 25.00 and the teapot is 30.00, so the order comes to ' +
  '55.00 in all, in euros; shipping is not included and will be quoted separately."}';

/** Characters per streamed chunk: about three tokens, as providers send them. */
export const STREAM_CHUNK_CHARS = 12;

/** `text` in pieces of `size` UTF-16 units, never splitting a surrogate pair. */
export function chunks(text, size) {
  const out = [];
  for (let i = 0; i < text.length; ) {
    let end = Math.min(i + size, text.length);
    if (end < text.length && /[\uD800-\uDBFF]/.test(text[end - 1])) end += 1;
    out.push(text.slice(i, end));
    i = end;
  }
  return out;
}
