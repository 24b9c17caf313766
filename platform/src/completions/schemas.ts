/**
 * Request validation for the stateless completion APIs (`/v1/chat/completions`, `/v1/fim/completions`,
 * `/v1/agents/completions`), mirroring the public request schemas; failures become 422 `detail` lists.
 */
import { z } from 'zod';
import { ResponseFormatSchema, ToolSchema, nullable } from '../http/schemas.js';

const TextChunk = z.object({ type: z.literal('text'), text: z.string() });
const ThinkingChunk = z.object({
  type: z.literal('thinking'),
  thinking: z.array(TextChunk),
  signature: nullable(z.string()),
  closed: z.boolean().optional(),
});
const ImageUrlChunk = z.object({
  type: z.literal('image_url'),
  image_url: z.union([z.string(), z.object({ url: z.string(), detail: nullable(z.enum(['low', 'auto', 'high'])) })]),
});
const DocumentUrlChunk = z.object({ type: z.literal('document_url'), document_url: z.string(), document_name: nullable(z.string()) });

/** Content chunks the chat engines can read (file, audio and reference chunks are refused: no engine reads them). */
const ContentChunk = z.discriminatedUnion('type', [TextChunk, ImageUrlChunk, DocumentUrlChunk, ThinkingChunk]);
const Content = z.union([z.string(), z.array(ContentChunk)]);

const ToolCallSchema = z.object({
  id: z.string().optional(),
  type: z.literal('function').optional(),
  function: z.object({ name: z.string().min(1), arguments: z.union([z.string(), z.record(z.string(), z.unknown())]) }),
  index: z.int().optional(),
});

export const ChatMessageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: z.union([z.string(), z.array(z.discriminatedUnion('type', [TextChunk, ThinkingChunk]))]) }),
  z.object({ role: z.literal('user'), content: Content.nullable() }),
  z.object({
    role: z.literal('assistant'),
    content: nullable(Content),
    tool_calls: nullable(z.array(ToolCallSchema)),
    prefix: z.boolean().optional(),
  }),
  z.object({ role: z.literal('tool'), content: Content.nullable(), tool_call_id: nullable(z.string()), name: nullable(z.string()) }),
]);
export type ChatMessage = z.output<typeof ChatMessageSchema>;

/** `tool_choice`: a mode, or one function the model must call. */
const ToolChoiceSchema = z.union([
  z.enum(['auto', 'none', 'any', 'required']),
  z.object({ type: z.literal('function').optional(), function: z.object({ name: z.string().min(1) }) }),
]);

/** Sampling fields shared by chat, FIM and agent completions (ranges as the public API declares them). */
const sampling = {
  max_tokens: nullable(z.int().min(0)),
  stream: z.boolean().optional(),
  stop: nullable(z.union([z.string(), z.array(z.string())])),
  random_seed: nullable(z.int().min(0)),
  metadata: nullable(z.record(z.string(), z.unknown())),
  prompt_cache_key: nullable(z.string()),
};

/** Fields of chat and agent completions (everything but model/agent and the sampling knobs agents don't take). */
const conversational = {
  ...sampling,
  messages: z.array(ChatMessageSchema).min(1),
  response_format: nullable(ResponseFormatSchema),
  tools: nullable(z.array(ToolSchema)),
  tool_choice: ToolChoiceSchema.optional(),
  presence_penalty: nullable(z.number().min(-2).max(2)),
  frequency_penalty: nullable(z.number().min(-2).max(2)),
  /** Several choices per request; capped so one request cannot ask for unbounded work. */
  n: nullable(z.int().min(1).max(8)),
  prediction: nullable(z.object({ type: z.literal('content').optional(), content: z.string().optional() })),
  parallel_tool_calls: z.boolean().optional(),
  reasoning_effort: nullable(z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh'])),
  prompt_mode: nullable(z.enum(['reasoning'])),
  guardrails: nullable(z.array(z.record(z.string(), z.unknown()))),
  service_tier: nullable(z.string()),
};

export const ChatCompletionRequestSchema = z.object({
  model: z.string().min(1),
  temperature: nullable(z.number().min(0).max(1.5)),
  top_p: nullable(z.number().min(0).max(1)),
  safe_prompt: z.boolean().optional(),
  ...conversational,
});
export type ChatCompletionRequest = z.output<typeof ChatCompletionRequestSchema>;

export const AgentsCompletionRequestSchema = z.object({
  agent_id: z.string().min(1),
  ...conversational,
});
export type AgentsCompletionRequest = z.output<typeof AgentsCompletionRequestSchema>;

export const FimCompletionRequestSchema = z.object({
  model: z.string().min(1),
  temperature: nullable(z.number().min(0).max(1.5)),
  top_p: nullable(z.number().min(0).max(1)),
  ...sampling,
  prompt: z.string(),
  suffix: nullable(z.string()),
  min_tokens: nullable(z.int().min(0)),
});
