/**
 * Request schemas several areas share (tools, completion args, guardrails: conversations, agents and
 * completions; query integers), mirroring the public API's request schemas (additionalProperties false where
 * the API declares it). Each area keeps its own request schemas beside its routes. Answers are typed by
 * parley-kit/types.
 */
import { z } from 'zod';

/** An optional field that may also be null. */
export const nullable = <T extends z.ZodType>(s: T) => s.nullable().optional();
/** Any JSON object. */
export const jsonObject = z.record(z.string(), z.unknown());

const ToolConfigurationSchema = z.object({
  exclude: nullable(z.array(z.string())),
  include: nullable(z.array(z.string())),
  requires_confirmation: nullable(z.array(z.string())),
});

const FunctionToolSchema = z.object({
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

/** Query integers arrive as strings. */
export const queryInt = (def: number, min: number, max?: number) => {
  const n = z.coerce.number().int().min(min);
  return (max === undefined ? n : n.max(max)).default(def);
};
