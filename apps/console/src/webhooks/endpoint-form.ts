import { checkText } from '../forms/text-rules';
import type { EndpointOrdering, EndpointSigning } from '../api/webhook-types';
import { subscriptionProblem } from './subscription-patterns';

export interface EndpointFormValues {
  url: string;
  description: string;
  subscriptions: string[];
  /** Chosen at creation; a rotation of the secret may change it later. */
  signing: EndpointSigning;
  ordering: EndpointOrdering;
}

export const EMPTY_ENDPOINT_FORM: EndpointFormValues = { url: '', description: '', subscriptions: [], signing: 'contract', ordering: 'none' };

/** The input of `webhooks.endpoints.create`; `webhooks.endpoints.update` takes it without `signing`. */
export interface EndpointCreateInput {
  url: string;
  description?: string;
  subscriptions: string[];
  signing: EndpointSigning;
  ordering: EndpointOrdering;
}

/** The signature schemes, as the endpoint and rotation dialogs offer them. */
export const SIGNING_OPTIONS: Array<{ value: EndpointSigning; label: string }> = [
  { value: 'contract', label: 'Webhook-Signature (default)' },
  { value: 'standard-webhooks', label: 'Standard Webhooks' },
];

export const MAX_URL_LENGTH = 2048;
export const MAX_SUBSCRIPTIONS = 50;

/**
 * The URL's shape as the server will judge it first: absolute http(s), no user name or password, at
 * most 2,048 characters. Which hosts may be reached (https only in production, private addresses)
 * is the server's to say, so it is not guessed here.
 */
export function urlProblem(value: string): string | undefined {
  const text = value.trim();
  if (text === '') return 'Required';
  if (text.length > MAX_URL_LENGTH) return `At most ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'Enter a full address, e.g. https://example.com/webhooks';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'Must start with https:// (or http:// for a private host in development)';
  if (url.username || url.password) return 'Must not contain a user name or password';
  return undefined;
}

/** Checks the form as the server will and builds the input; the server checks again. */
export function checkEndpointForm(values: EndpointFormValues, knownTypes: ReadonlySet<string>): { errors: Record<string, string>; input?: EndpointCreateInput } {
  const errors: Record<string, string> = {};
  const url = urlProblem(values.url);
  if (url) errors.url = url;
  const description = checkText(values.description, { maxLength: 500 });
  if (description) errors.description = description;
  const subscriptions = [...new Set(values.subscriptions.map((pattern) => pattern.trim()).filter(Boolean))];
  if (subscriptions.length === 0) errors.subscriptions = 'Choose at least one event';
  else if (subscriptions.length > MAX_SUBSCRIPTIONS) errors.subscriptions = `At most ${MAX_SUBSCRIPTIONS} subscriptions`;
  else {
    const problems = subscriptions.flatMap((pattern) => {
      const problem = subscriptionProblem(pattern, knownTypes);
      return problem ? [`"${pattern}" ${problem}`] : [];
    });
    if (problems.length > 0) errors.subscriptions = problems.join('; ');
  }
  if (Object.keys(errors).length > 0) return { errors };
  return {
    errors,
    input: {
      url: values.url.trim(),
      ...(values.description.trim() ? { description: values.description.trim() } : {}),
      subscriptions,
      signing: values.signing,
      ordering: values.ordering,
    },
  };
}

export const MAX_OVERLAP_SECONDS = 7 * 24 * 3600;

/** The overlap of a rotation: whole seconds from 0 (none) to 7 days. */
export function checkOverlap(value: string): { error?: string; seconds?: number } {
  const text = value.trim();
  if (text === '') return { seconds: 0 };
  if (!/^\d+$/.test(text)) return { error: 'Whole seconds, e.g. 3600 for an hour' };
  const seconds = Number(text);
  if (seconds > MAX_OVERLAP_SECONDS) return { error: `At most ${MAX_OVERLAP_SECONDS} seconds (7 days)` };
  return { seconds };
}

/** A `datetime-local` value (the reader's zone) as ISO 8601 UTC; undefined for blank, 'invalid' when it is not a time. */
export function localDateTimeToIso(value: string): string | undefined | 'invalid' {
  if (value.trim() === '') return undefined;
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/.test(value)) return 'invalid';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? 'invalid' : date.toISOString();
}

/** An instant as a `datetime-local` value in the reader's zone, to the minute. */
export function isoToLocalDateTime(date: Date): string {
  const pad = (part: number) => String(part).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** A time window `[since, until)` from two `datetime-local` fields; `sinceRequired` for recover. */
export function checkWindow(
  since: string,
  until: string,
  { sinceRequired = false } = {},
): { errors: Record<string, string>; since?: string; until?: string } {
  const errors: Record<string, string> = {};
  const from = localDateTimeToIso(since);
  const to = localDateTimeToIso(until);
  if (from === 'invalid') errors.since = 'Enter a date and time';
  else if (from === undefined && sinceRequired) errors.since = 'Required';
  if (to === 'invalid') errors.until = 'Enter a date and time';
  if (typeof from === 'string' && from !== 'invalid' && typeof to === 'string' && to !== 'invalid' && Date.parse(from) >= Date.parse(to)) {
    errors.until = 'Must be after the start';
  }
  if (Object.keys(errors).length > 0) return { errors };
  return { errors, since: from as string | undefined, until: to as string | undefined };
}
