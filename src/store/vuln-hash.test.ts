import { describe, expect, it } from 'vitest';
import { vulnHash } from './vuln-hash.js';

describe('vuln hash', () => {
  it("is MD5 over matched-at, template-id, matcher-name, extractor-name and extracted results, as ProjectDiscovery's agent computes it", () => {
    const event = {
      'template-id': 'git-config',
      type: 'http',
      'matched-at': 'https://app.test/.git/config',
      'matcher-name': 'm',
      'extractor-name': 'remote',
      'extracted-results': ['a', 'b'],
    };
    // md5 of the plain concatenation "https://app.test/.git/config" "git-config" "m" "remote" "a" "b"
    expect(vulnHash(event)).toBe('6e00432776bca22d027e5f4501eb5351');
    expect(
      vulnHash({
        ...event,
        req_url_pattern: '/{{path}}/.git/config',
        'matched-at': 'https://app.test:8443/x/.git/config',
      }),
    ).toBe(vulnHash({ ...event, 'matched-at': 'https://app.test:8443/{{path}}/.git/config' }));
  });
});
