// The single sign-on settings (ACCESS_TEAM_DOMAIN, ACCESS_AUD, ACCESS_ROLES) and the role an identity gets.
import { describe, expect, it } from 'vitest';
import { accessRole, parseAccessSettings } from '../../src/lib/access-sso';

const base = { ACCESS_TEAM_DOMAIN: 'acme.cloudflareaccess.com', ACCESS_AUD: 'tag', ACCESS_ROLES: 'ana@acme.com=admin' };

describe('Access settings', () => {
  it('is off with all three unset, and derives the issuer and certs URL from the team domain', () => {
    expect(parseAccessSettings({})).toBeNull();
    expect(parseAccessSettings({ ...base, ACCESS_TEAM_DOMAIN: 'https://Acme.cloudflareaccess.com/' })).toMatchObject({
      issuer: 'https://acme.cloudflareaccess.com',
      certsUrl: 'https://acme.cloudflareaccess.com/cdn-cgi/access/certs',
      audience: 'tag',
    });
  });

  it.each([
    [{ ...base, ACCESS_AUD: '' }, 'ACCESS_AUD'],
    [{ ...base, ACCESS_TEAM_DOMAIN: '' }, 'ACCESS_TEAM_DOMAIN'],
    [{ ...base, ACCESS_ROLES: '' }, 'ACCESS_ROLES'],
    [{ ...base, ACCESS_TEAM_DOMAIN: 'not a host' }, 'ACCESS_TEAM_DOMAIN'],
    [{ ...base, ACCESS_ROLES: 'ana@acme.com=owner' }, 'ACCESS_ROLES'],
    [{ ...base, ACCESS_ROLES: 'ana@acme.com' }, 'ACCESS_ROLES'],
    [{ ...base, ACCESS_ROLES: 'ana=admin' }, 'ACCESS_ROLES'],
  ])('refuses %j naming %s', (env, variable) => {
    expect(() => parseAccessSettings(env)).toThrowError(expect.objectContaining({ variable }));
  });

  it('gives the strongest matching role, emails case-insensitively, and none when nothing matches', () => {
    const { rules } = parseAccessSettings({ ...base, ACCESS_ROLES: '*@acme.com=viewer, group:Ops=operator, Ana@Acme.com=admin' })!;
    expect(accessRole(rules, 'ANA@acme.com', [])).toBe('admin');
    expect(accessRole(rules, 'bo@acme.com', ['Ops'])).toBe('operator');
    expect(accessRole(rules, 'bo@acme.com', [])).toBe('viewer');
    expect(accessRole(rules, 'bo@acme.com.evil.org', ['ops'])).toBeNull();
  });
});
