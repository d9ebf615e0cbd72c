/**
 * DATABASE_URL with several hosts (server/db/hosts.ts): libpq's list and target_session_attrs,
 * read for node-postgres; a URL that cannot work stops the server at start with a clear message.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../server/config.ts';
import { hostLabel, parseDatabaseUrl } from '../server/db/hosts.ts';
import { openDatabase } from '../server/db/index.ts';
import { HostSelector } from '../server/db/failover.ts';
import { isUnavailable } from '../server/core/shared/errors.ts';
import { freePort } from '../scripts/faults/lib.ts';

const refusal = (url: string) => {
  try {
    parseDatabaseUrl(url);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error(`accepted ${url}`);
};

describe('DATABASE_URL hosts', () => {
  it('one host: as written, target any, nothing changed for node-postgres', () => {
    const url = 'postgres://ucp:s3cret@db.internal:6432/ucp?sslmode=require&options=-c%20search_path%3Dx';
    expect(parseDatabaseUrl(url)).toEqual({ hosts: [{ host: 'db.internal', port: 6432 }], sessionAttrs: 'any', connectionString: url, connectTimeoutMs: undefined });
  });

  it('several hosts, each with its own port or the default, and target_session_attrs', () => {
    const t = parseDatabaseUrl('postgresql://u:p@h1:5432,h2,10.0.0.3:5433/ucp?target_session_attrs=read-write&sslmode=disable');
    expect(t.hosts).toEqual([
      { host: 'h1', port: 5432 },
      { host: 'h2', port: 5432 },
      { host: '10.0.0.3', port: 5433 },
    ]);
    expect(t.sessionAttrs).toBe('read-write');
    // node-postgres gets the first host and every other parameter, without the ones it does not know.
    expect(t.connectionString).toBe('postgresql://u:p@h1:5432/ucp?sslmode=disable');
  });

  it('IPv6 hosts in brackets, unix socket directories, connect_timeout per host', () => {
    const t = parseDatabaseUrl('postgres://u@[::1]:5433,[fe80::2]/ucp?target_session_attrs=primary&connect_timeout=3');
    expect(t.hosts).toEqual([
      { host: '::1', port: 5433 },
      { host: 'fe80::2', port: 5432 },
    ]);
    expect(t).toMatchObject({ sessionAttrs: 'primary', connectTimeoutMs: 3000, connectionString: 'postgres://u@[::1]:5433/ucp' });
    expect(hostLabel(t.hosts[0])).toBe('[::1]:5433');
    expect(parseDatabaseUrl('postgres://u@%2Fvar%2Frun%2Fpostgresql,h2/ucp').hosts[0]).toEqual({ host: '/var/run/postgresql', port: 5432 });
    expect(parseDatabaseUrl('postgres://u@h1,h2/ucp?target_session_attrs=any').sessionAttrs).toBe('any');
  });

  it('refuses what libpq would pick a read-only server for, naming the values that work', () => {
    for (const v of ['read-only', 'standby', 'prefer-standby']) expect(refusal(`postgres://u@h1,h2/ucp?target_session_attrs=${v}`)).toMatch(/cannot write to; use read-write, primary or any/);
    expect(refusal('postgres://u@h1/ucp?target_session_attrs=readwrite')).toMatch(/target_session_attrs=readwrite is not one of any, read-write, primary/);
  });

  it('refuses bad URLs with the fault named and the password never shown', () => {
    expect(refusal('mysql://u@h/ucp')).toMatch(/not a postgres:\/\/ or postgresql:\/\/ URL/);
    expect(refusal('postgres://u:hunter2@h1,,h2/ucp')).toMatch(/host 2 of the list is empty/);
    expect(refusal('postgres://u:hunter2@h1,h2:99999/ucp')).toMatch(/the port of h2 is "99999"/);
    expect(refusal('postgres://u:hunter2@h1:54x2/ucp')).toMatch(/the port of h1 is "54x2"/);
    expect(refusal('postgres://u:hunter2@h1,:5432/ucp')).toMatch(/host 2 of the list has a port but no name/);
    expect(refusal('postgres://u:hunter2@[::1/ucp')).toMatch(/not a bracketed IPv6 address/);
    expect(refusal('postgres://u:hunter2@h1 h2/ucp')).toMatch(/"h1 h2" is not a host name/);
    expect(refusal('postgres://u:hunter2@h1/ucp?host=a,b')).toMatch(/list several hosts in the URL itself/);
    expect(refusal('postgres://u:hunter2@h1/ucp?connect_timeout=2s')).toMatch(/connect_timeout=2s is not a whole number/);
    for (const url of ['postgres://u:hunter2@h1,,h2/ucp', 'postgres://u:hunter2@h1,h2:99999/ucp']) expect(refusal(url)).not.toContain('hunter2');
  });

  it('the server refuses to open such a URL at start, before connecting anywhere', async () => {
    await expect(openDatabase({ databaseUrl: 'postgres://u@h1,h2/ucp?target_session_attrs=standby', dataDir: 'memory://' })).rejects.toThrow(ConfigError);
  });
});

describe('choosing a host (server/db/failover.ts)', () => {
  it('no host answers: one probe pass fails at once naming every host and why, as unavailable; the next waits 250 ms', async () => {
    const [a, b] = [await freePort(), await freePort()]; // nothing listens on either
    const target = parseDatabaseUrl(`postgres://u:hunter2@127.0.0.1:${a},127.0.0.1:${b}/ucp?target_session_attrs=read-write`);
    const selector = new HostSelector(target, { connectionString: target.connectionString }, 2000);
    const first = await selector.pick().then(() => null, (e: Error) => e);
    expect(first).toMatchObject({ code: '08001' });
    expect(first!.message).toMatch(new RegExp(`^no PostgreSQL host is read-write: 127\\.0\\.0\\.1:${a} failed \\(.*ECONNREFUSED.*\\); 127\\.0\\.0\\.1:${b} failed`));
    expect(first!.message).not.toContain('hunter2');
    expect(isUnavailable(first)).toBe(true);
    // Within the hold, the same answer without probing again (requests during an outage stay cheap).
    expect(await selector.pick().then(() => null, (e: Error) => e)).toBe(first);
    await new Promise((r) => setTimeout(r, 300));
    const later = await selector.pick().then(() => null, (e: Error) => e);
    expect(later).not.toBe(first);
    expect(later).toMatchObject({ code: '08001' });
  });

  it('one host: nothing to choose, no probe (the connection itself is checked)', async () => {
    const target = parseDatabaseUrl('postgres://u@db.invalid:5432/ucp?target_session_attrs=read-write');
    expect(await new HostSelector(target, {}, 100).pick()).toEqual({ host: 'db.invalid', port: 5432 });
  });
});
