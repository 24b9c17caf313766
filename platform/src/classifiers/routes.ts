/**
 * Moderations and classifications of the local platform, served by the classifier engine (engines/classifier/):
 * `POST /v1/moderations`, `/v1/chat/moderations`, `/v1/classifications`, `/v1/chat/classifications`.
 *
 * - Bodies (wire names; the SDK's `inputs` is sent as `input`): text → `{model, input: string | string[], metadata?}`;
 *   chat moderation → `{model, input: Message[] | Message[][]}` (one conversation or several); chat classification →
 *   `{model, input: {messages} | {messages}[]}`. Unknown fields → 422 `extra_forbidden` (the platform's request models
 *   forbid extras); empty texts, lists and conversations → 422. Message content: strings or chunks, of which text
 *   chunks are read.
 * - `model`: a model id or alias with capabilities.moderation (moderations) or capabilities.classification
 *   (classifications): `parley-moderation`, alias `mistral-moderation-latest`/`-2411`/`-2603`. Anything else → 400
 *   `invalid_model`; fine-tuned classifier ids (`ft:…`) are named as such: the local platform has no fine-tuning.
 * - Moderation answer: `{id, model, results:[{categories, category_scores}], usage}`, one result per text or per
 *   conversation, the nine v1 categories each, flagged at {@link FLAG_THRESHOLD}. A conversation is judged on its last
 *   turn in the context of the earlier ones (as the real endpoint).
 * - Classification answer: `{id, model, results:[{<category>: {scores: {flagged, not_flagged}}}], usage}`: the
 *   moderation model exposed as a classifier whose targets are the nine categories, each with two labels.
 * - Size: each text or conversation may hold at most the card's `max_context_length` tokens (8192) → else 400;
 *   the whole body at most the platform's JSON limit (413).
 * - Usage: prompt tokens = tokens of every text read, recorded per request for the admin usage report.
 */
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import type { ModelCard } from 'parley-kit/types';
import { callerOf } from '../http/caller.js';
import type { PlatformContext, PlatformEnv } from '../http/context.js';
import { textChunks } from 'parley-kit/wire';
import { countTokens } from '../engines/text/tokenizer.js';
import {
  FLAG_THRESHOLD,
  MODERATION_CATEGORIES,
  type CategoryScores,
  type ClassificationResult,
  type ClassificationResponse,
  type ClassifierEngine,
  type ClassifierUsage,
  type ModerationResponse,
  type ModerationResult,
} from '../engines/classifier/types.js';
import { badRequest, invalidModel } from '../http/errors.js';
import { completionId, isoNow } from '../http/ids.js';
import { readJson } from '../http/validation.js';

const TextInput = z.string().min(1);

/** A content chunk: any typed chunk is accepted, text chunks must carry their text. */
const Chunk = z.looseObject({ type: z.string(), text: z.unknown().optional() }).superRefine((chunk, ctx) => {
  if (chunk.type === 'text' && typeof chunk.text !== 'string') {
    ctx.addIssue({ code: 'invalid_type', expected: 'string', input: chunk.text, path: ['text'] });
  }
});
const Content = z.union([z.string(), z.array(Chunk)]);

const Message = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: Content }),
  z.object({ role: z.literal('user'), content: Content.nullable() }),
  z.object({ role: z.literal('assistant'), content: Content.nullable().optional() }),
  z.object({ role: z.literal('tool'), content: Content.nullable() }),
]);
type Message = z.output<typeof Message>;
const Conversation = z.array(Message).min(1);

const TextRequestSchema = z.strictObject({
  model: z.string(),
  input: z.union([TextInput, z.array(TextInput).min(1)]),
  metadata: z.record(z.string(), z.unknown()).nullable().optional(),
});

const ChatModerationRequestSchema = z.strictObject({
  model: z.string(),
  input: z.union([Conversation, z.array(Conversation).min(1)]),
});

const InstructRequest = z.strictObject({ messages: Conversation });
const ChatClassificationRequestSchema = z.strictObject({
  model: z.string(),
  input: z.union([InstructRequest, z.array(InstructRequest).min(1)]),
});

type Capability = 'moderation' | 'classification';


/** The text of a message: its string content or its text chunks, one per line. */
function messageText(message: Message): string {
  return message.content == null ? '' : textChunks(message.content).join('\n');
}

const flags = (scores: CategoryScores): ModerationResult => ({
  categories: Object.fromEntries(MODERATION_CATEGORIES.map((c) => [c, scores[c] >= FLAG_THRESHOLD])) as ModerationResult['categories'],
  category_scores: scores,
});

