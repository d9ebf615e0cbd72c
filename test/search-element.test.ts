// @vitest-environment happy-dom
/**
 * `<ucp-search>`'s chunk (src/search/search.ts) on its own: what it asks the UCP catalog search
 * for, paging forward and back by cursor, the words for nothing found and for a failure (with a
 * retry that works), and the server-rendered fallback kept until the first results. The element in
 * a real browser against the real server: e2e/shop.spec.ts and e2e/a11y.spec.ts.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mountSearch } from '../src/search/search.ts';
import { money, Store } from '../src/state/store.ts';
import type { Result } from '../src/client/result.ts';

const product = (n: number) => ({
  id: `p${n}`,
  handle: `p${n}`,
  title: `Product ${n}`,
  description: { plain: '' },
  url: `https://shop.example/products/p${n}`,
  categories: [],
  price_range: { min: { amount: 1000 + n, currency: 'USD' }, max: { amount: n % 2 ? 2000 : 1000 + n, currency: 'USD' } },
  variants: [],
});

/** A store whose client answers from `answer` and records what was asked. */
function setup(answer: (body: Record<string, any>) => Result<unknown> | Promise<Result<unknown>>, attrs: Record<string, string> = {}, fallback = '') {
  const store = new Store('https://shop.example');
  const asked: Array<Record<string, any>> = [];
  store.client.call = (async (_method: string, _path: string, body: Record<string, any>) => {
    asked.push(body);
    return answer(body);
  }) as typeof store.client.call;
  const host = document.createElement('ucp-search-test');
  for (const [k, v] of Object.entries(attrs)) host.setAttribute(k, v);
  host.innerHTML = fallback;
  document.body.append(host);
  const root = host.attachShadow({ mode: 'open' });
  mountSearch(host, root, store, money);
  return { host, root, asked };
}

const pages = (body: Record<string, any>): Result<unknown> => {
  const at = body.pagination.cursor ? Number(body.pagination.cursor.slice(1)) : 0;
  const size = body.pagination.limit;
  const all = Array.from({ length: 30 }, (_, i) => product(i + 1));
  const products = all.slice(at, at + size);
  const next = at + size < all.length;
  return { ok: true, data: { products, pagination: { has_next_page: next, ...(next ? { cursor: `c${at + size}` } : {}) } } };
};

// Card titles are headings (h3, under the listing's h2).
const titles = (root: ShadowRoot) => [...root.querySelectorAll('li a h3')].map((e) => e.textContent);
const button = (root: ShadowRoot, name: string) => [...root.querySelectorAll('button')].find((b) => b.textContent === name) as HTMLButtonElement;

afterEach(() => {
  document.body.innerHTML = '';
  history.replaceState(null, '');
});

