import { describe, expect, it } from 'vitest';
import { deletedByName, membersById } from './deleted-by';

const members = membersById([
  { userId: 'u1', email: 'ada@example.com', displayName: 'Ada Lovelace' },
  { userId: 'u2', email: 'bob@example.com', displayName: '  ' },
]);

describe('deletedByName', () => {
  it('names a member by display name, else by email', () => {
    expect(deletedByName('u1', members)).toBe('Ada Lovelace');
    expect(deletedByName('u2', members)).toBe('bob@example.com');
  });

  it('names someone no longer a member by id, and a deletion kept without a deleter as unknown', () => {
    expect(deletedByName('u9', members)).toBe('Former member u9');
    expect(deletedByName(null, members)).toBe('Unknown');
  });
});
