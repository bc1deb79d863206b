import type { OpenAPIV3_1 } from 'openapi-types';
import { sample } from 'openapi-sampler';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

type MediaTypes = Record<string, OpenAPIV3_1.MediaTypeObject> | undefined;

/**
 * Fills every request and response body of the document that has no `example` with one sampled
 * from its own schema (enum values, formats, bounds, `examples` hints), so examples can never
 * contradict the schemas they illustrate. A request's example leaves out read-only properties
 * (computed fields), a response's write-only ones. Changes the document in place and returns it.
 */
export function withExamples(document: OpenAPIV3_1.Document): OpenAPIV3_1.Document {
  const fill = (content: MediaTypes, direction: 'request' | 'response') => {
    for (const media of Object.values(content ?? {})) {
      if (media.example !== undefined || media.schema === undefined) continue;
      media.example = sample(media.schema as never, { skipReadOnly: direction === 'request', skipWriteOnly: direction === 'response', quiet: true }, document);
    }
  };
  for (const item of Object.values(document.paths ?? {})) {
    for (const method of METHODS) {
      const operation = item?.[method];
      if (!operation) continue;
      if (operation.requestBody && !('$ref' in operation.requestBody)) fill(operation.requestBody.content, 'request');
      for (const response of Object.values(operation.responses ?? {})) {
        if (!('$ref' in response)) fill(response.content, 'response');
      }
    }
  }
  for (const response of Object.values(document.components?.responses ?? {})) {
    if (!('$ref' in response)) fill(response.content, 'response');
  }
  return document;
}
