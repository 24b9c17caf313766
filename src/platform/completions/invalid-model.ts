/** The 400 answer for a model an API cannot serve, in the shape the other model-taking routes use. */
import { genericError } from '../errors.js';

/** 400 `invalid_model` naming the model and why (`why` is one sentence without a final period). */
export function invalidModel(model: string, why: string) {
  return genericError(400, `Invalid model: ${model}. ${why}; GET /v1/models lists the models this platform serves`, 'invalid_model', '1500', 'model');
}
