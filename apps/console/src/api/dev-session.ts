/**
 * The development sign-in (`/dev/session` on the api), present only outside production: `GET`
 * says whether it exists and names the demo user, `POST { email }` mints a session for anyone.
 */
export interface DevSignIn {
  demoEmail: string;
}

export async function devSignInAvailable(doFetch: typeof fetch = fetch): Promise<DevSignIn | null> {
  try {
    const response = await doFetch('/dev/session');
    if (!response.ok) return null;
    return (await response.json()) as DevSignIn;
  } catch {
    return null;
  }
}

export async function mintDevSession(email: string, doFetch: typeof fetch = fetch): Promise<string> {
  const response = await doFetch('/dev/session', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email }),
  });
  const body = (await response.json().catch(() => undefined)) as { token?: string; error?: { message?: string } } | undefined;
  if (!response.ok || !body?.token) {
    const requestId = response.headers.get('X-Request-Id');
    throw new Error(`${body?.error?.message ?? `HTTP ${response.status}`}${requestId ? ` (request id ${requestId})` : ''}`);
  }
  return body.token;
}
