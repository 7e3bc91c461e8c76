// Shared by the heal tests (not a test file): heal bound to the built RepairLoop, and the
// adapters on the official SDK clients pointed at a mock LLM server (tests/mock-llm/).
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";

import { RepairLoop } from "../../pkg/selfheal.js";
import { createHeal, anthropicCaller, openaiCaller } from "../../pkg/heal.mjs";

export const heal = createHeal(RepairLoop);

/** anthropicCaller on an Anthropic client of the mock (no SDK retries), model claude-mock-1. */
export const claudeCaller = (mock, params = {}) => anthropicCaller(
  new Anthropic({ baseURL: mock.anthropicBaseURL, apiKey: "test", maxRetries: 0, timeout: 5000 }),
  { model: "claude-mock-1", max_tokens: 256, ...params },
);

/** openaiCaller on an OpenAI client of the mock (no SDK retries), model gpt-mock-1. */
export const gptCaller = (mock, params = {}) => openaiCaller(
  new OpenAI({ baseURL: mock.openaiBaseURL, apiKey: "test", maxRetries: 0, timeout: 5000 }),
  { model: "gpt-mock-1", ...params },
);
