/**
 * Live judging: a judge (instructions + an output definition) reads a conversation and answers
 * `{analysis, answer}`, run on the platform's chat engines. The engine is asked for a JSON object through
 * `response_format: json_schema` whose `answer` is constrained to the judge's option values
 * (CLASSIFICATION) or its [min, max] range (REGRESSION), at temperature 0 so the same input gives the
 * same verdict. The answer is checked again here: an engine that ignores the schema is an error of the
 * engine (502), never a verdict outside the judge's definition.
 */
import { z } from 'zod';
import type { ChatEngine } from '../engines/chat/types.js';
import type { MessageInputEntry } from 'parley-kit/types';
import { isoNow, newId } from '../http/ids.js';
import { ObservabilityHttpError } from './errors.js';

export const JudgeOutputSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('CLASSIFICATION'),
    options: z.array(z.object({ value: z.string().min(1), description: z.string() })).min(1)
      .refine((o) => new Set(o.map((x) => x.value)).size === o.length, 'Option values must be unique'),
  }),
  z.object({
    type: z.literal('REGRESSION'),
    min: z.number().default(0),
    min_description: z.string(),
    max: z.number().default(1),
    max_description: z.string(),
  }).refine((r) => r.min < r.max, { message: 'min must be less than max', path: ['max'] }),
]);

/** A judge's definition: the body of create/update, and `judge_definition` of record live judging. */
export const JudgeDefinitionSchema = z.object({
  name: z.string().min(1).max(100),
  description: z.string().max(1000),
  model_name: z.string().min(1),
  output: JudgeOutputSchema,
  instructions: z.string().min(1),
  tools: z.array(z.string()),
});
export type JudgeDefinition = z.output<typeof JudgeDefinitionSchema>;

/** A message of the conversation judged: chat-completion style, `content` a string or content chunks. */
export const JudgedMessageSchema = z.looseObject({
  role: z.string().min(1),
  content: z.union([z.string(), z.array(z.record(z.string(), z.unknown())), z.null()]).optional(),
});
export type JudgedMessage = z.output<typeof JudgedMessageSchema>;

export interface JudgeVerdict { analysis: string; answer: string | number }

/** Content as the judge reads it: unlike `contentText`, a chunk without text stays visible as `[its type]`. */
function judgedContent(content: JudgedMessage['content']): string {
  if (content == null) return '';
  if (typeof content === 'string') return content;
  return content.map((chunk) => (typeof chunk.text === 'string' ? chunk.text : `[${String(chunk.type ?? 'content')}]`)).join('');
}

/** The conversation as the judge reads it: one `[role] text` block per message, then the properties. */
export function transcript(messages: readonly JudgedMessage[], properties: Record<string, unknown> | null | undefined): string {
  const lines = messages.map((m) => `[${m.role}] ${judgedContent(m.content)}`);
  if (properties && Object.keys(properties).length) lines.push('', `Properties: ${JSON.stringify(properties)}`);
  return lines.join('\n');
}

function instructionsFor(judge: JudgeDefinition): string {
  const output = judge.output;
  const scale = output.type === 'CLASSIFICATION'
    ? `"answer" must be exactly one of these values:\n${output.options.map((o) => `- ${o.value}: ${o.description}`).join('\n')}`
    : `"answer" must be a number from ${output.min} (${output.min_description}) to ${output.max} (${output.max_description}).`;
  return `${judge.instructions}\n\nYou are the judge "${judge.name}". Read the conversation the user gives you and reply with a JSON object `
    + `{"analysis": <your reasoning>, "answer": <your verdict>}. ${scale}`;
}

function answerSchema(judge: JudgeDefinition): Record<string, unknown> {
  const output = judge.output;
  return output.type === 'CLASSIFICATION'
    ? { type: 'string', enum: output.options.map((o) => o.value) }
    : { type: 'number', minimum: output.min, maximum: output.max };
}

/** The verdict of `judge` on a conversation, produced by `engine` (serving `judge.model_name`). */
export async function judgeConversation(
  engine: ChatEngine,
  judge: JudgeDefinition,
  messages: readonly JudgedMessage[],
  properties: Record<string, unknown> | null | undefined,
  signal: AbortSignal,
): Promise<JudgeVerdict> {
  const input: MessageInputEntry = {
    object: 'entry', type: 'message.input', id: newId('msg'), created_at: isoNow(), role: 'user', content: transcript(messages, properties),
  };
  let text = '';
  for await (const event of engine.run({
    model: judge.model_name,
    instructions: instructionsFor(judge),
    history: [input],
    tools: [],
    completionArgs: {
      temperature: 0,
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'judge_verdict',
          strict: true,
          schema: {
            type: 'object',
            properties: { analysis: { type: 'string', description: 'Why this verdict' }, answer: answerSchema(judge) },
            required: ['analysis', 'answer'],
            additionalProperties: false,
          },
        },
      },
    },
    handoffs: [],
    agent: null,
    signal,
  })) {
    if (event.kind === 'text') text += event.delta;
  }
  return checkVerdict(judge, text);
}

function checkVerdict(judge: JudgeDefinition, text: string): JudgeVerdict {
  const engineError = (why: string) =>
    new ObservabilityHttpError(502, `The judge's model '${judge.model_name}' ${why}: ${text.slice(0, 200)}`, 'JUDGE_MISTRAL_API_ERROR');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw engineError('did not answer with JSON');
  }
  const { analysis, answer } = (value ?? {}) as { analysis?: unknown; answer?: unknown };
  if (typeof analysis !== 'string') throw engineError('answered without an "analysis" string');
  const output = judge.output;
  if (output.type === 'CLASSIFICATION') {
    if (typeof answer !== 'string' || !output.options.some((o) => o.value === answer)) throw engineError('answered a value that is not one of the options');
  } else if (typeof answer !== 'number' || answer < output.min || answer > output.max) {
    throw engineError(`answered outside [${output.min}, ${output.max}]`);
  }
  return { analysis, answer };
}
