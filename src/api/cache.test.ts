import { describe, expect, it } from 'vitest';
import { PageCache, type RenderedPage } from './cache.js';

function renderer(text: string, live = false) {
  let renders = 0;
  const render = async (): Promise<RenderedPage> => {
    renders++;
    return { body: Buffer.from(`${text} ${renders}`), live };
  };
  return { render, renders: () => renders };
}

describe('PageCache', () => {
  it('serves the kept bytes for the same key under the same token', async () => {
    const cache = new PageCache();
    cache.observe('t1');
    const page = renderer('scans');
    const first = await cache.serve('t1', 'team-a /v1/scans', page.render);
    const again = await cache.serve('t1', 'team-a /v1/scans', page.render);
    expect(first).toMatchObject({ body: Buffer.from('scans 1'), hit: false });
    expect(again).toMatchObject({ body: Buffer.from('scans 1'), hit: true });
    expect(page.renders()).toBe(1);
  });

  it("never serves one team's page to another team", async () => {
    const cache = new PageCache();
    cache.observe('t1');
    await cache.serve('t1', 'team-a\n/v1/scans', async () => ({ body: Buffer.from('a'), live: false }));
    const other = await cache.serve('t1', 'team-b\n/v1/scans', async () => ({
      body: Buffer.from('b'),
      live: false,
    }));
    expect(other).toMatchObject({ body: Buffer.from('b'), hit: false });
  });

  it('drops every page when the token moves', async () => {
    const cache = new PageCache();
    const page = renderer('scans');
    cache.observe('t1');
    await cache.serve('t1', 'k', page.render);
    cache.observe('t2');
    expect(await cache.serve('t2', 'k', page.render)).toMatchObject({
      body: Buffer.from('scans 2'),
      hit: false,
    });
  });

  it('keeps nothing rendered under a token the store has moved on from', async () => {
    const cache = new PageCache();
    const page = renderer('scans');
    cache.observe('t2');
    expect((await cache.serve('t1', 'k', page.render)).hit).toBe(false);
    expect((await cache.serve('t2', 'k', page.render)).body).toEqual(Buffer.from('scans 2'));
  });

  it('renders a live page again once it is older than the live limit, and a still page never', async () => {
    const cache = new PageCache(1024 * 1024, 1000);
    cache.observe('t1');
    const live = renderer('live', true);
    const still = renderer('still', false);
    const start = Date.now();
    await cache.serve('t1', 'live', live.render, start);
    await cache.serve('t1', 'still', still.render, start);
    expect((await cache.serve('t1', 'live', live.render, start + 900)).hit).toBe(true);
    expect((await cache.serve('t1', 'live', live.render, start + 5000)).hit).toBe(false);
    expect((await cache.serve('t1', 'still', still.render, start + 60_000)).hit).toBe(true);
    expect(live.renders()).toBe(2);
    expect(still.renders()).toBe(1);
  });

  it('renders a page once for concurrent requests under the same token', async () => {
    const cache = new PageCache();
    cache.observe('t1');
    const page = renderer('scans');
    const results = await Promise.all([1, 2, 3].map(() => cache.serve('t1', 'k', page.render)));
    expect(page.renders()).toBe(1);
    expect(results.map((r) => r.body.toString())).toEqual(['scans 1', 'scans 1', 'scans 1']);
    expect(results.map((r) => r.hit)).toEqual([false, true, true]);
  });

  it('evicts the oldest pages to stay within its byte budget', async () => {
    const cache = new PageCache(8 * 100, 1000);
    cache.observe('t1');
    const sized = (n: number) => async () => ({ body: Buffer.alloc(n), live: false });
    await cache.serve('t1', 'a', sized(100));
    for (const key of ['b', 'c', 'd', 'e', 'f', 'g', 'h', 'i']) await cache.serve('t1', key, sized(100));
    expect((await cache.serve('t1', 'a', sized(100))).hit).toBe(false);
    expect((await cache.serve('t1', 'i', sized(100))).hit).toBe(true);
  });

  it('compresses a page only when a client asks for its gzip, and once however many ask', async () => {
    const compressed: string[] = [];
    const compress = async (body: Buffer) => {
      compressed.push(body.toString());
      return Buffer.from(`gz ${body.toString()}`);
    };
    const cache = new PageCache(64 * 1024, 1000, compress);
    cache.observe('t1');
    const page = renderer('scans');
    const first = await cache.serve('t1', 'k', page.render);
    await cache.serve('t1', 'other', renderer('other').render);
    expect(compressed).toEqual([]);
    const again = await cache.serve('t1', 'k', page.render);
    const gzips = await Promise.all([first.gzipped(), again.gzipped(), again.gzipped()]);
    expect(gzips.map(String)).toEqual(['gz scans 1', 'gz scans 1', 'gz scans 1']);
    expect(compressed).toEqual(['scans 1']);
  });

  it('counts a gzip made later within its byte budget', async () => {
    const cache = new PageCache(8 * 100, 1000, async (body) => Buffer.alloc(body.length));
    cache.observe('t1');
    const sized = (n: number) => async () => ({ body: Buffer.alloc(n), live: false });
    for (const key of ['a', 'b', 'c', 'd', 'e', 'f', 'g']) await cache.serve('t1', key, sized(100));
    expect((await cache.serve('t1', 'a', sized(100))).hit).toBe(true);
    // Its gzip brings the kept bytes to 800 with `h`: within the budget; one more page is not.
    await (await cache.serve('t1', 'g', sized(100))).gzipped();
    expect((await cache.serve('t1', 'a', sized(100))).hit).toBe(true);
    await cache.serve('t1', 'h', sized(100));
    expect((await cache.serve('t1', 'a', sized(100))).hit).toBe(false);
  });
});
