import { leavesConnectionUnusable } from './statement-errors';

const postgresError = (code: string, severity: string) => Object.assign(new Error('from the server'), { code, severity });

describe('whether a connection a statement failed on may serve again', () => {
  it('may, after an ERROR the server reported about the statement', () => {
    expect(leavesConnectionUnusable(postgresError('23505', 'ERROR'))).toBe(false);
    expect(leavesConnectionUnusable(postgresError('57014', 'ERROR'))).toBe(false);
  });

  it('may not, after a FATAL error or a failure with no SQLSTATE', () => {
    expect(leavesConnectionUnusable(postgresError('57P01', 'FATAL'))).toBe(true);
    expect(leavesConnectionUnusable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(leavesConnectionUnusable(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toBe(true);
  });
});
