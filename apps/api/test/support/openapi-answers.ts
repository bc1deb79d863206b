import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { OpenAPIV3_1 } from 'openapi-types';
import { buildOpenApiDocument } from '../../src/public-api/openapi-document';
import { bindRoutes } from '../../src/public-api/route-binding';
import { PUBLIC_API_PREFIX, PUBLIC_ROUTES } from '../../src/public-api/route-table';
import type { TestApi } from './test-api';

type Document = OpenAPIV3_1.Document;
type Operation = OpenAPIV3_1.OperationObject;
type ResponseObject = OpenAPIV3_1.ResponseObject;
type HeaderObject = OpenAPIV3_1.HeaderObject;

/** What was asked: the method and the path below /api/v1, query included. */
export interface AskedFor {
  method: string;
  path: string;
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** `#/components/<kind>/<name>` to the object it names. */
function resolved<T>(document: Document, node: T | OpenAPIV3_1.ReferenceObject): T {
  if (node === null || typeof node !== 'object' || !('$ref' in node)) return node as T;
  const [, kind, name] = /^#\/components\/([^/]+)\/(.+)$/.exec(node.$ref) ?? [];
  const target = (document.components as Record<string, Record<string, unknown>> | undefined)?.[kind]?.[name];
  if (target === undefined) throw new Error(`The document refers to ${node.$ref}, which it does not hold`);
  return resolved(document, target as T);
}

const pointerSegment = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * The document's path for a concrete one: an exact path first (the typed `/models/<key>/records`),
 * else a templated one whose `{name}` segments take any one segment.
 */
function documentedPath(document: Document, path: string): string | undefined {
  const paths = Object.keys(document.paths ?? {});
  if (paths.includes(path)) return path;
  const segments = path.split('/');
  return paths.find((template) => {
    const parts = template.split('/');
    return parts.length === segments.length && parts.every((part, index) => /^\{[^}]+\}$/.test(part) ? segments[index] !== '' : part === segments[index]);
  });
}

/** The OpenAPI 3.0 `nullable` as 3.1 says it, so a schema in either dialect validates as it means. */
function withoutNullable(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutNullable);
  if (node === null || typeof node !== 'object') return node;
  const { nullable, ...rest } = node as Record<string, unknown>;
  // A boolean only: a property (a field key) named `nullable` holds a schema and stays.
  if (typeof nullable !== 'boolean') return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, withoutNullable(value)]));
  const mapped = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, withoutNullable(value)]));
  if (!nullable) return mapped;
  if (typeof mapped['type'] === 'string') return { ...mapped, type: [mapped['type'], 'null'] };
  return { anyOf: [mapped, { type: 'null' }] };
}

/** One Ajv per document (schemas are compiled by JSON pointer into it, `$ref`s to components included). */
class DocumentSchemas {
  private readonly ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: true });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(document: Document) {
    addFormats(this.ajv);
    this.ajv.addSchema(withoutNullable(document) as object, 'openapi');
  }

  /** Problems of `value` against the schema at `pointer` (a JSON pointer into the document). */
  problems(pointer: string, value: unknown): string[] {
    let validate = this.compiled.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `openapi#${pointer}` });
      this.compiled.set(pointer, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).slice(0, 8).map((error) => `${error.instancePath || '(root)'} ${error.message ?? error.keyword} ${JSON.stringify(error.params)}`);
  }
}

/**
 * Compiled schemas by document content: every key of an organization reads the same document, and
 * compiling it again for each would add to the time between requests that rate-limit tests measure.
 */
const schemasByContent = new Map<string, DocumentSchemas>();
const schemasOf = new WeakMap<Document, DocumentSchemas>();
const schemas = (document: Document) => {
  let found = schemasOf.get(document);
  if (found) return found;
  const content = JSON.stringify(document);
  found = schemasByContent.get(content) ?? new DocumentSchemas(document);
  schemasByContent.set(content, found);
  schemasOf.set(document, found);
  return found;
};

