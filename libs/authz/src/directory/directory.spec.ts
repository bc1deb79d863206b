import { createAuthzHarness, type AuthzHarness } from '@mrp/authz/testing';
import { deletedUserIds, emailAddressesOf } from './directory';

describe('directory', () => {
  let h: AuthzHarness;
  beforeAll(async () => {
    h = await createAuthzHarness();
  });
  afterAll(() => h.close());

  async function people() {
    const live = h.person('live');
    const gone = h.person('gone');
    const locked = h.person('locked');
    for (const who of [live, gone, locked]) await h.principal(who);
    await h.sql('UPDATE users SET deleted_at = now() WHERE id = ?', [gone.sub]);
    await h.sql('UPDATE users SET disabled_at = now() WHERE id = ?', [locked.sub]);
    return { live, gone, locked };
  }

  it('deletedUserIds names the deleted accounts and the ids of no account, each once', async () => {
    const { live, gone, locked } = await people();
    const nobody = 'no-such-user';
    await expect(deletedUserIds(h.db.orm.em.fork(), [live.sub, gone.sub, nobody, gone.sub, locked.sub])).resolves.toEqual([gone.sub, nobody].sort());
    await expect(deletedUserIds(h.db.orm.em.fork(), [])).resolves.toEqual([]);
  });

  it('emailAddressesOf gives the addresses of live people only', async () => {
    const { live, gone, locked } = await people();
    // Service accounts hold a placeholder address; no mail goes there.
    await h.sql(`INSERT INTO users (id, email, email_verified, kind, display_name) VALUES ('svc_directory', 'svc@example.test', true, 'SERVICE', 'svc')`);
    const addresses = await emailAddressesOf(h.db.orm.em.fork(), [live.sub, gone.sub, locked.sub, 'svc_directory', 'no-such-user']);
    expect(Object.fromEntries(addresses)).toEqual({ [live.sub]: live.email.toLowerCase(), [locked.sub]: locked.email.toLowerCase() });
  });
});
