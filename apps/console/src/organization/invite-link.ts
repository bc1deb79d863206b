/** Where an invitation is accepted: the console's join page. */
export const JOIN_PATH = '/join';

/**
 * The link to send an invited person. The token rides in the fragment, which browsers never send
 * to a server, so it stays out of request logs and Referer headers.
 */
export function inviteLink(origin: string, token: string): string {
  return `${origin}${JOIN_PATH}#${encodeURIComponent(token)}`;
}

/** The token of a join link's fragment (`#inv_…`), or null. */
export function tokenFromFragment(hash: string): string | null {
  const token = decodeURIComponent(hash.replace(/^#/, '')).trim();
  return token ? token : null;
}
