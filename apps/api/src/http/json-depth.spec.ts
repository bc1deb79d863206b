import { MAX_JSON_DEPTH, parseJsonWithinDepth } from './json-depth';

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

describe('parseJsonWithinDepth', () => {
  it('parses JSON up to the depth limit', () => {
    expect(parseJsonWithinDepth('{"a":[1,{"b":"c"}]}')).toEqual({ value: { a: [1, { b: 'c' }] } });
    expect(parseJsonWithinDepth(nested(MAX_JSON_DEPTH))).toHaveProperty('value');
  });

  it('refuses deeper nesting before parsing, however deep', () => {
    expect(parseJsonWithinDepth(nested(MAX_JSON_DEPTH + 1))).toEqual({ error: `nested deeper than ${MAX_JSON_DEPTH} levels` });
    expect(parseJsonWithinDepth(nested(200_000))).toEqual({ error: `nested deeper than ${MAX_JSON_DEPTH} levels` });
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    const text = JSON.stringify({ text: `${'['.repeat(500)} "quoted \\" [[[` });
    expect(parseJsonWithinDepth(text, 2)).toEqual({ value: JSON.parse(text) });
  });

  it('reports malformed JSON as an error message', () => {
    const parsed = parseJsonWithinDepth('{"a":');
    expect(parsed).toHaveProperty('error');
    expect(parsed).not.toHaveProperty('value');
  });
});
