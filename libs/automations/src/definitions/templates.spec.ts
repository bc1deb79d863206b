import { renderTemplate, templateProblems, type TemplateContext } from './templates';

const context: TemplateContext = {
  input: { amount: 42, customer: { name: 'Ada', tags: ['vip', 'eu'] }, note: null },
  event: { type: 'data-models.record-created', payload: { recordId: 'r-1', record: { title: 'Order 7' } } },
  now: '2026-11-23T10:00:00.000Z',
};

describe('renderTemplate', () => {
  it('keeps the type of a value that is a whole placeholder', () => {
    expect(renderTemplate({ total: '{{input.amount}}', who: '{{ input.customer }}' }, context)).toEqual({
      total: 42,
      who: { name: 'Ada', tags: ['vip', 'eu'] },
    });
  });

  it('writes values into surrounding text', () => {
    expect(renderTemplate('Order for {{input.customer.name}} ({{input.amount}} EUR) at {{now}}', context)).toBe(
      'Order for Ada (42 EUR) at 2026-11-23T10:00:00.000Z',
    );
    expect(renderTemplate('Tags: {{input.customer.tags}}', context)).toBe('Tags: ["vip","eu"]');
    expect(renderTemplate('{{event.payload.record.title}} / {{input.customer.tags.1}}', context)).toBe('Order 7 / eu');
  });

  it('renders strings at any depth, never keys', () => {
    expect(renderTemplate({ '{{input.amount}}': ['{{event.payload.recordId}}', 3, true] }, context)).toEqual({
      '{{input.amount}}': ['r-1', 3, true],
    });
  });

  it('gives null for a missing whole value and nothing inside text', () => {
    expect(renderTemplate({ a: '{{input.missing}}', b: '{{input.note}}', c: 'x{{input.missing.deeper}}y' }, context)).toEqual({
      a: null,
      b: null,
      c: 'xy',
    });
  });

  it('never reads inherited properties or evaluates anything', () => {
    expect(renderTemplate('{{input.constructor}}', context)).toBeNull();
    expect(renderTemplate('{{input.__proto__}}', context)).toBeNull();
    expect(renderTemplate('{{input.customer.tags.length}}', context)).toBeNull();
    expect(renderTemplate('{{ process.exit(1) }}', context)).toBe('{{ process.exit(1) }}');
    // A value that itself looks like a placeholder is data: it is not rendered again.
    expect(renderTemplate('{{input.text}}', { ...context, input: { text: '{{now}}' } })).toBe('{{now}}');
  });
});

describe('templateProblems', () => {
  const all = new Set(['input', 'event', 'now'] as const);
  it('accepts placeholders of the available roots', () => {
    expect(templateProblems({ a: '{{input.x}} {{now}}', b: ['{{event.payload.id}}'] }, 'data', all)).toEqual([]);
  });

  it('names each bad placeholder with its path', () => {
    expect(templateProblems({ a: '{{secrets.key}}', b: ['{{input.a b}}'], c: '{{input.x' }, 'data', all)).toEqual([
      ['data.a', '{{secrets.key}} must start with input., event. or be {{now}}'],
      ['data.b[0]', '{{input.a b}} is not a path of names separated by dots (letters, digits, _ and -)'],
      ['data.c', 'has a {{ without a matching }}'],
    ]);
  });

  it('refuses event placeholders where no event exists', () => {
    expect(templateProblems('{{event.payload.id}}', 'title', new Set(['input', 'now'] as const))).toEqual([
      ['title', '{{event.payload.id}}: event is not available with this trigger'],
    ]);
  });
});
