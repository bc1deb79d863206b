/**
 * Brings the fleet up by hand (as root) and keeps it until Ctrl-C, then removes all of it:
 * `npm run fleet:up` (FLEET_DATABASE_ROUTE=direct to bypass PgBouncer). Prints where the load
 * balancer listens and an API key of a seeded organization, to try the fleet with curl.
 */
import { seedOrganization } from '../support/seed-organization';
import { ROLES, startFleet, type DatabaseRoute } from './fleet';

async function main(): Promise<void> {
  const route: DatabaseRoute = process.env.FLEET_DATABASE_ROUTE === 'direct' ? 'direct' : 'transaction-pooler';
  const fleet = await startFleet({ route });
  let closing = false;
  const close = async (code: number) => {
    if (closing) return;
    closing = true;
    await fleet.close();
    process.exit(code);
  };
  process.once('SIGINT', () => void close(0));
  process.once('SIGTERM', () => void close(0));
  try {
    await Promise.all(ROLES.map((role) => fleet.start(role)));
    const { tokens } = await seedOrganization({ apiUrl: fleet.balancer.url, jwtSecret: fleet.jwtSecret, name: 'Fleet', modelKey: 'orders', receiverUrl: fleet.receiverUrl, keyCount: 1 });
    process.stdout.write(
      [
        `fleet up (${route}): load balancer ${fleet.balancer.url}, api hosts ${Object.values(fleet.apiUrls).join(' ')}`,
        `PostgreSQL ${fleet.database.directUrl}, PgBouncer ${fleet.database.poolerUrl}, receiver ${fleet.receiverUrl}`,
        `curl -H 'Authorization: Bearer ${tokens[0]}' ${fleet.balancer.url}/api/v1/models/orders/records`,
        'Ctrl-C removes it all.',
        '',
      ].join('\n'),
    );
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    await close(1);
  }
}

void main();
