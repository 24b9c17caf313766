/**
 * `GET /v1/models?model&provider` (every kind of model: chat, FIM, embeddings, speech, transcription, OCR,
 * classifiers, then fine-tuned models), `GET /v1/models/{id}` (by id or alias), `DELETE /v1/models/{id}`
 * (fine-tuned models only). Owners (`owned_by`, what `provider` filters on): `mistralai` for the local
 * stand-ins of Mistral's models, `openai-compatible` for the models of a configured OpenAI-compatible
 * server, the workspace id for fine-tuned models (platform/README.md lists every card).
 */
import { Hono } from 'hono';
import type { ModelList } from 'parley-kit/types';
import type { PlatformContext, PlatformEnv } from '../http/context.js';
import { forbidden, notFound } from '../http/errors.js';

export function modelRoutes(ctx: PlatformContext): Hono<PlatformEnv> {
  const app = new Hono<PlatformEnv>();

  app.get('/', (c) => {
    const model = c.req.query('model');
    const provider = c.req.query('provider');
    let data = [...ctx.chat.models(), ...ctx.fim.models(), ...ctx.embeddings.models(), ...ctx.speech.models(), ...ctx.transcription.models(), ...ctx.ocr.models(), ...ctx.classifiers.models()];
    if (model) data = data.filter((m) => m.id === model || m.aliases.includes(model));
    // `provider` names a card's owner (`owned_by`), in any case; one that owns nothing lists nothing.
    if (provider) data = data.filter((m) => m.owned_by.toLowerCase() === provider.trim().toLowerCase());
    return c.json({ object: 'list', data } satisfies ModelList);
  });

  /** A model of any kind (chat, text-to-speech, speech-to-text, OCR, moderation/classifier) by id or alias. */
  const resolve = (id: string) =>
    ctx.chat.resolve(id) ?? ctx.fim.resolve(id) ?? ctx.embeddings.resolve(id) ?? ctx.speech.resolve(id) ?? ctx.transcription.resolve(id) ?? ctx.ocr.resolve(id) ?? ctx.classifiers.resolve(id);

  app.get('/:model_id', (c) => {
    const found = resolve(c.req.param('model_id'));
    if (!found) throw notFound(`Model '${c.req.param('model_id')}' not found`);
    return c.json(found.card);
  });

  app.delete('/:model_id', async (c) => {
    const found = resolve(c.req.param('model_id'));
    if (!found) throw notFound(`Model '${c.req.param('model_id')}' not found`);
    if (await ctx.chat.delete(found.card.id)) return c.json({ id: found.card.id, object: 'model', deleted: true });
    throw forbidden(`Model '${found.card.id}' is a base model of the local platform and cannot be deleted; only fine-tuned models can`);
  });

  return app;
}