/** A header's text as the value its schema types (an integer header is a number). */
function headerValue(text: string, schema: OpenAPIV3_1.SchemaObject | undefined): unknown {
  const type = schema?.type;
  return (type === 'integer' || type === 'number') && /^-?[0-9]+(\.[0-9]+)?$/.test(text) ? Number(text) : text;
}

/** The media types of answers written as streams (an export), and not as one JSON document. */
const STREAMED_MEDIA = new Set(['text/csv', 'application/x-ndjson']);

/**
 * A streamed body against its schema: each NDJSON line as a JSON value of the schema; CSV as
 * text (its schema is a string) whose every line ends with CRLF.
 */
function streamedBodyProblems(set: DocumentSchemas, mediaType: string, pointer: string, text: string): string[] {
  if (mediaType === 'text/csv') {
    const problems = set.problems(pointer, text).map((problem) => `body: ${problem}`);
    if (!text.endsWith('\r\n')) problems.push('the CSV does not end with CRLF');
    return problems;
  }
  if (text !== '' && !text.endsWith('\n')) return ['the NDJSON does not end with a line break'];
  return text
    .split('\n')
    .slice(0, -1)
    .flatMap((line, index) => {
      try {
        return set.problems(pointer, JSON.parse(line)).map((problem) => `line ${index + 1}: ${problem}`);
      } catch {
        return [`line ${index + 1} is not JSON`];
      }
    });
}

/** The pointer of a response, by its `$ref` when it has one (so compiled schemas are shared). */
function responsePointer(operationPointer: string, status: string, response: ResponseObject | OpenAPIV3_1.ReferenceObject): string {
  if ('$ref' in response) return response.$ref.slice(1);
  return `${operationPointer}/responses/${status}`;
}

/**
 * Everything in `answer` the document does not describe for the request: a status it does not
 * list, a documented header missing (when required) or malformed, a body (or its absence) that
 * its response does not allow. A request to a path or method the document has no operation for
 * must still be an error in the document's Error shape. Empty when the answer is exact.
 */
export async function answerProblems(document: Document, asked: AskedFor, answer: Response): Promise<string[]> {
  const text = await answer.clone().text();
  const problems: string[] = [];
  const contentType = answer.headers.get('content-type') ?? '';
  const mediaType = contentType.split(';')[0].trim().toLowerCase();
  // A streamed export (CSV, NDJSON) is checked against its own media type below; any other body is JSON.
  const streamed = STREAMED_MEDIA.has(mediaType);
  let body: unknown;
  if (text !== '' && !streamed) {
    if (mediaType !== 'application/json') problems.push(`the body is ${contentType || 'untyped'}, not application/json`);
    try {
      body = JSON.parse(text);
    } catch {
      return [...problems, 'the body is not JSON'];
    }
  }
  const url = new URL(asked.path, 'http://api.invalid');
  const method = asked.method.toLowerCase();
  const path = documentedPath(document, url.pathname);
  const operation: Operation | undefined = path !== undefined && METHODS.has(method) ? (document.paths?.[path] as Record<string, Operation>)[method] : undefined;
  const set = schemas(document);

  if (!operation) {
    // No operation: nothing to describe but the refusal, which must be an error like any other.
    if (answer.status < 400) problems.push(`${answer.status} to a request the document has no operation for`);
    if (method !== 'head' && answer.status !== 204) problems.push(...set.problems('/components/schemas/Error', body).map((problem) => `Error body: ${problem}`));
    return problems;
  }

  const operationPointer = `/paths/${pointerSegment(path!)}/${method}`;
  const status = String(answer.status);
  const listed = operation.responses?.[status] ?? operation.responses?.[`${status[0]}XX`] ?? operation.responses?.['default'];
  if (!listed) return [...problems, `status ${status} is not documented for ${operation.operationId} (documented: ${Object.keys(operation.responses ?? {}).join(', ')})`];
  const documentedStatus = operation.responses?.[status] ? status : operation.responses?.[`${status[0]}XX`] ? `${status[0]}XX` : 'default';
  const pointer = responsePointer(operationPointer, documentedStatus, listed);
  const response = resolved<ResponseObject>(document, listed);

  for (const [name, header] of Object.entries(response.headers ?? {})) {
    const declared = resolved<HeaderObject>(document, header);
    const value = answer.headers.get(name);
    if (value === null) {
      if (declared.required) problems.push(`header ${name} is required but missing`);
      continue;
    }
    if (declared.schema) {
      const headerProblems = set.problems(`${pointer}/headers/${pointerSegment(name)}/schema`, headerValue(value, resolved<OpenAPIV3_1.SchemaObject>(document, declared.schema)));
      problems.push(...headerProblems.map((problem) => `header ${name}: ${JSON.stringify(value)} ${problem}`));
    }
  }

  if (streamed) {
    const media = response.content?.[mediaType];
    if (media === undefined) return [...problems, `${status} of ${operation.operationId} is not documented as ${mediaType}`];
    const mediaPointer = `${'$ref' in listed ? pointer : `${operationPointer}/responses/${documentedStatus}`}/content/${pointerSegment(mediaType)}/schema`;
    return [...problems, ...streamedBodyProblems(set, mediaType, mediaPointer, text)];
  }
  const media = response.content?.['application/json'];
  if (media === undefined) {
    if (text !== '') problems.push(`${status} of ${operation.operationId} is documented without a body, but one came: ${text.slice(0, 200)}`);
  } else if (text === '') {
    problems.push(`${status} of ${operation.operationId} is documented with a JSON body, but none came`);
  } else if (media.schema) {
    const mediaPointer = '$ref' in listed ? `${pointer}/content/application~1json/schema` : `${operationPointer}/responses/${documentedStatus}/content/application~1json/schema`;
    problems.push(...set.problems(mediaPointer, body).map((problem) => `body: ${problem}`));
  }
  return problems;
}

