/** A secret resolver in TypeScript, as an operator may write one: types only a compiler removes. */
interface SecretReference {
  endpointId: string;
}

export function resolveWebhookSecret(secret: SecretReference): string | null {
  return secret.endpointId === 'never' ? 'x' : null;
}
