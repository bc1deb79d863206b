import { describeOffset, reminderMessage, shorten } from './reminder-message';

describe('reminder messages', () => {
  const field = {
    organizationId: '0190aaaa-0000-7000-8000-0000000000aa',
    modelId: '0190aaaa-0000-7000-8000-0000000000bb',
    modelKey: 'meetings',
    modelName: 'Meetings',
    fieldKey: 'starts_at',
    fieldName: 'Starts at',
    offsets: [0, 90, 120, 2880],
  };
  const reminder = (title: string) => ({
    recordId: '0190aaaa-0000-7000-8000-0000000000cc',
    title,
    createdBy: 'someone',
    value: '2030-01-01T09:00:00.000Z',
    remindAt: '2030-01-01T07:00:00.000Z',
  });

  it('names the offset as it was most likely entered', () => {
    expect([0, 1, 15, 60, 90, 120, 1440, 2880, 1500].map(describeOffset)).toEqual([
      '0 minutes',
      '1 minute',
      '15 minutes',
      '1 hour',
      '90 minutes',
      '2 hours',
      '1 day',
      '2 days',
      '25 hours',
    ]);
    expect(reminderMessage(field, 0, reminder('Stand-up')).body).toBe('Starts at (Meetings): 2030-01-01T09:00:00.000Z, reminder at the time');
    expect(reminderMessage(field, 120, reminder('Stand-up')).body).toBe('Starts at (Meetings): 2030-01-01T09:00:00.000Z, reminder 2 hours before');
  });

  it('keeps a long title within the 500 characters of a notification title, never splitting a character', () => {
    const long = reminderMessage(field, 0, reminder('x'.repeat(1000))).title;
    expect(long).toHaveLength(500);
    expect(long).toBe(`Reminder: ${'x'.repeat(489)}…`);
    // An emoji straddling the cut is dropped whole rather than halved into a lone surrogate.
    const emoji = shorten(`${'x'.repeat(488)}😀tail`, 490);
    expect(emoji).toBe(`${'x'.repeat(488)}…`);
    expect(shorten('short', 490)).toBe('short');
  });
});
