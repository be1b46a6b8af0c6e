import type { ResultEvent } from '../../event/index.js';

/** A finding as a scan reports it, with the fields the exports use; `overrides` replace fields. */
export function finding(overrides: Partial<ResultEvent> = {}): ResultEvent {
  return {
    'template-id': 'exposed-env',
    'template-url': 'https://templates.example/exposed-env',
    info: {
      name: 'Exposed .env file',
      author: ['alice'],
      tags: ['exposure', 'config'],
      description: 'The .env file is served.',
      reference: ['https://docs.example/env'],
      severity: 'high',
      classification: { 'cve-id': null, 'cwe-id': ['cwe-200'], 'cvss-score': 7.5 },
    },
    'matcher-name': 'body',
    type: 'http',
    host: 'app.example.com',
    'matched-at': 'https://app.example.com/.env?q=a b',
    'extracted-results': ['DB_PASSWORD=[REDACTED]'],
    timestamp: '2026-01-02T03:04:05Z',
    'matcher-status': true,
    ...overrides,
  };
}
