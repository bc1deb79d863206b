import { ConfigError, apiAddress, directDatabaseUrl, loadConfig } from './config';

/** Development features need NODE_ENV stated outright; most cases here are about something else. */
const DEVELOPMENT = { NODE_ENV: 'development' };

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig(DEVELOPMENT);
    expect(config).toMatchObject({
      port: 3000,
      publicApiRatePerSecond: 5,
      publicApiBurst: 20,
      webhookRetryBaseSeconds: 30,
      webhookRetentionDays: 30,
      webhookTimeoutSeconds: 10,
      webhookEndpointConcurrency: 16,
      webhookSecretResolverModule: undefined,
      accountDeletionGraceDays: 30,
      smtpUrl: undefined,
      smtpFrom: 'no-reply@localhost',
      databaseUrl: undefined,
      databasePooler: 'none',
      databaseDirectUrl: undefined,
      nodeEnv: 'development',
    });
    expect(config.featureFlagDefaults).toEqual({});
  });

  it('takes a transaction pooler with the direct URL that sessions need', () => {
    const config = loadConfig({
      ...DEVELOPMENT,
      DATABASE_URL: 'postgres://app@pooler:6432/app',
      DATABASE_POOLER: 'transaction',
      DATABASE_DIRECT_URL: 'postgres://app@db:5432/app',
    });
    expect(config).toMatchObject({ databaseUrl: 'postgres://app@pooler:6432/app', databasePooler: 'transaction', databaseDirectUrl: 'postgres://app@db:5432/app' });
    expect(directDatabaseUrl(config)).toBe('postgres://app@db:5432/app');
    expect(directDatabaseUrl(loadConfig({ ...DEVELOPMENT, DATABASE_URL: 'postgres://app@db:5432/app' }))).toBe('postgres://app@db:5432/app');
  });

  it('parses admin emails case-insensitively and feature flag boot defaults', () => {
    const config = loadConfig({
      ...DEVELOPMENT,
      PLATFORM_ADMIN_EMAILS: ' Ops@Example.com, root@example.com ',
      FEATURE_FLAGS: 'public-api.enabled=true,public-api.service-accounts',
    });
    expect([...config.platformAdminEmails]).toEqual(['ops@example.com', 'root@example.com']);
    expect(config.featureFlagDefaults).toEqual({ 'public-api.enabled': true, 'public-api.service-accounts': true });
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT must be an integer from 1 to 65535, got "abc"'],
    [{ PORT: '70000' }, 'PORT must be an integer from 1 to 65535, got "70000"'],
    [{ PORT: '0' }, 'PORT must be an integer from 1 to 65535, got "0"'],
    [{ PORT: '3000.5' }, 'PORT must be an integer from 1 to 65535, got "3000.5"'],
    [{ EMBEDDED_POSTGRES_PORT: '99999' }, 'EMBEDDED_POSTGRES_PORT must be an integer from 1 to 65535, got "99999"'],
    [{ LOG_LEVEL: 'verbose' }, 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; got "verbose"'],
    [{ HOST: 'local host' }, 'HOST must be an IP address or a host name (e.g. 127.0.0.1 or 0.0.0.0), got "local host"'],
    [{ PUBLIC_API_BURST: '0' }, 'PUBLIC_API_BURST must be a positive integer, got "0"'],
    [{ WEBHOOK_RETENTION_DAYS: '0' }, 'WEBHOOK_RETENTION_DAYS must be a positive integer, got "0"'],
    [{ WEBHOOK_RETENTION_DAYS: '7.5' }, 'WEBHOOK_RETENTION_DAYS must be a positive integer, got "7.5"'],
    [{ WEBHOOK_TIMEOUT_SECONDS: '30' }, 'WEBHOOK_TIMEOUT_SECONDS is at most 10 (the delivery timeout), got "30"'],
    [{ WEBHOOK_TIMEOUT_SECONDS: '0' }, 'WEBHOOK_TIMEOUT_SECONDS must be a positive number, got "0"'],
    [{ WEBHOOK_ENDPOINT_CONCURRENCY: '2.5' }, 'WEBHOOK_ENDPOINT_CONCURRENCY must be a positive integer, got "2.5"'],
    [{ WEBHOOK_ENDPOINT_CONCURRENCY: '500' }, 'WEBHOOK_ENDPOINT_CONCURRENCY is at most 100, got "500"'],
    [{ PUBLIC_API_CORS_ORIGINS: 'https://app.example.com/' }, 'PUBLIC_API_CORS_ORIGINS entries must be origins like https://app.example.com (no path, no trailing slash), got "https://app.example.com/"'],
    [{ PUBLIC_API_CORS_ORIGINS: 'app.example.com' }, 'PUBLIC_API_CORS_ORIGINS entries must be origins like https://app.example.com (no path, no trailing slash), got "app.example.com"'],
    [{ PUBLIC_API_CORS_ORIGINS: 'https://ok.example.com, ftp://files.example.com' }, 'PUBLIC_API_CORS_ORIGINS entries must be origins like https://app.example.com (no path, no trailing slash), got "ftp://files.example.com"'],
    [{ API_WORKERS: '0' }, 'API_WORKERS must be a positive integer, got "0"'],
    [{ API_WORKERS: '65' }, 'API_WORKERS is at most 64, got "65"'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL must use the postgres:// scheme, got "mysql:"'],
    [{ DATABASE_URL: 'not a url' }, 'DATABASE_URL is not a valid URL (expected postgres://user:password@host:port/database)'],
    [{ DATABASE_URL: 'postgres://db/app', DATABASE_DIRECT_URL: 'mysql://x' }, 'DATABASE_DIRECT_URL must use the postgres:// scheme, got "mysql:"'],
    [{ DATABASE_DIRECT_URL: 'postgres://db:5432/app' }, 'DATABASE_DIRECT_URL is set but DATABASE_URL is not: set both, or neither'],
    [{ DATABASE_URL: 'postgres://db/app', DATABASE_POOLER: 'session' }, 'DATABASE_POOLER must be none or transaction, got "session"'],
    [
      { DATABASE_URL: 'postgres://pooler:6432/app', DATABASE_POOLER: 'transaction' },
      'DATABASE_POOLER=transaction needs DATABASE_URL (the pooler) and DATABASE_DIRECT_URL (PostgreSQL itself, for LISTEN, migrations and index builds)',
    ],
    [{ FEATURE_FLAGS: 'nope.flag=true' }, 'FEATURE_FLAGS names an unknown flag "nope.flag" (known: public-api.enabled, public-api.service-accounts)'],
    [{ FEATURE_FLAGS: 'public-api.enabled=yes' }, 'FEATURE_FLAGS value for "public-api.enabled" must be true or false, got "yes"'],
    [{ CRON_SECRET: 'short' }, 'CRON_SECRET must be at least 16 characters'],
    [{ NODE_ENV: 'staging' }, 'NODE_ENV must be one of development, production, test; got "staging"'],
    [{ AUTH_JWT_SECRET: 'short' }, 'AUTH_JWT_SECRET must be at least 32 characters'],
    [{ CURSOR_SECRET: 'x'.repeat(31) }, 'CURSOR_SECRET must be at least 32 characters'],
    [
      { NODE_ENV: 'production' },
      'CURSOR_SECRET is required in production: set it to 32+ random characters, the same in every process',
    ],
    [{ WEBHOOK_SECRET_ENCRYPTION_KEY: 'abcd' }, 'WEBHOOK_SECRET_ENCRYPTION_KEY must be 32 bytes, as 64 hex characters or base64'],
    [
      { WEBHOOK_ALLOWED_CIDRS: '10.8.0.0/16, 10.9.0.0' },
      'WEBHOOK_ALLOWED_CIDRS must be comma-separated CIDR ranges (e.g. 10.8.0.0/16,fd00:1::/64); "10.9.0.0" is not one',
    ],
    [
      { WEBHOOK_ALLOWED_CIDRS: 'internal.example.com/8' },
      'WEBHOOK_ALLOWED_CIDRS must be comma-separated CIDR ranges (e.g. 10.8.0.0/16,fd00:1::/64); "internal.example.com/8" is not one',
    ],
    [
      { WEBHOOK_ALLOWED_CIDRS: '10.0.0.0/33' },
      'WEBHOOK_ALLOWED_CIDRS must be comma-separated CIDR ranges (e.g. 10.8.0.0/16,fd00:1::/64); "10.0.0.0/33" is not one',
    ],
  ])('rejects %j with one clear line', (env, message) => {
    expect(() => loadConfig({ ...DEVELOPMENT, ...env })).toThrow(new ConfigError(message));
  });

  it('reads the ranges webhooks may reach from WEBHOOK_ALLOWED_CIDRS, none by default', () => {
    expect(loadConfig(DEVELOPMENT).webhookAllowedCidrs).toEqual([]);
    expect(loadConfig({ ...DEVELOPMENT, WEBHOOK_ALLOWED_CIDRS: ' 10.8.0.0/16 , fd00:1::/64,,' }).webhookAllowedCidrs).toEqual([
      '10.8.0.0/16',
      'fd00:1::/64',
    ]);
  });

  it('reads the browser origins that may call /api/v1 from PUBLIC_API_CORS_ORIGINS, none by default', () => {
    expect(loadConfig(DEVELOPMENT).publicApiCorsOrigins).toEqual([]);
    expect(loadConfig({ ...DEVELOPMENT, PUBLIC_API_CORS_ORIGINS: ' https://app.example.com , http://localhost:5173,,' }).publicApiCorsOrigins).toEqual([
      'https://app.example.com',
      'http://localhost:5173',
    ]);
  });

  it('runs one api process unless API_WORKERS asks for more', () => {
    expect(loadConfig(DEVELOPMENT).apiWorkers).toBe(1);
    expect(loadConfig({ ...DEVELOPMENT, API_WORKERS: '4' }).apiWorkers).toBe(4);
  });

  describe('limits that protect other organizations', () => {
    it('default to 15 s per request statement, 10 min per task statement, half the pool per organization, a 2 s queue', () => {
      expect(loadConfig(DEVELOPMENT)).toMatchObject({
        statementTimeoutMs: 15_000,
        taskStatementTimeoutMs: 600_000,
        organizationMaxConnections: undefined,
        organizationQueueTimeoutMs: 2_000,
      });
    });

    it('take whole positive numbers', () => {
      const config = loadConfig({
        ...DEVELOPMENT,
        DATABASE_STATEMENT_TIMEOUT_MS: '2000',
        DATABASE_TASK_STATEMENT_TIMEOUT_MS: '60000',
        ORGANIZATION_MAX_CONNECTIONS: '3',
        ORGANIZATION_QUEUE_TIMEOUT_MS: '500',
      });
      expect(config).toMatchObject({ statementTimeoutMs: 2_000, taskStatementTimeoutMs: 60_000, organizationMaxConnections: 3, organizationQueueTimeoutMs: 500 });
    });

    it.each([
      ['DATABASE_STATEMENT_TIMEOUT_MS', '0', 'DATABASE_STATEMENT_TIMEOUT_MS must be a positive integer, got "0"'],
      ['DATABASE_STATEMENT_TIMEOUT_MS', '1.5', 'DATABASE_STATEMENT_TIMEOUT_MS must be a positive integer, got "1.5"'],
      ['DATABASE_TASK_STATEMENT_TIMEOUT_MS', '3000000000', 'DATABASE_TASK_STATEMENT_TIMEOUT_MS is at most 2147483647 (milliseconds), got "3000000000"'],
      ['ORGANIZATION_MAX_CONNECTIONS', 'half', 'ORGANIZATION_MAX_CONNECTIONS must be a positive integer, got "half"'],
      ['ORGANIZATION_QUEUE_TIMEOUT_MS', '120000', 'ORGANIZATION_QUEUE_TIMEOUT_MS is at most 60000 (milliseconds), got "120000"'],
    ])('refuses %s=%s in one line', (name, value, message) => {
      expect(() => loadConfig({ ...DEVELOPMENT, [name]: value })).toThrow(new ConfigError(message));
    });
  });

  it('listens on loopback outside production unless HOST says otherwise', () => {
    const production = { NODE_ENV: 'production', CURSOR_SECRET: 'c'.repeat(32) };
    expect(loadConfig(DEVELOPMENT).host).toBe('127.0.0.1');
    expect(loadConfig({ NODE_ENV: 'test' }).host).toBe('127.0.0.1');
    expect(loadConfig(production).host).toBeUndefined();
    expect(loadConfig({ ...DEVELOPMENT, HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
    expect(loadConfig({ ...production, HOST: 'api.internal' }).host).toBe('api.internal');
  });

  it('shows the api address a person on this machine types', () => {
    expect(apiAddress({ host: '127.0.0.1', port: 3000 })).toBe('http://127.0.0.1:3000');
    expect(apiAddress({ host: undefined, port: 8080 })).toBe('http://localhost:8080');
    expect(apiAddress({ host: '0.0.0.0', port: 80 })).toBe('http://localhost:80');
    expect(apiAddress({ host: '::1', port: 3000 })).toBe('http://[::1]:3000');
  });

  describe('NODE_ENV unset', () => {
    const unset = { NODE_ENV: '', CURSOR_SECRET: 'c'.repeat(32) };

    it('is production, with everything production implies', () => {
      expect(loadConfig(unset)).toMatchObject({ nodeEnv: 'production', host: undefined, webhookAddressPolicy: 'production', logLevel: 'info' });
      expect(loadConfig({ ...unset, NODE_ENV: undefined }).nodeEnv).toBe('production');
    });

    it('requires CURSOR_SECRET, as production does', () => {
      expect(() => loadConfig({})).toThrow(/^CURSOR_SECRET is required in production/);
    });
  });

  it('lets webhooks reach private hosts only when NODE_ENV says development or test outright', () => {
    expect(loadConfig({ CURSOR_SECRET: 'c'.repeat(32) }).webhookAddressPolicy).toBe('production');
    expect(loadConfig({ NODE_ENV: 'production', CURSOR_SECRET: 'c'.repeat(32) }).webhookAddressPolicy).toBe('production');
    expect(loadConfig({ NODE_ENV: 'development' }).webhookAddressPolicy).toBe('development');
    expect(loadConfig({ NODE_ENV: 'test' }).webhookAddressPolicy).toBe('development');
  });

  describe('ACCOUNT_DELETION_GRACE_DAYS', () => {
    it('is a whole number of days from 0 (deleted at the next task run) to 365', () => {
      expect(loadConfig({ ...DEVELOPMENT, ACCOUNT_DELETION_GRACE_DAYS: '0' }).accountDeletionGraceDays).toBe(0);
      expect(loadConfig({ ...DEVELOPMENT, ACCOUNT_DELETION_GRACE_DAYS: '365' }).accountDeletionGraceDays).toBe(365);
    });

    it.each(['-1', '366', '1.5', 'soon'])('refuses %s in one line', (raw) => {
      expect(() => loadConfig({ ...DEVELOPMENT, ACCOUNT_DELETION_GRACE_DAYS: raw })).toThrow(
        new ConfigError(`ACCOUNT_DELETION_GRACE_DAYS must be an integer from 0 to 365, got "${raw}"`),
      );
    });
  });

  describe('SMTP_URL and SMTP_FROM', () => {
    it('takes smtp:// and smtps:// URLs and a sender', () => {
      expect(loadConfig({ ...DEVELOPMENT, SMTP_URL: 'smtps://mailer:s3cret@mail.example.com:465' }).smtpUrl).toBe('smtps://mailer:s3cret@mail.example.com:465');
      expect(loadConfig({ ...DEVELOPMENT, SMTP_URL: 'smtp://127.0.0.1:2525', SMTP_FROM: 'Platform <ops@example.com>' })).toMatchObject({
        smtpUrl: 'smtp://127.0.0.1:2525',
        smtpFrom: 'Platform <ops@example.com>',
      });
    });

    it.each([
      ['http://mailer:s3cret@mail.example.com', 'SMTP_URL must use the smtp:// or smtps:// scheme, got "http:"'],
      ['smtp://mailer:s3cret@', 'SMTP_URL is not a valid URL (expected smtp://user:password@host:port or smtps://...)'],
      ['mailer:s3cret at mail', 'SMTP_URL must use the smtp:// or smtps:// scheme, got "mailer:"'],
    ])('refuses %s without printing the password', (raw, message) => {
      let error: unknown;
      try {
        loadConfig({ ...DEVELOPMENT, SMTP_URL: raw });
      } catch (caught) {
        error = caught;
      }
      expect(error).toEqual(new ConfigError(message));
      expect(String((error as Error).message)).not.toContain('s3cret');
    });

    it('refuses a sender that is not an address', () => {
      expect(() => loadConfig({ ...DEVELOPMENT, SMTP_FROM: 'nobody' })).toThrow(
        'SMTP_FROM must be an address (no-reply@example.com or "Name <no-reply@example.com>"), got "nobody"',
      );
    });
  });

  it('reads the webhook retention in whole days', () => {
    expect(loadConfig({ ...DEVELOPMENT, WEBHOOK_RETENTION_DAYS: '90' }).webhookRetentionDays).toBe(90);
  });

  it('accepts every pino level name for LOG_LEVEL', () => {
    expect(loadConfig({ ...DEVELOPMENT, LOG_LEVEL: 'debug' }).logLevel).toBe('debug');
    expect(loadConfig({ NODE_ENV: 'test' }).logLevel).toBe('silent');
  });

  it('requires a session verifier when asked to', () => {
    expect(() => loadConfig(DEVELOPMENT, { requireSessionAuth: true })).toThrow(
      'Set AUTH_JWT_SECRET (HS256) or AUTH_JWKS_URL to verify session tokens',
    );
    expect(loadConfig({ ...DEVELOPMENT, AUTH_JWKS_URL: 'https://idp.example.com/jwks' }, { requireSessionAuth: true }).authJwksUrl).toBe(
      'https://idp.example.com/jwks',
    );
  });

  describe('CRON_SECRET and CRON_SCHEDULE_*', () => {
    it('treats an empty CRON_SECRET as unset (the cron routes answer 503)', () => {
      expect(loadConfig({ ...DEVELOPMENT, CRON_SECRET: '' }).cronSecret).toBeUndefined();
      expect(loadConfig({ ...DEVELOPMENT, CRON_SECRET: '   ' }).cronSecret).toBeUndefined();
    });

    it('keeps the CRON_SCHEDULE_* variables as given, trimmed, leaving out empty ones', () => {
      expect(
        loadConfig({ ...DEVELOPMENT, CRON_SCHEDULE_SEND_CALENDAR_REMINDERS: ' */5 * * * * ', CRON_SCHEDULE_RETRY_FIELD_INDEXES: 'off', CRON_SCHEDULE_X: '' }).cronScheduleOverrides,
      ).toEqual({ CRON_SCHEDULE_RETRY_FIELD_INDEXES: 'off', CRON_SCHEDULE_SEND_CALENDAR_REMINDERS: '*/5 * * * *' });
      expect(loadConfig(DEVELOPMENT).cronScheduleOverrides).toEqual({});
    });
  });

  describe('CURSOR_SECRET', () => {
    it('is the given secret when set', () => {
      const secret = 'a-cursor-secret-of-at-least-32-chars!';
      expect(loadConfig({ ...DEVELOPMENT, CURSOR_SECRET: secret }).cursorSecret).toBe(secret);
      expect(loadConfig({ NODE_ENV: 'production', CURSOR_SECRET: secret }).cursorSecret).toBe(secret);
    });

    it('outside production, unset, is a random one per process, never a fixed value', () => {
      const first = loadConfig({ NODE_ENV: 'test' }).cursorSecret;
      const second = loadConfig(DEVELOPMENT).cursorSecret;
      expect(first.length).toBeGreaterThanOrEqual(32);
      expect(second.length).toBeGreaterThanOrEqual(32);
      expect(first).not.toBe(second);
    });
  });

  describe('SHUTDOWN_DRAIN_SECONDS and SHUTDOWN_TIMEOUT_SECONDS', () => {
    it('drains 10 s in production and not at all in development or test; 10 s for work under way everywhere', () => {
      expect(loadConfig({ CURSOR_SECRET: 'c'.repeat(32) })).toMatchObject({ shutdownDrainSeconds: 10, shutdownTimeoutSeconds: 10 });
      expect(loadConfig(DEVELOPMENT)).toMatchObject({ shutdownDrainSeconds: 0, shutdownTimeoutSeconds: 10 });
      expect(loadConfig({ NODE_ENV: 'test' })).toMatchObject({ shutdownDrainSeconds: 0, shutdownTimeoutSeconds: 10 });
    });

    it('takes whole seconds within their bounds, a drain of 0 included', () => {
      expect(loadConfig({ ...DEVELOPMENT, SHUTDOWN_DRAIN_SECONDS: '0', SHUTDOWN_TIMEOUT_SECONDS: '300' })).toMatchObject({
        shutdownDrainSeconds: 0,
        shutdownTimeoutSeconds: 300,
      });
    });

    it.each([
      [{ SHUTDOWN_DRAIN_SECONDS: '-1' }, 'SHUTDOWN_DRAIN_SECONDS must be a whole number of seconds from 0 to 300, got "-1"'],
      [{ SHUTDOWN_DRAIN_SECONDS: '301' }, 'SHUTDOWN_DRAIN_SECONDS must be a whole number of seconds from 0 to 300, got "301"'],
      [{ SHUTDOWN_DRAIN_SECONDS: '2.5' }, 'SHUTDOWN_DRAIN_SECONDS must be a whole number of seconds from 0 to 300, got "2.5"'],
      [{ SHUTDOWN_TIMEOUT_SECONDS: '0' }, 'SHUTDOWN_TIMEOUT_SECONDS must be a whole number of seconds from 1 to 300, got "0"'],
      [{ SHUTDOWN_TIMEOUT_SECONDS: 'ten' }, 'SHUTDOWN_TIMEOUT_SECONDS must be a whole number of seconds from 1 to 300, got "ten"'],
    ])('refuses %j', (env, message) => {
      expect(() => loadConfig({ ...DEVELOPMENT, ...env })).toThrow(new ConfigError(message));
    });
  });
});
