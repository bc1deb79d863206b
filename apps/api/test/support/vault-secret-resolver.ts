/**
 * An operator's secret resolver, as WEBHOOK_SECRET_RESOLVER loads one: here the "vault" is an
 * environment variable holding a JSON map from endpoint id to secret.
 */
export async function resolveWebhookSecret(secret: { endpointId: string }): Promise<string | null> {
  const vault = JSON.parse(process.env.TEST_WEBHOOK_VAULT ?? '{}') as Record<string, string>;
  return vault[secret.endpointId] ?? null;
}
