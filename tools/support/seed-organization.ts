import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';

export interface SeededOrganization {
  organizationId: string;
  /** Full-access API keys of the organization, as many as asked for. */
  tokens: string[];
}

/**
 * Seeds through a running api's /rpc, as a person in the web application would: a session token
 * signed with the api's AUTH_JWT_SECRET creates an organization, a model `modelKey`, a webhook
 * endpoint to `receiverUrl` for every record created, and full-access API keys.
 */
export async function seedOrganization(options: {
  apiUrl: string;
  jwtSecret: string;
  name: string;
  modelKey: string;
  receiverUrl: string;
  keyCount: number;
}): Promise<SeededOrganization> {
  const session = await new SignJWT({ email: `owner-${randomUUID()}@example.com`, name: 'Owner' })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(randomUUID())
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(options.jwtSecret));
  const rpc = async <T>(name: string, input: unknown, organizationId?: string): Promise<T> => {
    const response = await fetch(`${options.apiUrl}/rpc/${name}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${session}`, 'Content-Type': 'application/json', ...(organizationId ? { 'X-Organization-Id': organizationId } : {}) },
      body: JSON.stringify(input),
    });
    const body = (await response.json()) as T;
    if (response.status !== 200) throw new Error(`${name}: ${response.status} ${JSON.stringify(body)}`);
    return body;
  };
  const organization = await rpc<{ id: string }>('organizations.create', { name: options.name });
  await rpc('dataModels.create', { key: options.modelKey, name: 'Orders' }, organization.id);
  await rpc('webhooks.endpoints.create', { url: options.receiverUrl, subscriptions: ['data-models.record-created'] }, organization.id);
  const tokens: string[] = [];
  for (let index = 0; index < options.keyCount; index++) {
    tokens.push((await rpc<{ token: string }>('apiKeys.create', { name: `${options.name} ${index + 1}`, fullAccess: true }, organization.id)).token);
  }
  return { organizationId: organization.id, tokens };
}
