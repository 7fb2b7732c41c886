// Worker variables: unset takes the default, malformed throws naming the variable (no silent fallback).
import { describe, expect, it } from 'vitest';
import { SettingsError, releaseTickMs } from '../../contracts/settings';
import { DEFAULT_ORIGIN_TIMEOUT_MS, parseGatewaySettings, parseJoinCoalescing, parseOriginSettings } from '../../src/lib/settings';

const full = {
  TOKEN_ISSUER: 'gw',
  ADMISSION_SIGNING_JWK: '{"kty":"EC"}',
  ADMISSION_PREVIOUS_PUBLIC_JWK: '',
  ADMIN_TOKEN: 'a',
  ORIGIN_HMAC_SECRET: 'h',
  ORIGIN_URL: '',
  ORIGIN_TIMEOUT_MS: '',
  RELEASE_TICK_MS: '',
} as unknown as Env;

function variableOf(run: () => unknown): string | null {
  try {
    run();
    return null;
  } catch (err) {
    if (!(err instanceof SettingsError)) throw err;
    expect(err.message).toContain(err.variable);
    return err.variable;
  }
}

describe('gateway settings', () => {
  it('takes the defaults for unset variables', () => {
    expect(parseOriginSettings({})).toEqual({ url: null, timeoutMs: DEFAULT_ORIGIN_TIMEOUT_MS });
    expect(parseOriginSettings({ ORIGIN_URL: 'https://shop.example', ORIGIN_TIMEOUT_MS: '250' })).toEqual({
      url: 'https://shop.example',
      timeoutMs: 250,
    });
    expect(releaseTickMs(undefined)).toBe(1000);
    expect(releaseTickMs('3600000')).toBe(3_600_000);
    expect(parseGatewaySettings(full)).toMatchObject({ tokenIssuer: 'gw', adminToken: 'a', originHmacSecret: 'h' });
  });

  // Regression: a malformed ORIGIN_TIMEOUT_MS or RELEASE_TICK_MS silently became the default.
  it.each([
    ['ORIGIN_TIMEOUT_MS', () => parseOriginSettings({ ORIGIN_TIMEOUT_MS: 'abc' })],
    ['ORIGIN_TIMEOUT_MS', () => parseOriginSettings({ ORIGIN_TIMEOUT_MS: '0' })],
    ['ORIGIN_TIMEOUT_MS', () => parseOriginSettings({ ORIGIN_TIMEOUT_MS: '1.5' })],
    ['ORIGIN_URL', () => parseOriginSettings({ ORIGIN_URL: 'shop.example' })],
    ['ORIGIN_URL', () => parseOriginSettings({ ORIGIN_URL: 'ftp://shop.example' })],
    ['RELEASE_TICK_MS', () => releaseTickMs('fast')],
    ['RELEASE_TICK_MS', () => releaseTickMs('-1')],
    ['TOKEN_ISSUER', () => parseGatewaySettings({ ...full, TOKEN_ISSUER: '' })],
    ['ADMISSION_SIGNING_JWK', () => parseGatewaySettings({ ...full, ADMISSION_SIGNING_JWK: undefined } as unknown as Env)],
  ])('refuses a malformed %s, naming it', (variable, run) => {
    expect(variableOf(run)).toBe(variable);
  });

  it('never echoes a secret in the error', () => {
    expect(() => parseGatewaySettings({ ...full, ADMISSION_SIGNING_JWK: '' })).toThrow(/^ADMISSION_SIGNING_JWK must be set/);
  });
});

describe('JOIN_COALESCING', () => {
  it('is auto when unset or empty, and takes auto, on and off', () => {
    expect([undefined, '', ' ', 'auto', 'on', 'off'].map(parseJoinCoalescing)).toEqual(['auto', 'auto', 'auto', 'auto', 'on', 'off']);
  });

  it.each(['yes', 'true', '1', 'ON', 'auto,on'])('refuses %j naming the variable', (raw) => {
    expect(variableOf(() => parseJoinCoalescing(raw))).toBe('JOIN_COALESCING');
  });
});
