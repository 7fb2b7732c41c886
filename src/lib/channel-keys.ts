// Sales-channel keys: each channel's signing secret is derived from CHANNEL_KEY_SECRET,
// so the Inventory stores no key material at all, and a channel is revoked alone by its generation.
import { CHANNEL_ID_PATTERN } from '../../contracts/channel-answers';

const encoder = new TextEncoder();

/**
 * Why derived rather than stored: an HMAC verifier needs the key itself (a stored hash could not
 * check a signature), so a stored key would sit readable in Durable Object storage, its backups
 * and any bug that dumps rows. Derived keys (the pattern of AWS SigV4's derived signing keys and
 * HKDF's expand step, RFC 5869) leave only `CHANNEL_KEY_SECRET` to guard, a write-only
 * `wrangler secret`; a leaked channel key reveals neither the root nor another channel's key.
 * The generation is part of the input, so re-activating a revoked channel yields a new key and the
 * old one never works again.
 *
 * @returns the channel's secret: base64url of HMAC-SHA256(root, "wr-channel-key\n" + event + "\n" + channel + "\n" + generation), 43 characters
 * @throws Error when the root is empty (the caller checks the setting first)
 */
export async function deriveChannelSecret(root: string, eventId: string, channelId: string, generation: number): Promise<string> {
  if (!root) throw new Error('CHANNEL_KEY_SECRET is not set');
  const key = await crypto.subtle.importKey('raw', encoder.encode(root), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = await crypto.subtle.sign('HMAC', key, encoder.encode(`wr-channel-key\n${eventId}\n${channelId}\n${generation}`));
  let binary = '';
  for (const b of new Uint8Array(mac)) binary += String.fromCharCode(b);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

/** The key id a channel sends in `X-WR-Channel-Key`: `<channelId>.<generation>`. */
export function channelKeyId(channelId: string, generation: number): string {
  return `${channelId}.${generation}`;
}

/**
 * Parses a key id.
 * @returns the channel and generation (a whole number 1..2^31), or null when malformed
 */
export function parseChannelKeyId(keyId: string | undefined): { channelId: string; generation: number } | null {
  const m = keyId === undefined ? null : /^([^.]+)\.([1-9][0-9]{0,9})$/.exec(keyId);
  if (!m || !CHANNEL_ID_PATTERN.test(m[1]!) || Number(m[2]) > 2 ** 31) return null;
  return { channelId: m[1]!, generation: Number(m[2]) };
}
