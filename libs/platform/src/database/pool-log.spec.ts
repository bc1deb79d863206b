import { knexLog } from './pool-log';
import { capturedLogger } from '@mrp/platform/testing';

describe("knex's messages", () => {
  it('are JSON lines of the database component, at their level', () => {
    const { logger, lines } = capturedLogger('debug');
    const log = knexLog(logger);
    log.warn('something odd');
    log.error('something wrong');
    log.deprecate('oldMethod', 'newMethod');
    expect(lines.map(({ level, component, msg }) => ({ level, component, msg }))).toEqual([
      { level: 40, component: 'database', msg: 'something odd' },
      { level: 50, component: 'database', msg: 'something wrong' },
      { level: 40, component: 'database', msg: 'oldMethod is deprecated; use newMethod' },
    ]);
  });

  it('say lost connections once per incident, and never for a connection the driver ended itself', () => {
    const { logger, lines } = capturedLogger('debug');
    let now = 0;
    const log = knexLog(logger, () => now);
    log.warn('Connection Error: Connection ended unexpectedly');
    expect(lines).toEqual([]);
    for (let connection = 0; connection < 10; connection++, now += 500) log.warn('Connection Error: error: terminating connection due to administrator command');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ component: 'database', level: 40, msg: 'database connections were lost; the pool opens new ones', detail: 'error: terminating connection due to administrator command' });
    now += 10_001;
    log.warn('Connection Error: error: the database system is shutting down');
    expect(lines).toHaveLength(2);
  });
});
