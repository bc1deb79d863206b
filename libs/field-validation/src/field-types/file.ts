import { arrayRule, integerRule, stringRule } from '../config/config-rules';
import { optional, withDefault } from '../config/config-schema';
import { isPlainObject, ownValue } from '../core/plain-object';
import type { JsonSchema } from '../core/json-schema';
import type { FieldError, Result } from '../core/result';
import { fail, failWith, ok } from '../core/result';
import { noOperand } from '../filter/operand-rules';
import { mimeTypeAllowed, normaliseMimeType, normaliseMimeTypePattern } from '../values/mime-type';
import { containsControlCharacter, containsLineBreak, exceedsLength, SINGLE_LINE_PATTERN } from '../values/text';
import type { FieldTypeHandler } from './field-type-handler';
import { configParser, isEmptyList } from './field-type-handler';
import { HTTP_URL_SCHEMA, validateHttpUrl } from './url';
import { PRESENCE_OPS } from '../filter/op-sets';

export interface FileReference {
  url: string;
  name: string;
  mimeType?: string;
  size?: number;
}
export type FileConfig = { allowedMimeTypes?: string[]; maxSizeBytes?: number };
export type AttachmentsConfig = FileConfig & { maxFiles: number };

export const MAX_FILE_NAME_LENGTH = 255;
export const DEFAULT_MAX_FILES = 10;
export const MAX_FILES_CEILING = 100;

const FILE_KEYS: ReadonlySet<string> = new Set(['url', 'name', 'mimeType', 'size']);

const fileConfigSchema = {
  allowedMimeTypes: optional(
    arrayRule(
      stringRule({
        maxLength: 255,
        normalise: normaliseMimeTypePattern,
        description: 'a MIME type such as image/png or image/*',
      }),
      { minItems: 1, maxItems: 100, unique: true },
    ),
  ),
  maxSizeBytes: optional(integerRule({ min: 1, max: Number.MAX_SAFE_INTEGER })),
};

const isAbsent = (value: unknown): value is null | undefined => value === undefined || value === null;

function checkName(name: unknown, path: string): Result<string> {
  if (isAbsent(name) || name === '') return fail(path, 'required', 'A file needs a name.');
  if (typeof name !== 'string') return fail(path, 'invalid_type', 'The file name must be a string.');
  if (exceedsLength(name, MAX_FILE_NAME_LENGTH)) {
    return fail(path, 'too_long', `The file name must be at most ${MAX_FILE_NAME_LENGTH} characters.`);
  }
  if (containsLineBreak(name) || containsControlCharacter(name)) {
    return fail(path, 'invalid_format', 'The file name must be a single line of text.');
  }
  return ok(name);
}

/** `undefined` means "not declared", which is only acceptable when no allow-list is configured. */
function checkMimeType(mimeType: unknown, config: FileConfig, path: string): Result<string | undefined> {
  if (isAbsent(mimeType)) {
    // Without a declared type the allow-list could not be enforced.
    return config.allowedMimeTypes
      ? fail(path, 'required', 'This field only accepts files with a declared MIME type.')
      : ok(undefined);
  }
  if (typeof mimeType !== 'string') return fail(path, 'invalid_type', 'The MIME type must be a string.');
  const normalised = normaliseMimeType(mimeType);
  if (normalised === undefined) return fail(path, 'invalid_format', 'The MIME type must look like type/subtype.');
  if (config.allowedMimeTypes && !mimeTypeAllowed(normalised, config.allowedMimeTypes)) {
    return fail(path, 'invalid_option', `Allowed file types: ${config.allowedMimeTypes.join(', ')}.`);
  }
  return ok(normalised);
}

function checkSize(size: unknown, config: FileConfig, path: string): Result<number | undefined> {
  if (isAbsent(size)) {
    return config.maxSizeBytes === undefined
      ? ok(undefined)
      : fail(path, 'required', 'This field only accepts files with a declared size.');
  }
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) {
    return fail(path, 'invalid_type', 'The size must be a non-negative whole number of bytes.');
  }
  if (config.maxSizeBytes !== undefined && size > config.maxSizeBytes) {
    return fail(path, 'out_of_range', `Files may be at most ${config.maxSizeBytes} bytes.`);
  }
  return ok(size);
}

