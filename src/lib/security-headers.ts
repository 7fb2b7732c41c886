// Security headers for the pages the gateway itself renders (never for proxied origin pages).

const hashes = new Map<string, Promise<string>>();

/** The CSP source for an inline script: `'sha256-<base64>'` of its exact text (CSP Level 2). */
export function scriptHash(source: string): Promise<string> {
  let h = hashes.get(source);
  if (!h) {
    h = crypto.subtle
      .digest('SHA-256', new TextEncoder().encode(source))
      .then((d) => `'sha256-${btoa(String.fromCharCode(...new Uint8Array(d)))}'`);
    hashes.set(source, h);
  }
  return h;
}

/**
 * Headers for a gateway page: a CSP that runs only the listed inline scripts (by hash), loads
 * nothing from elsewhere but HTTPS images, talks only to this origin and cannot be framed; plus
 * `nosniff` and a same-origin referrer policy.
 *
 * @param scripts the exact text of each inline script on the page
 */
export async function pageSecurityHeaders(scripts: readonly string[]): Promise<Record<string, string>> {
  const allowed = (await Promise.all(scripts.map(scriptHash))).join(' ') || "'none'";
  return {
    'content-security-policy': `default-src 'none'; script-src ${allowed}; style-src 'unsafe-inline'; img-src 'self' https:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'same-origin',
  };
}