/** The document the server builds for everyone, built here too: for when the api serves none (the public API off). */
function builtGenericDocument(api: TestApi): Document {
  return buildOpenApiDocument(bindRoutes(PUBLIC_ROUTES, (name) => api.runtime.procedures.require(name)));
}

/**
 * The document the api serves for a key, read without taking from its bucket; a key the api
 * refuses (revoked, expired) gets the generic document, which is what describes its 401s.
 */
async function servedDocument(api: TestApi, token: string | undefined): Promise<Document> {
  for (const asking of token === undefined ? [undefined] : [token, undefined]) {
    const served = await api.openApiDocument(asking);
    if (served.status === 200) return (await served.json()) as Document;
    await served.arrayBuffer();
  }
  return builtGenericDocument(api);
}

/** Documents by api and key, for one test file (each file has its own module registry). */
const documents = new WeakMap<TestApi, Map<string, Promise<Document>>>();

/**
 * Fails (throws, naming every problem) when `answer` is not what the document the api serves for
 * `token` describes. The document is read once per key; when an answer does not fit it, it is
 * read again before failing, since a model or field created since changes what it describes.
 */
export async function expectDocumentedAnswer(api: TestApi, token: string | undefined, asked: AskedFor, answer: Response): Promise<void> {
  let byKey = documents.get(api);
  if (!byKey) documents.set(api, (byKey = new Map()));
  const cacheKey = token ?? '';
  const cached = byKey.get(cacheKey);
  const first = cached ?? servedDocument(api, token);
  if (!cached) byKey.set(cacheKey, first);
  if ((await answerProblems(await first, asked, answer)).length === 0) return;
  const fresh = servedDocument(api, token);
  byKey.set(cacheKey, fresh);
  const problems = await answerProblems(await fresh, asked, answer);
  if (problems.length === 0) return;
  const shown = (await answer.clone().text()).slice(0, 500);
  throw new Error(
    `The answer to ${asked.method.toUpperCase()} ${PUBLIC_API_PREFIX}${asked.path} is not what the OpenAPI document says:\n- ${problems.join('\n- ')}\n` +
      `(status ${answer.status}, body ${shown})`,
  );
}
