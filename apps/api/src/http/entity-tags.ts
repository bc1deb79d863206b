import { badRequest, type AnswerVersion } from '@mrp/platform';

/**
 * Entity tags and the preconditions that carry them, for both doors: one rule for what a tag is,
 * and one for how an If-Match becomes a procedure's `expectedVersion`.
 */

/** The input property a precondition fills: a procedure that takes it is served with If-Match over REST. */
export const EXPECTED_VERSION_PROPERTY = 'expectedVersion';

/** The tag of an answer: `"<version>"`, or `"<version>-<variant>"` when more than the version shapes its content. */
export function entityTag({ version, variant }: AnswerVersion): string {
  return variant ? `"${version}-${variant}"` : `"${version}"`;
}

interface ListedTag {
  weak: boolean;
  opaque: string;
}

// RFC 9110 8.8.3: an optional W/, then any visible characters but DQUOTE, quoted; a list is comma-separated.
const ENTITY_TAG = '(W/)?"([!#-~\\u0080-\\u00ff]*)"';
const LISTED_TAG = new RegExp(`\\s*${ENTITY_TAG}\\s*(?:,|$)`, 'y');
const UNCAPTURED_TAG = ENTITY_TAG.replaceAll('(', '(?:');

/**
 * What If-Match and If-None-Match may hold, as the OpenAPI document declares them (JSON Schema
 * patterns, from the same tag grammar the parser reads): `*` or one tag for If-Match, `*` or a
 * comma-separated list for If-None-Match. Empty counts as absent.
 */
/** What an ETag this API sends looks like: one strong tag. */
export const STRONG_ENTITY_TAG_PATTERN = `^${UNCAPTURED_TAG.replace('(?:W/)?', '')}$`;
export const IF_MATCH_PATTERN = `^\\s*(?:|\\*|${UNCAPTURED_TAG})\\s*$`;
export const IF_NONE_MATCH_PATTERN = `^\\s*(?:|\\*|${UNCAPTURED_TAG}(?:\\s*,\\s*${UNCAPTURED_TAG})*)\\s*$`;

/** `*`, or the tags of a well-formed list; a malformed header is a 400 naming it. */
function parseTagList(value: string, header: string): '*' | ListedTag[] {
  const trimmed = value.trim();
  if (trimmed === '*') return '*';
  const tags: ListedTag[] = [];
  LISTED_TAG.lastIndex = 0;
  while (LISTED_TAG.lastIndex < trimmed.length) {
    const start = LISTED_TAG.lastIndex;
    const match = LISTED_TAG.exec(trimmed);
    if (!match || LISTED_TAG.lastIndex === start) throw badRequest(`${header} must be * or a list of entity tags such as "3" (quotes included)`);
    tags.push({ weak: match[1] !== undefined, opaque: match[2] });
  }
  if (tags.length === 0) throw badRequest(`${header} must be * or a list of entity tags such as "3" (quotes included)`);
  return tags;
}

const MAX_VERSION = 2147483647;
const VERSION_OF_TAG = /^([0-9]{1,10})(?:-|$)/;

/**
 * The `expectedVersion` an If-Match header asks for. None (or `*`: the resource must exist, as it
 * must anyway) asks for nothing. A tag compares strongly: a weak one, or one this API never issued,
 * can match no version, so it asks for 0, which no record has: the write then answers 412 after
 * the record is found (a missing record stays a 404). The version is all a write checks: a tag
 * whose variant is out of date (a field archived since) still matches its version.
 */
export function expectedVersionOf(ifMatch: string | undefined): number | undefined {
  if (ifMatch === undefined || ifMatch.trim() === '') return undefined;
  const tags = parseTagList(ifMatch, 'If-Match');
  if (tags === '*') return undefined;
  if (tags.length > 1) throw badRequest('If-Match takes one entity tag (or *)');
  const [{ weak, opaque }] = tags;
  const version = weak ? undefined : VERSION_OF_TAG.exec(opaque)?.[1];
  return version !== undefined && Number(version) <= MAX_VERSION ? Number(version) : 0;
}

/** Whether If-None-Match names `tag` (weak comparison, as RFC 9110 wants for it) or is `*`. */
export function ifNoneMatchHits(ifNoneMatch: string | undefined, tag: string): boolean {
  if (ifNoneMatch === undefined || ifNoneMatch.trim() === '') return false;
  const tags = parseTagList(ifNoneMatch, 'If-None-Match');
  const opaque = tag.slice(1, -1);
  return tags === '*' || tags.some((listed) => listed.opaque === opaque);
}
