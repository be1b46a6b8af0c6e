import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StoreRequestError } from './errors.js';
import { describeLocation, maskCredentials, resolveLocation, type StoreLocation } from './location.js';

const postgres = (url: string): StoreLocation => ({ engine: 'postgres', url });

describe('describeLocation', () => {
  it.each([
    ['postgres://keyhole:hunter2@db.test/keyhole', 'PostgreSQL postgres://keyhole:***@db.test/keyhole'],
    [
      'postgres://keyhole@db.test/keyhole?password=hunter2',
      'PostgreSQL postgres://keyhole@db.test/keyhole?password=***',
    ],
    [
      'postgresql://keyhole@db.test:5433/keyhole?sslmode=verify-full&sslpassword=hunter2&sslkey=/home/k/.pg/hunter2.key',
      'PostgreSQL postgresql://keyhole@db.test:5433/keyhole?sslmode=verify-full&sslpassword=***&sslkey=***',
    ],
    [
      'postgres://keyhole@db.test/keyhole?PASSWORD=hunter2&password=hunter2',
      'PostgreSQL postgres://keyhole@db.test/keyhole?PASSWORD=***&password=***',
    ],
    [
      'postgres://keyhole@db.test/keyhole?pass%77ord=hunter2',
      'postgres://keyhole@db.test/keyhole?password=***',
    ],
    [
      'postgres://keyhole:hunter2@/keyhole?host=/run/postgresql',
      'postgres://keyhole:***@/keyhole?host=/run/postgresql',
    ],
    ['postgres://keyhole:hun ter2@db.test/keyhole', 'postgres://keyhole:***@db.test/keyhole'],
    [
      'postgres://keyhole:hunter2@db.test:notaport/keyhole',
      'PostgreSQL (a URL that cannot be parsed, not shown)',
    ],
  ])('shows %s without its credentials', (url, shown) => {
    const described = describeLocation(postgres(url));
    expect(described).toContain(shown);
    expect(described).not.toMatch(/hunter|hun ter/);
  });

  it('never shows a password given in the user part or the query, whatever its characters', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 20 }), fc.boolean(), (tail, inQuery) => {
        const password = `Zq9${tail}`;
        const url = inQuery
          ? `postgres://keyhole@db.test/keyhole?password=${encodeURIComponent(password)}`
          : `postgres://keyhole:${encodeURIComponent(password)}@db.test/keyhole`;
        const described = describeLocation(postgres(url));
        expect(described).not.toContain('Zq9');
        expect(described).toContain('db.test/keyhole');
      }),
    );
  });

  it('shows an SQLite store by its path', () => {
    expect(describeLocation({ engine: 'sqlite', path: '/srv/keyhole.db', isDefault: false })).toBe(
      'SQLite /srv/keyhole.db',
    );
  });
});

describe('maskCredentials', () => {
  it('masks the secrets of the URL in a message, decoded or as written', () => {
    const location = postgres(
      'postgres://keyhole:p%40ss@db.test/keyhole?sslkey=/keys/client.key&sslpassword=open+sesame',
    );
    const message =
      "ENOENT: no such file or directory, open '/keys/client.key' (password p@ss, p%40ss; passphrase open sesame)";
    expect(maskCredentials(message, location)).toBe(
      "ENOENT: no such file or directory, open '***' (password ***, ***; passphrase ***)",
    );
  });

  it('replaces the whole URL by its described form', () => {
    const url = 'postgres://keyhole@db.test/keyhole?password=hunter2';
    expect(maskCredentials(`cannot reach ${url}`, postgres(url))).toBe(
      'cannot reach postgres://keyhole@db.test/keyhole?password=***',
    );
  });
});

describe('resolveLocation', () => {
  it.each([
    'host=db.test password=hunter2 dbname=keyhole',
    'dbname=keyhole user=keyhole',
    '  user = keyhole password=hunter2',
  ])('refuses the libpq keyword/value string %j without showing it', (given) => {
    let refused: unknown;
    try {
      resolveLocation(given, {}, '/work');
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(StoreRequestError);
    expect((refused as Error).message).toContain('postgres://USER@HOST:PORT/DBNAME');
    expect((refused as Error).message).not.toContain('hunter2');
  });

  it('still takes file names with an equals sign as SQLite paths', () => {
    expect(resolveLocation('./runs/a=b.db', {}, '/work')).toEqual({
      engine: 'sqlite',
      path: '/work/runs/a=b.db',
      isDefault: false,
    });
  });
});
