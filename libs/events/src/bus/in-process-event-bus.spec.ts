import { createLogger, type EventEnvelope } from '@mrp/platform';
import { InProcessEventBus } from './in-process-event-bus';

const event = (type: string, aliases?: string[]): EventEnvelope => ({
  id: `evt-${type}`,
  type,
  occurredAt: new Date(0).toISOString(),
  payload: {},
  ...(aliases ? { subscriptionAliases: aliases } : {}),
});

function busWithLogSpy() {
  const logger = createLogger({ name: 'test', level: 'silent' });
  const errors = jest.spyOn(logger, 'error');
  return { bus: new InProcessEventBus(logger), errors };
}

describe('InProcessEventBus', () => {
  it('delivers by exact type, prefix, wildcard and alias', async () => {
    const { bus } = busWithLogSpy();
    const seen: string[] = [];
    bus.subscribe('rbac.role-created', (e) => void seen.push(`exact:${e.type}`));
    bus.subscribe('data-models.*', (e) => void seen.push(`prefix:${e.type}`));
    bus.subscribe('*', (e) => void seen.push(`all:${e.type}`));
    bus.subscribe('data-models.customers.record-created', (e) => void seen.push(`alias:${e.type}`));
    bus.publish([event('rbac.role-created'), event('data-models.record-created', ['data-models.customers.record-created'])]);
    await bus.idle();
    expect(seen.sort()).toEqual(
      [
        'exact:rbac.role-created',
        'all:rbac.role-created',
        'prefix:data-models.record-created',
        'all:data-models.record-created',
        'alias:data-models.record-created',
      ].sort(),
    );
  });

  it('does not run handlers inside the emitter', () => {
    const { bus } = busWithLogSpy();
    const handler = jest.fn();
    bus.subscribe('*', handler);
    bus.publish([event('user.profile-updated')]);
    expect(handler).not.toHaveBeenCalled();
  });

  it('logs a throwing or rejecting subscriber and still delivers to the others', async () => {
    const { bus, errors } = busWithLogSpy();
    const delivered = jest.fn();
    bus.subscribe('*', () => {
      throw new Error('boom');
    });
    bus.subscribe('*', async () => Promise.reject(new Error('async boom')));
    bus.subscribe('*', delivered);
    expect(() => bus.publish([event('organization.created')])).not.toThrow();
    await bus.idle();
    expect(delivered).toHaveBeenCalledTimes(1);
    expect(errors).toHaveBeenCalledTimes(2);
  });

  it('stops delivering after unsubscribe', async () => {
    const { bus } = busWithLogSpy();
    const handler = jest.fn();
    const unsubscribe = bus.subscribe('*', handler);
    unsubscribe();
    bus.publish([event('organization.created')]);
    await bus.idle();
    expect(handler).not.toHaveBeenCalled();
  });
});