const targets = (scores: CategoryScores): ClassificationResult =>
  Object.fromEntries(MODERATION_CATEGORIES.map((c) => [c, { scores: { flagged: scores[c], not_flagged: 1 - scores[c] } }]));

export function classifierRoutes(ctx: PlatformContext): Hono<PlatformEnv> {
  const app = new Hono<PlatformEnv>();
  const limit = ctx.limits.maxJsonBytes;

  const resolve = (model: string, capability: Capability): { engine: ClassifierEngine; card: ModelCard } => {
    const found = ctx.classifiers.resolve(model);
    if (!found?.card.capabilities[capability]) {
      throw invalidModel(model, {
        kind: `a ${capability} model`,
        capability,
        why: model.startsWith('ft:') ? 'Fine-tuned classifier models are not served: the local platform has no fine-tuning' : undefined,
      });
    }
    return found;
  };

  /**
   * Token counts of the items of a request (a text, or the turns of a conversation): over the model's context
   * length → 400, as the platform answers a prompt too large for its model.
   */
  const measure = (card: ModelCard, items: ReadonlyArray<readonly string[]>): number => {
    let total = 0;
    for (const [index, item] of items.entries()) {
      const tokens = item.reduce((n, t) => n + countTokens(t), 0);
      if (tokens > card.max_context_length) {
        throw badRequest(`Input ${index} contains ${tokens} tokens, too large for model ${card.id} with ${card.max_context_length} maximum context length`, 'input');
      }
      total += tokens;
    }
    return total;
  };

  /** Records the request in the usage ledger and returns its `usage`. */
  const account = async (c: Context, card: ModelCard, endpoint: string, promptTokens: number): Promise<ClassifierUsage> => {
    const caller = callerOf(c);
    await ctx.usage.record({
      userId: caller.userId, workspaceId: caller.workspaceId, model: card.id, endpoint,
      promptTokens, completionTokens: 0, at: isoNow(),
    });
    return { prompt_tokens: promptTokens, completion_tokens: 0, total_tokens: promptTokens, request_count: 1 };
  };

  app.post('/moderations', async (c) => {
    const body = await readJson(c, TextRequestSchema, limit);
    const { engine, card } = resolve(body.model, 'moderation');
    const texts = typeof body.input === 'string' ? [body.input] : body.input;
    const tokens = measure(card, texts.map((t) => [t]));
    const results = texts.map((t) => flags(engine.scoreText(t)));
    const usage = await account(c, card, 'moderations', tokens);
    return c.json({ id: completionId(), model: body.model, results, usage } satisfies ModerationResponse);
  });

  app.post('/chat/moderations', async (c) => {
    const body = await readJson(c, ChatModerationRequestSchema, limit);
    const { engine, card } = resolve(body.model, 'moderation');
    const conversations = isConversationList(body.input) ? body.input : [body.input];
    const turns = conversations.map((conv) => conv.map(messageText));
    const tokens = measure(card, turns);
    const results = turns.map((t) => flags(engine.scoreConversation(t)));
    const usage = await account(c, card, 'chat.moderations', tokens);
    return c.json({ id: completionId(), model: body.model, results, usage } satisfies ModerationResponse);
  });

  app.post('/classifications', async (c) => {
    const body = await readJson(c, TextRequestSchema, limit);
    const { engine, card } = resolve(body.model, 'classification');
    const texts = typeof body.input === 'string' ? [body.input] : body.input;
    const tokens = measure(card, texts.map((t) => [t]));
    const results = texts.map((t) => targets(engine.scoreText(t)));
    const usage = await account(c, card, 'classifications', tokens);
    return c.json({ id: completionId(), model: body.model, results, usage } satisfies ClassificationResponse);
  });

  app.post('/chat/classifications', async (c) => {
    const body = await readJson(c, ChatClassificationRequestSchema, limit);
    const { engine, card } = resolve(body.model, 'classification');
    const requests = Array.isArray(body.input) ? body.input : [body.input];
    const turns = requests.map((r) => r.messages.map(messageText));
    const tokens = measure(card, turns);
    const results = turns.map((t) => targets(engine.scoreConversation(t)));
    const usage = await account(c, card, 'chat.classifications', tokens);
    return c.json({ id: completionId(), model: body.model, results, usage } satisfies ClassificationResponse);
  });

  return app;
}

function isConversationList(input: Message[] | Message[][]): input is Message[][] {
  return Array.isArray(input[0]);
}
