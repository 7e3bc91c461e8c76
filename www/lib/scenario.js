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
