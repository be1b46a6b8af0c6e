import { describe, expect, it } from 'vitest';
import { indexedValues, ResponseHistory } from './history.js';

describe('ResponseHistory', () => {
  it('answers indexed names from the response recorded for that request', () => {
    const history = new ResponseHistory();
    history.record(1, new Map([['body', 'first']]));
    history.record(
      2,
      new Map<string, string | number>([
        ['body', 'second'],
        ['status_code', 302],
        ['x_request_id', 'abc'],
      ]),
    );
    expect(history.get('body_1')).toBe('first');
    expect(history.get('body_2')).toBe('second');
    expect(history.get('status_code_2')).toBe(302);
    expect(history.get('x_request_id_2')).toBe('abc');
    expect(history.get('body_3')).toBeUndefined();
    expect(history.get('body')).toBeUndefined();
    expect(history.get('body_01')).toBeUndefined();
    expect(history.get('body_0')).toBeUndefined();
    expect(history.has('status_code_2')).toBe(true);
  });

  it('keeps the latest value of each name, and earlier names the newer response lacks', () => {
    const history = new ResponseHistory();
    history.record(
      1,
      new Map([
        ['body', 'old'],
        ['set_cookie', 'a=1'],
      ]),
    );
    history.record(1, new Map([['body', 'new']]));
    expect(history.get('body_1')).toBe('new');
    expect(history.get('set_cookie_1')).toBe('a=1');
  });

  it('iterates every indexed name', () => {
    const history = new ResponseHistory();
    history.record(1, new Map([['body', 'one']]));
    history.record(2, new Map([['body', 'two']]));
    expect([...history]).toEqual([
      ['body_1', 'one'],
      ['body_2', 'two'],
    ]);
    expect(history.size).toBe(2);
  });

  it('views one response under the names of its request only', () => {
    const view = indexedValues(3, new Map([['body', 'three']]));
    expect(view.get('body_3')).toBe('three');
    expect(view.get('body_1')).toBeUndefined();
  });
});
