/**
 * Request schemas of the conversations API: the input entries a caller may send (`type` defaults to
 * `message.input`), and the bodies of start, append and restart, as the public API declares them.
 */
import { z } from 'zod';
import { CompletionArgsSchema, GuardrailConfigSchema, ToolSchema, jsonObject, nullable } from '../http/schemas.js';

const TextChunk = z.object({ type: z.literal('text'), text: z.string() });
const ImageUrlChunk = z.object({
  type: z.literal('image_url'),
  image_url: z.union([z.string(), z.object({ url: z.string(), detail: nullable(z.enum(['low', 'auto', 'high'])) })]),
});
const DocumentUrlChunk = z.object({ type: z.literal('document_url'), document_url: z.string(), document_name: nullable(z.string()) });
const ToolFileChunk = z.object({
  type: z.literal('tool_file'), tool: z.string(), file_id: z.string(), file_name: nullable(z.string()), file_type: nullable(z.string()),
});
const ToolReferenceChunk = z.object({
  type: z.literal('tool_reference'), tool: z.string(), title: z.string(),
  url: nullable(z.string()), favicon: nullable(z.string()), description: nullable(z.string()),
});
const ReferenceChunk = z.object({ type: z.literal('reference'), reference_ids: z.array(z.union([z.int(), z.string()])) });
const ThinkingChunk = z.object({
  type: z.literal('thinking'),
  thinking: z.array(z.discriminatedUnion('type', [TextChunk, ToolReferenceChunk, ReferenceChunk])),
  signature: nullable(z.string()),
  closed: z.boolean().optional(),
});
const InputChunk = z.discriminatedUnion('type', [TextChunk, ImageUrlChunk, DocumentUrlChunk, ToolFileChunk, ThinkingChunk]);
const OutputChunk = z.discriminatedUnion('type', [TextChunk, ImageUrlChunk, DocumentUrlChunk, ToolFileChunk, ThinkingChunk, ToolReferenceChunk]);

const entryCommon = {
  object: z.literal('entry').optional(),
  id: z.string().optional(),
  created_at: z.string().optional(),
  completed_at: nullable(z.string()),
};
const MessageInputSchema = z.object({
  ...entryCommon,
  type: z.literal('message.input').optional(),
  role: z.enum(['user', 'assistant']),
  content: z.union([z.string(), z.array(InputChunk)]),
  prefix: z.boolean().optional(),
});
const MessageOutputSchema = z.object({
  ...entryCommon,
  type: z.literal('message.output'),
  role: z.literal('assistant').optional(),
  content: z.union([z.string(), z.array(OutputChunk)]),
  agent_id: nullable(z.string()),
  model: nullable(z.string()),
});
const FunctionCallSchema = z.object({
  ...entryCommon,
  type: z.literal('function.call'),
  tool_call_id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.union([z.string(), jsonObject]),
  agent_id: nullable(z.string()),
  model: nullable(z.string()),
  confirmation_status: nullable(z.enum(['pending', 'allowed', 'denied'])),
});
const FunctionResultSchema = z.object({
  ...entryCommon,
  type: z.literal('function.result'),
  tool_call_id: z.string().min(1),
  result: z.string(),
});
const ToolExecutionSchema = z.object({
  ...entryCommon,
  type: z.literal('tool.execution'),
  name: z.string(),
  arguments: z.string(),
  info: z.record(z.string(), z.unknown()).optional(),
  agent_id: nullable(z.string()),
  model: nullable(z.string()),
});
const AgentHandoffSchema = z.object({
  ...entryCommon,
  type: z.literal('agent.handoff'),
  previous_agent_id: z.string(),
  previous_agent_name: z.string(),
  next_agent_id: z.string(),
  next_agent_name: z.string(),
});

/** One input entry; `type` defaults to `message.input`, so `{role, content}` is enough. */
const InputEntrySchema = z.union([
  MessageInputSchema,
  MessageOutputSchema,
  FunctionCallSchema,
  FunctionResultSchema,
  ToolExecutionSchema,
  AgentHandoffSchema,
]);
const InputsSchema = z.union([z.string(), z.array(InputEntrySchema)]);
export type ParsedInputs = z.output<typeof InputsSchema>;

const HandoffExecution = z.enum(['client', 'server']);
const AgentVersion = z.union([z.int().min(0), z.string().min(1)]);

export const StartConversationSchema = z.object({
  inputs: z.union([z.string(), z.array(InputEntrySchema).min(1)]),
  stream: nullable(z.boolean()),
  store: nullable(z.boolean()),
  handoff_execution: nullable(HandoffExecution),
  instructions: nullable(z.string()),
  tools: nullable(z.array(ToolSchema)),
  completion_args: nullable(CompletionArgsSchema),
  guardrails: nullable(z.array(GuardrailConfigSchema)),
  name: nullable(z.string()),
  description: nullable(z.string()),
  metadata: nullable(jsonObject),
  agent_id: nullable(z.string()),
  agent_version: nullable(AgentVersion),
  model: nullable(z.string()),
});

export const AppendConversationSchema = z.strictObject({
  inputs: InputsSchema.optional(),
  stream: z.boolean().optional(),
  store: z.boolean().optional(),
  handoff_execution: HandoffExecution.optional(),
  completion_args: CompletionArgsSchema.optional(),
  tool_confirmations: nullable(z.array(z.object({ tool_call_id: z.string(), confirmation: z.enum(['allow', 'deny']) }))),
});

export const RestartConversationSchema = z.strictObject({
  inputs: InputsSchema.optional(),
  stream: z.boolean().optional(),
  store: z.boolean().optional(),
  handoff_execution: HandoffExecution.optional(),
  completion_args: CompletionArgsSchema.optional(),
  guardrails: nullable(z.array(GuardrailConfigSchema)),
  metadata: nullable(jsonObject),
  agent_version: nullable(AgentVersion),
  from_entry_id: z.string().min(1),
});