describe('<ucp-search>', () => {
  it('asks for the first page with the query, category, page size and locale; pages forward and back by cursor', async () => {
    const { root, asked } = setup(pages, { query: 'mug', category: 'kitchen', 'page-size': '12', lang: 'en', currency: 'eur' });
    await vi.waitFor(() => expect(titles(root)).toHaveLength(12));
    expect(asked[0]).toEqual({ query: 'mug', filters: { categories: ['kitchen'] }, pagination: { limit: 12 }, context: { language: 'en', currency: 'EUR' } });
    expect(button(root, 'Previous page').disabled).toBe(true);
    button(root, 'Next page').click();
    await vi.waitFor(() => expect(titles(root)[0]).toBe('Product 13'));
    expect(asked[1].pagination).toEqual({ limit: 12, cursor: 'c12' });
    button(root, 'Next page').click();
    await vi.waitFor(() => expect(titles(root)).toEqual(Array.from({ length: 6 }, (_, i) => `Product ${25 + i}`)));
    expect(button(root, 'Next page').disabled).toBe(true);
    button(root, 'Previous page').click();
    await vi.waitFor(() => expect(titles(root)[0]).toBe('Product 13'));
    expect(asked[3].pagination).toEqual({ limit: 12, cursor: 'c12' });
    expect(root.querySelector('nav [aria-current=page]')!.textContent).toBe('Page 2');
  });

  it('cards link to the product page, with the price (a range says "From")', async () => {
    const { root } = setup(pages, { lang: 'en' });
    await vi.waitFor(() => expect(titles(root)).toHaveLength(12));
    const first = root.querySelector('li')!;
    expect(first.querySelector('a')!.getAttribute('href')).toBe('https://shop.example/products/p1');
    expect(first.textContent).toContain('From $10.01');
    expect(root.querySelectorAll('li')[1].textContent).toContain('$10.02');
  });

  it('without a query it browses everything (filters {}); a new search starts again at page 1', async () => {
    const { root, asked } = setup(pages, { lang: 'en' });
    await vi.waitFor(() => expect(titles(root)).toHaveLength(12));
    expect(asked[0]).toMatchObject({ filters: {}, pagination: { limit: 12 } });
    expect(asked[0].query).toBeUndefined();
    button(root, 'Next page').click();
    await vi.waitFor(() => expect(asked).toHaveLength(2));
    const q = root.querySelector('input')!;
    q.value = 'linen';
    root.querySelector('form')!.dispatchEvent(new Event('submit', { cancelable: true }));
    await vi.waitFor(() => expect(asked).toHaveLength(3));
    expect(asked[2]).toMatchObject({ query: 'linen', pagination: { limit: 12 } });
    expect(asked[2].pagination.cursor).toBeUndefined();
  });

  it('says when nothing matches, and words a failure for shoppers with a retry that works', async () => {
    let fail = true;
    const { root } = setup((body) => (fail ? { ok: false, status: 0, messages: [{ type: 'error', code: 'network_error', content: 'x', severity: 'unrecoverable' }] } : body.query === 'none' ? { ok: true, data: { products: [], pagination: { has_next_page: false } } } : pages(body)), { lang: 'fr' });
    await vi.waitFor(() => expect(root.querySelector('[role=status]')!.textContent).toContain('Le catalogue n’a pas pu être chargé.'));
    fail = false;
    button(root, 'Réessayer').click();
    await vi.waitFor(() => expect(titles(root)).toHaveLength(12));
    root.querySelector('input')!.value = 'none';
    root.querySelector('form')!.dispatchEvent(new Event('submit', { cancelable: true }));
    await vi.waitFor(() => expect(root.querySelector('[role=status]')!.textContent).toBe('Aucun produit ne correspond à votre recherche.'));
    expect(root.querySelector('ul')).toBeNull();
  });

  it("says when the shop searched for close words instead (its typo-tolerant second pass)", async () => {
    const { root } = setup((body) => {
      const r = pages(body) as { ok: true; data: any };
      return { ok: true, data: { ...r.data, messages: [{ type: 'info', code: 'query_corrected', content: 'No products match "flsk"; showing results for "flask".' }] } };
    }, { lang: 'fr', query: 'flsk' });
    await vi.waitFor(() => expect(root.querySelector('[role=status]')!.textContent).toBe('Aucun résultat exact\u00a0; voici des résultats proches. 12 produits sur cette page'));
  });

  it("keeps the page's own listing (its children) in view until the first results arrive", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const { root } = setup(async (body) => {
      await gate;
      return pages(body);
    }, { lang: 'en' }, '<ul><li>Server listing</li></ul>');
    expect(root.querySelector('slot')).not.toBeNull();
    expect(root.querySelector('form')).toBeNull();
    release();
    await vi.waitFor(() => expect(titles(root)).toHaveLength(12));
    expect(root.querySelector('slot')).toBeNull();
  });

  it('follows its attributes: a new query searches again; a new language asks again for the same page', async () => {
    const { host, root, asked } = setup(pages, { lang: 'en' });
    await vi.waitFor(() => expect(titles(root)).toHaveLength(12));
    host.setAttribute('query', 'wool');
    await vi.waitFor(() => expect(asked.at(-1)).toMatchObject({ query: 'wool' }));
    host.setAttribute('lang', 'fr');
    await vi.waitFor(() => expect(asked.at(-1)!.context.language).toBe('fr'));
    await vi.waitFor(() => expect(button(root, 'Page suivante')).toBeTruthy());
  });
});

