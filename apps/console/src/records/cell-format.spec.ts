import { describe, expect, it } from 'vitest';
import type { DataField } from '../data-models/types';
import { cellDisplay, cellText, formatDay, formatNumber, relatedTitles, richTextPreview } from './cell-format';

const field = (type: DataField['type'], config: Record<string, unknown> = {}): DataField => ({
  key: 'f',
  name: 'F',
  type,
  config,
  required: false,
  position: 1,
  indexed: false,
  indexStatus: null,
  indexError: null,
  archivedAt: null,
});

describe('cell display', () => {
  it('formats numbers in the locale with the field decimals, keeping every digit otherwise', () => {
    expect(formatNumber(1200.5, 2, 'en-US')).toBe('1,200.50');
    expect(formatNumber(1200.5, 2, 'de-DE')).toBe('1.200,50');
    expect(formatNumber(0.123456, undefined, 'en-US')).toBe('0.123456');
    expect(cellDisplay(field('NUMBER', { precision: 0 }), 1234, 'en-US')).toEqual({ kind: 'number', text: '1,234' });
  });

  it('shows a day without moving it through a time zone', () => {
    expect(formatDay('2026-01-01', 'en-US')).toBe('Jan 1, 2026');
    expect(cellDisplay(field('DATE'), '2026-12-31', 'en-US')).toEqual({ kind: 'text', text: 'Dec 31, 2026' });
  });

  it('shows select values as chips with their colours and labels', () => {
    const status = field('MULTI_SELECT', { options: [{ value: 'open', label: 'Open', color: 'green' }, { value: 'lost' }] });
    expect(cellDisplay(status, ['open', 'lost', 'gone'])).toEqual({
      kind: 'chips',
      chips: [{ label: 'Open', color: 'green' }, { label: 'lost' }, { label: 'gone' }],
    });
  });

  it('shows related titles, and a related record the reader may not see as hidden', () => {
    expect(relatedTitles([{ id: 'a', title: 'Initech' }, { id: 'b' }])).toEqual(['Initech', 'Hidden record']);
    expect(cellDisplay(field('RELATION'), { id: 'a', title: 'Initech' })).toEqual({ kind: 'list', items: ['Initech'] });
    expect(cellDisplay(field('RELATION', { multiple: true }), [])).toEqual({ kind: 'empty' });
  });

  it('makes links of email addresses and web addresses only', () => {
    expect(cellDisplay(field('EMAIL'), 'ada@example.com')).toEqual({ kind: 'link', href: 'mailto:ada@example.com', text: 'ada@example.com' });
    expect(cellDisplay(field('URL'), 'https://example.com')).toMatchObject({ kind: 'link', href: 'https://example.com' });
    expect(cellDisplay(field('URL'), 'javascript:alert(1)')).toEqual({ kind: 'text', text: 'javascript:alert(1)' });
  });

  it('previews rich text as one line of text, never as markup', () => {
    expect(richTextPreview('<p>Hello <strong>there</strong></p><p>A &amp; B &lt;script&gt;</p>')).toBe('Hello there A & B <script>');
  });

  it('shows booleans, files and empty values', () => {
    expect(cellDisplay(field('BOOLEAN'), true)).toEqual({ kind: 'boolean', value: true });
    expect(cellDisplay(field('BOOLEAN'), null)).toEqual({ kind: 'boolean', value: false });
    expect(cellDisplay(field('ATTACHMENTS'), [{ name: 'a.pdf' }, { name: 'b.png' }])).toEqual({ kind: 'list', items: ['a.pdf', 'b.png'] });
    expect(cellDisplay(field('TEXT'), '')).toEqual({ kind: 'empty' });
    expect(cellText(cellDisplay(field('BOOLEAN'), true))).toBe('Yes');
  });
});
