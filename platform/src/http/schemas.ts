/**
 * Request validation for the local platform, mirroring the public API's request schemas
 * (additionalProperties false where the API declares it). Answers are typed by src/client/types.ts.
 */
import { z } from 'zod';

const nullable = <T extends z.ZodType>(s: T) => s.nullable().optional();
const jsonObject = z.record(z.string(), z.unknown());

export const ToolConfigurationSchema = z.object({
  exclude: nullable(z.array(z.string())),
  include: nullable(z.array(z.string())),
  requires_confirmation: nullable(z.array(z.string())),
});

export const FunctionToolSchema = z.object({
  type: z.literal('function'),
  function: z.object({
    name: z.string().min(1).max(256).regex(/^[a-zA-Z0-9_-]+$/, 'Function name may only contain letters, digits, _ and -'),
    description: z.string().optional(),
    strict: z.boolean().optional(),
    parameters: jsonObject,
  }),
});

export const ToolSchema = z.discriminatedUnion('type', [
  FunctionToolSchema,
  z.object({ type: z.literal('web_search'), tool_configuration: nullable(ToolConfigurationSchema) }),
  z.object({ type: z.literal('web_search_premium'), tool_configuration: nullable(ToolConfigurationSchema) }),
  z.object({ type: z.literal('code_interpreter'), tool_configuration: nullable(ToolConfigurationSchema) }),
  z.object({ type: z.literal('image_generation'), tool_configuration: nullable(ToolConfigurationSchema) }),
  z.object({ type: z.literal('document_library'), library_ids: z.array(z.string()).min(1), tool_configuration: nullable(ToolConfigurationSchema) }),
  z.object({
    type: z.literal('connector'),
    connector_id: z.string().min(1),
    authorization: nullable(z.object({ type: z.enum(['oauth2-token', 'api-key']), value: z.string() })),
    tool_configuration: nullable(ToolConfigurationSchema),
  }),
]);

export const ResponseFormatSchema = z.object({
  type: z.enum(['text', 'json_object', 'json_schema']).optional(),
  json_schema: nullable(z.object({
    name: z.string(),
    schema: jsonObject,
    description: nullable(z.string()),
    strict: z.boolean().optional(),
  })),
});

export const CompletionArgsSchema = z.strictObject({
  stop: nullable(z.union([z.string(), z.array(z.string())])),
  presence_penalty: nullable(z.number().min(-2).max(2)),
  frequency_penalty: nullable(z.number().min(-2).max(2)),
  temperature: nullable(z.number().min(0).max(1)),
  top_p: nullable(z.number().min(0).max(1)),
  max_tokens: nullable(z.int().min(0)),
  random_seed: nullable(z.int().min(0)),
  prediction: nullable(z.object({ type: z.literal('content').optional(), content: z.string().optional() })),
  response_format: nullable(ResponseFormatSchema),
  tool_choice: z.enum(['auto', 'none', 'any', 'required']).optional(),
  reasoning_effort: nullable(z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh'])),
});

const moderationConfig = z.object({
  model_name: z.string().optional(),
  custom_category_thresholds: nullable(z.record(z.string(), z.number().nullable())),
  ignore_other_categories: z.boolean().optional(),
  action: z.enum(['none', 'block']).optional(),
});
export const GuardrailConfigSchema = z.object({
  block_on_error: z.boolean().optional(),
  moderation_llm_v1: nullable(moderationConfig),
  moderation_llm_v2: nullable(moderationConfig),
});

// ---------------------------------------------------------------- conversation inputs

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
export const MessageInputSchema = z.object({
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
export const FunctionResultSchema = z.object({
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
export const InputEntrySchema = z.union([
  MessageInputSchema,
  MessageOutputSchema,
  FunctionCallSchema,
  FunctionResultSchema,
  ToolExecutionSchema,
  AgentHandoffSchema,
]);
export const InputsSchema = z.union([z.string(), z.array(InputEntrySchema)]);
export type ParsedInputs = z.output<typeof InputsSchema>;
export type ParsedInputEntry = z.output<typeof InputEntrySchema>;

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

// ---------------------------------------------------------------- agents

const agentFields = {
  instructions: nullable(z.string()),
  tools: z.array(ToolSchema).optional(),
  completion_args: CompletionArgsSchema.optional(),
  guardrails: nullable(z.array(GuardrailConfigSchema)),
  description: nullable(z.string()),
  handoffs: nullable(z.array(z.string()).min(1)),
  metadata: nullable(jsonObject),
  version_message: nullable(z.string().max(500)),
};
export const CreateAgentSchema = z.strictObject({
  model: z.string().min(1),
  name: z.string().min(1),
  ...agentFields,
});
export const UpdateAgentSchema = z.strictObject({
  model: nullable(z.string().min(1)),
  name: nullable(z.string().min(1)),
  ...agentFields,
  deployment_chat: nullable(z.boolean()),
});

/** Query integers arrive as strings. */
export const queryInt = (def: number, min: number, max?: number) => {
  const n = z.coerce.number().int().min(min);
  return (max === undefined ? n : n.max(max)).default(def);
};

const OcrResponseFormatSchema = z.object({ type: z.string(), json_schema: nullable(jsonObject) });

/** `POST /v1/ocr` (OCRRequest, additionalProperties false). */
export const OcrRequestSchema = z.strictObject({
  model: z.string().min(1).nullable(),
  id: z.string().optional(),
  document: z.discriminatedUnion('type', [
    z.object({ type: z.literal('document_url'), document_url: z.string().min(1), document_name: nullable(z.string()) }),
    z.object({ type: z.literal('image_url'), image_url: z.union([z.string().min(1), z.object({ url: z.string().min(1), detail: nullable(z.string()) })]) }),
    z.object({ type: z.literal('file'), file_id: z.string().min(1) }),
  ]),
  pages: nullable(z.union([z.string(), z.array(z.number().int().min(0))])),
  include_image_base64: nullable(z.boolean()),
  image_limit: nullable(z.number().int().min(0)),
  image_min_size: nullable(z.number().int().min(0)),
  bbox_annotation_format: nullable(OcrResponseFormatSchema),
  document_annotation_format: nullable(OcrResponseFormatSchema),
  document_annotation_prompt: nullable(z.string()),
  table_format: nullable(z.enum(['markdown', 'html'])),
  extract_header: z.boolean().optional(),
  extract_footer: z.boolean().optional(),
  include_blocks: z.boolean().optional(),
  confidence_scores_granularity: nullable(z.enum(['word', 'page', 'block'])),
});
export type OcrRequestBody = z.output<typeof OcrRequestSchema>;