/** Validates one `{ url, name, mimeType?, size? }` object against the field's limits. */
export function validateFileReference(value: unknown, config: FileConfig, path: string): Result<FileReference> {
  if (!isPlainObject(value)) {
    return fail(path, 'invalid_type', 'Must be a file object { url, name, mimeType?, size? }.');
  }
  const errors: FieldError[] = [];
  for (const key of Object.keys(value)) {
    if (!FILE_KEYS.has(key)) {
      const message = 'Files only have url, name, mimeType and size.';
      errors.push({ field: `${path}.${key}`, code: 'invalid_format', message });
    }
  }
  const rawUrl = ownValue(value, 'url');
  const url = isAbsent(rawUrl)
    ? fail(`${path}.url`, 'required', 'A file needs a url.')
    : validateHttpUrl(rawUrl, `${path}.url`);
  const name = checkName(ownValue(value, 'name'), `${path}.name`);
  const mimeType = checkMimeType(ownValue(value, 'mimeType'), config, `${path}.mimeType`);
  const size = checkSize(ownValue(value, 'size'), config, `${path}.size`);

  for (const part of [url, name, mimeType, size]) {
    if (!part.ok) errors.push(...part.errors);
  }
  if (errors.length > 0 || !url.ok || !name.ok || !mimeType.ok || !size.ok) return failWith(errors);
  return ok({
    url: url.value,
    name: name.value,
    ...(mimeType.value === undefined ? {} : { mimeType: mimeType.value }),
    ...(size.value === undefined ? {} : { size: size.value }),
  });
}

/** A `{ url, name, mimeType?, size? }` object; mimeType and size become required when the field limits them. */
function fileReferenceSchema(config: FileConfig): JsonSchema {
  return {
    type: 'object',
    properties: {
      url: { ...HTTP_URL_SCHEMA },
      name: { type: 'string', minLength: 1, maxLength: MAX_FILE_NAME_LENGTH, pattern: SINGLE_LINE_PATTERN },
      mimeType: {
        type: 'string',
        pattern: '^[^/\\s]+/[^/\\s]+$',
        // An allowed type (a wildcard's subtype filled in) makes an example that a client may send as it is.
        examples: [(config.allowedMimeTypes?.[0] ?? 'application/pdf').replace('*', 'example')],
        ...(config.allowedMimeTypes ? { description: `One of ${config.allowedMimeTypes.join(', ')}` } : {}),
      },
      size: { type: 'integer', minimum: 0, ...(config.maxSizeBytes === undefined ? {} : { maximum: config.maxSizeBytes }), description: 'Bytes' },
    },
    required: ['url', 'name', ...(config.allowedMimeTypes ? ['mimeType'] : []), ...(config.maxSizeBytes === undefined ? [] : ['size'])],
    additionalProperties: false,
  };
}

export const fileHandler: FieldTypeHandler<FileConfig> = {
  parseConfig: configParser(fileConfigSchema),
  validateValue: (value, config, path) => validateFileReference(value, config, path),
  valueKind: () => 'object',
  filterOps: () => PRESENCE_OPS,
  filterOpsOfAnyConfig: PRESENCE_OPS,
  filterOperands: () => ({ operand: noOperand }),
  valueSchema: fileReferenceSchema,
};

export const attachmentsHandler: FieldTypeHandler<AttachmentsConfig> = {
  parseConfig: configParser({
    ...fileConfigSchema,
    maxFiles: withDefault(integerRule({ min: 1, max: MAX_FILES_CEILING }), DEFAULT_MAX_FILES),
  }),
  validateValue(value, config, path) {
    if (!Array.isArray(value)) return fail(path, 'invalid_type', 'Must be an array of file objects.');
    if (value.length > config.maxFiles) return fail(path, 'too_long', `Must contain at most ${config.maxFiles} files.`);
    const files: FileReference[] = [];
    const errors: FieldError[] = [];
    for (let index = 0; index < value.length; index++) {
      const file = validateFileReference(value[index], config, `${path}[${index}]`);
      if (file.ok) files.push(file.value);
      else errors.push(...file.errors);
    }
    return errors.length > 0 ? failWith(errors) : ok(files);
  },
  isEmpty: isEmptyList,
  valueKind: () => 'object',
  filterOps: () => PRESENCE_OPS,
  filterOpsOfAnyConfig: PRESENCE_OPS,
  filterOperands: () => ({ operand: noOperand }),
  valueSchema: (config) => ({ type: 'array', items: fileReferenceSchema(config), maxItems: config.maxFiles }),
};