describe('<ucp-search> in the page', () => {
  it('a moved element (disconnected, connected again) is drawn again from its state, without searching again', async () => {
    const { host, root, asked } = setup(pages, { lang: 'en' });
    await vi.waitFor(() => expect(titles(root)).toHaveLength(12));
    host.remove();
    document.body.append(host);
    mountSearch(host, root, new Store('https://shop.example'), money);
    expect(titles(root)).toHaveLength(12);
    expect(asked).toHaveLength(1);
  });

  it("a reload or Back (a new element in the same history entry) comes back to the shopper's search and page", async () => {
    history.replaceState({ app: 'kept' }, '');
    const first = setup(pages, { 'page-size': '12' });
    await vi.waitFor(() => expect(titles(first.root)).toHaveLength(12));
    const box = first.root.querySelector('input') as HTMLInputElement;
    box.value = 'mug';
    (first.root.querySelector('form') as HTMLFormElement).requestSubmit();
    await vi.waitFor(() => expect(first.asked.at(-1)?.query).toBe('mug'));
    await vi.waitFor(() => expect(button(first.root, 'Next page').disabled).toBe(false));
    button(first.root, 'Next page').click();
    await vi.waitFor(() => expect(titles(first.root)[0]).toBe('Product 13'));
    first.host.remove();

    const again = setup(pages, { 'page-size': '12' });
    await vi.waitFor(() => expect(titles(again.root)[0]).toBe('Product 13'));
    expect(again.asked).toHaveLength(1); // straight to the page the shopper was on
    expect(again.asked[0]).toMatchObject({ query: 'mug', pagination: { limit: 12, cursor: 'c12' } });
    expect((again.root.querySelector('input') as HTMLInputElement).value).toBe('mug');
    expect(again.root.querySelector('[aria-current=page]')?.textContent).toBe('Page 2');
    button(again.root, 'Previous page').click();
    await vi.waitFor(() => expect(titles(again.root)[0]).toBe('Product 1'));
    expect(again.asked.at(-1)?.pagination.cursor).toBeUndefined();
    expect((history.state as Record<string, unknown>).app).toBe('kept'); // the page's own state stays
  });

  it('sync-url: Back to an entry it never kept draws the search its address names, and loads a later page from the server', async () => {
    history.replaceState(null, '', '/');
    const { root, asked } = setup(pages, { 'page-size': '12', categories: 'home,kitchen', 'sync-url': '' });
    await vi.waitFor(() => expect(titles(root)).toHaveLength(12));
    // An entry the element did not write (shared with a server-rendered page before a reload).
    history.replaceState(null, '', '/?q=mug&category=kitchen');
    dispatchEvent(new PopStateEvent('popstate', { state: null }));
    await vi.waitFor(() => expect(asked.at(-1)).toMatchObject({ query: 'mug', filters: { categories: ['kitchen'] }, pagination: { limit: 12 } }));
    expect(asked.at(-1)!.pagination.cursor).toBeUndefined();
    await vi.waitFor(() => expect((root.querySelector('select') as HTMLSelectElement).value).toBe('kitchen'));
    // Page 3's cursor is the server's to know: the document loads that address.
    const reload = vi.spyOn(location, 'reload').mockImplementation(() => {});
    const before = asked.length;
    history.replaceState(null, '', '/?page=3');
    dispatchEvent(new PopStateEvent('popstate', { state: null }));
    expect(reload).toHaveBeenCalledTimes(1);
    expect(asked).toHaveLength(before);
    reload.mockRestore();
    history.replaceState(null, '', '/');
  });

  it("leaves a page's non-object history state alone, and ignores a kept search that is not one", async () => {
    history.replaceState('the app owns this', '');
    const { root, asked } = setup(pages, { query: 'tee' });
    await vi.waitFor(() => expect(titles(root)).toHaveLength(12));
    expect(history.state).toBe('the app owns this');
    document.body.innerHTML = '';
    history.replaceState({ 'ucp-search-test0': { query: 1, cursors: 'x', page: -1 } }, '');
    const fresh = setup(pages, { query: 'bowl' });
    await vi.waitFor(() => expect(titles(fresh.root)).toHaveLength(12));
    expect(fresh.asked[0]).toMatchObject({ query: 'bowl' });
    expect(fresh.asked[0].pagination.cursor).toBeUndefined();
    expect(asked[0]).toMatchObject({ query: 'tee' });
  });

  it("while a kept page other than the page's own listing is on its way, that listing keeps its space but is not shown", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = async (body: Record<string, any>) => {
      await gate;
      return pages(body);
    };
    history.replaceState({ 'ucp-search-test0': { query: 'mug', category: '', cursors: [null, 'c12'], page: 1, y: 0 } }, '');
    const { host, root } = setup(slow, { 'page-size': '12' }, '<ul><li>Server listing, page 1</li></ul>');
    const slot = root.querySelector('slot') as HTMLSlotElement;
    expect(slot.className).toBe('h');
    expect(getComputedStyle(slot).visibility).toBe('hidden');
    expect(host.getAttribute('aria-busy')).toBe('true');
    release();
    await vi.waitFor(() => expect(titles(root)[0]).toBe('Product 13'));
    expect(root.querySelector('slot')).toBeNull();
    expect(host.hasAttribute('aria-busy')).toBe(false);

    // A kept state that is the listing's own page (page 1 of the same query) shows the listing meanwhile.
    document.body.innerHTML = '';
    let release2!: () => void;
    const gate2 = new Promise<void>((r) => (release2 = r));
    history.replaceState({ 'ucp-search-test0': { query: 'mug', category: '', cursors: [null], page: 0, y: 0 } }, '');
    const same = setup(async (body) => (await gate2, pages(body)), { query: 'mug' }, '<ul><li>Server listing, page 1</li></ul>');
    expect((same.root.querySelector('slot') as HTMLSlotElement).className).toBe('');
    release2();
    await vi.waitFor(() => expect(titles(same.root)).toHaveLength(12));
  });

  it('comes back to where the page was scrolled once the kept page is drawn, and keeps the scroll when the shopper leaves', async () => {
    const scrolled = vi.spyOn(window, 'scrollTo');
    history.replaceState({ 'ucp-search-test0': { query: 'mug', category: '', cursors: [null, 'c12'], page: 1, y: 640 } }, '');
    const { root, asked } = setup(pages, { 'page-size': '12' });
    await vi.waitFor(() => expect(titles(root)[0]).toBe('Product 13'));
    expect(asked[0]).toMatchObject({ query: 'mug', pagination: { cursor: 'c12' } });
    expect(scrolled).toHaveBeenCalledWith(0, 640);
    scrolled.mockClear();
    button(root, 'Previous page').click(); // a later page: the shopper's own scrolling is left alone
    await vi.waitFor(() => expect(titles(root)[0]).toBe('Product 1'));
    expect(scrolled).not.toHaveBeenCalled();
    scrolled.mockRestore();
    Object.defineProperty(window, 'scrollY', { value: 321, configurable: true });
    try {
      window.dispatchEvent(new Event('pagehide'));
      expect((history.state as Record<string, { y: number; page: number }>)['ucp-search-test0']).toMatchObject({ y: 321, page: 0 });
    } finally {
      delete (window as { scrollY?: number }).scrollY;
    }
  });
});
