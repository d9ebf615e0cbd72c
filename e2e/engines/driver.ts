/**
 * One small browser driver over three engines, so each shopper flow (./flows.ts) is written once:
 * Chromium through Playwright (as the rest of e2e/), Firefox ESR through WebDriver BiDi
 * (puppeteer-core, `browser: 'firefox'`), WebKitGTK's MiniBrowser through WebDriver classic
 * (WebKitWebDriver, plain HTTP). docs/host-js.md "Browsers".
 *
 * Elements are named by a path of CSS selectors, each inside the previous one's shadow root
 * (`['ucp-cart', 'button[part~=open]']`); the element is found in the page and acted on with the
 * engine's own input (real clicks and key presses), except `<select>`s, set as a script would.
 */
import { writeFileSync } from 'node:fs';

export type Engine = 'chromium' | 'firefox' | 'webkit';
export type Path = string[];

export interface Driver {
  readonly engine: Engine;
  goto(url: string): Promise<void>;
  /** Runs a function (its source) in the page with JSON arguments; resolves with its JSON result. */
  eval<T = unknown>(fn: string, ...args: unknown[]): Promise<T>;
  click(path: Path): Promise<void>;
  /** Replaces a text field's value by typing `text` into it. */
  type(path: Path, text: string): Promise<void>;
  select(path: Path, value: string): Promise<void>;
  /**
   * Runs `body` against a frame: the page's first iframe (the framed cart), or with `app`, the MCP
   * Apps view inside the test host's sandbox proxy (an iframe in an iframe, e2e/apps-host/).
   */
  inFrame<T>(body: (d: Driver) => Promise<T>, which?: 'cart' | 'app'): Promise<T>;
  viewport(width: number, height: number): Promise<void>;
  back(): Promise<void>;
  reload(): Promise<void>;
  screenshot(file: string): Promise<void>;
  /** Uncaught errors seen in the page so far (drained). */
  errors(): Promise<string[]>;
  close(): Promise<void>;
}

/** Finds the element at a path (in the page): each selector inside the previous match's shadow root. */
export const FIND = `(path) => { let root = document, el = null; for (const s of path) { el = root.querySelector(s); if (!el) return null; root = el.shadowRoot || el; } return el; }`;
const call = (fn: string, args: unknown[]) => `(${fn})(...${JSON.stringify(args)})`;

/** Polls `fn` in the page until it returns a truthy value (then resolves with it). */
export async function until<T>(d: Driver, what: string, fn: string, ...args: unknown[]): Promise<T> {
  const end = Date.now() + 10_000;
  let last: unknown;
  for (;;) {
    try {
      last = await d.eval<T>(fn, ...args);
      if (last) return last as T;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) throw new Error(`${d.engine}: timed out waiting for ${what} (last: ${String(last)})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Playwright's and Puppeteer's frames alike: the framed cart, or the view inside the sandbox proxy. */
interface FrameLike {
  url(): string;
  parentFrame(): FrameLike | null;
}
const framePicker = (which: 'cart' | 'app', main: unknown) => (f: FrameLike) =>
  f !== main && (which === 'cart' ? f.url().includes('/cart/') : !!f.parentFrame()?.url().includes('/sandbox.html'));

/** Anything with Playwright's or Puppeteer's page/frame evaluate surface. */
interface Evaluating {
  evaluate(expr: string): Promise<unknown>;
  evaluateHandle(expr: string): Promise<any>;
}

/** The shared part of the Playwright and Puppeteer drivers (both hand back element handles). */
function handleDriver(engine: Engine, target: Evaluating, parts: Omit<Driver, 'engine' | 'eval' | 'click' | 'type' | 'select'> & { fill(h: any, text: string): Promise<void>; choose(h: any, v: string): Promise<void> }): Driver {
  const find = async (path: Path) => {
    const h = await target.evaluateHandle(call(FIND, [path]));
    if (!h.asElement?.()) throw new Error(`${engine}: no element at ${path.join(' >> ')}`);
    return h.asElement();
  };
  // A view may redraw between finding an element and acting on it (<ucp-search> rebuilds its form
  // when results arrive): find it again, as a shopper's next try would.
  const act = async (path: Path, f: (h: any) => Promise<unknown>) => {
    for (let i = 0; ; i++) {
      try {
        return void (await f(await find(path)));
      } catch (e) {
        if (i === 2 || !/not attached|detached|stale/i.test(String(e))) throw e;
      }
    }
  };
  return {
    engine,
    ...parts,
    eval: (fn, ...args) => target.evaluate(call(fn, args)) as Promise<any>,
    click: (path) => act(path, (h) => h.click()),
    type: (path, text) => act(path, (h) => parts.fill(h, text)),
    select: (path, value) => act(path, (h) => parts.choose(h, value)),
  };
}

/** Chromium through a Playwright page (the runner's own page, from a Playwright test). */
export function playwrightDriver(page: import('@playwright/test').Page): Driver {
  const errs: string[] = [];
  page.on('pageerror', (e) => errs.push(String(e)));
  const over = (target: Evaluating): Driver =>
    handleDriver('chromium', target, {
      goto: async (url) => void (await page.goto(url)),
      inFrame: async (body, which = 'cart') => {
        const frame = page.frames().find(framePicker(which, page.mainFrame()));
        if (!frame) throw new Error(`chromium: no ${which} frame`);
        return body(over(frame as unknown as Evaluating));
      },
      viewport: (width, height) => page.setViewportSize({ width, height }),
      back: async () => void (await page.goBack()),
      reload: async () => void (await page.reload()),
      screenshot: async (file) => void (await page.screenshot({ path: file, fullPage: true })),
      errors: async () => errs.splice(0),
      close: async () => {},
      fill: (h, text) => h.fill(text),
      choose: (h, v) => h.selectOption(v).then(() => {}),
    });
  return over(page as unknown as Evaluating);
}

/** Firefox ESR over WebDriver BiDi (puppeteer-core; Debian's firefox-esr, nothing downloaded). */
export async function firefoxDriver(executablePath: string): Promise<Driver> {
  const puppeteer = (await import('puppeteer-core')).default;
  const browser = await puppeteer.launch({ browser: 'firefox', executablePath, headless: true, protocolTimeout: 30_000 });
  const page = await browser.newPage();
  const errs: string[] = [];
  page.on('pageerror', (e) => errs.push(String(e)));
  const settle = () => page.waitForNetworkIdle({ idleTime: 150, timeout: 10_000 }).catch(() => {});
  const over = (target: Evaluating): Driver =>
    handleDriver('firefox', target, {
      goto: async (url) => void (await page.goto(url, { waitUntil: 'load' })),
      inFrame: async (body, which = 'cart') => {
        const frame = page.frames().find(framePicker(which, page.mainFrame()));
        if (!frame) throw new Error(`firefox: no ${which} frame`);
        return body(over(frame as unknown as Evaluating));
      },
      viewport: (width, height) => page.setViewport({ width, height }),
      back: async () => {
        await page.goBack();
        await settle();
      },
      reload: async () => void (await page.reload({ waitUntil: 'load' })),
      screenshot: async (file) => void (await page.screenshot({ path: file as `${string}.png`, fullPage: true })),
      errors: async () => errs.splice(0),
      close: () => browser.close(),
      fill: async (h, text) => {
        await h.evaluate((e: HTMLInputElement) => {
          e.focus();
          e.select();
        });
        await h.press('Backspace'); // the selected old value goes, even when nothing is typed after
        await h.type(text);
        // Puppeteer types into a field that was redrawn away without a word: say so, to find it again.
        if (!(await h.evaluate((e: HTMLInputElement, t: string) => e.isConnected && e.value === t, text))) throw new Error('firefox: the field was detached while typing');
      },
      choose: (h, v) => h.select(v).then(() => {}),
    });
  return over(page as unknown as Evaluating);
}

/**
 * WebKitGTK's MiniBrowser over WebDriver classic (WebKitWebDriver at `base`, under Xvfb). Classic
 * WebDriver cannot run a script before the page's own, so page errors are collected by a listener
 * installed after each navigation (errors thrown while a page starts are missed; Chromium's and
 * Firefox's runs see those).
 */
export async function webkitDriver(base: string, miniBrowser: string): Promise<Driver> {
  const wd = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`${base}${path}`, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const j = (await r.json()) as { value: any };
    if (!r.ok) throw new Error(`webkit: ${method} ${path}: ${j.value?.error}: ${j.value?.message}`);
    return j.value;
  };
  const created = await wd('POST', '/session', { capabilities: { alwaysMatch: { 'webkitgtk:browserOptions': { binary: miniBrowser, args: ['--automation'] } } } });
  const s = `/session/${created.sessionId}`;
  const ELEMENT = 'element-6066-11e4-a52e-4f735466cecf';
  const exec = (script: string, args: unknown[] = []) => wd('POST', `${s}/execute/sync`, { script, args });
  const errs: string[] = [];
  const COLLECT = `if (!window.__ucpErrs) { window.__ucpErrs = []; addEventListener('error', (e) => __ucpErrs.push(String(e.message))); addEventListener('unhandledrejection', (e) => __ucpErrs.push('unhandled rejection: ' + String(e.reason))); }`;
  const drain = async () => {
    try {
      errs.push(...((await exec('const e = window.__ucpErrs || []; window.__ucpErrs = []; return e;')) as string[]));
    } catch {}
  };
  const arrived = async () => {
    for (let i = 0; i < 100 && (await exec('return document.readyState')) !== 'complete'; i++) await new Promise((r) => setTimeout(r, 50));
    await exec(COLLECT);
  };
  const find = async (path: Path) => {
    const el = await exec(`return (${FIND})(arguments[0])`, [path]);
    if (!el?.[ELEMENT]) throw new Error(`webkit: no element at ${path.join(' >> ')} (${JSON.stringify(el)})`);
    return el[ELEMENT] as string;
  };
  const driver: Driver = {
    engine: 'webkit',
    goto: async (url) => {
      await drain();
      await wd('POST', `${s}/url`, { url });
      await arrived();
    },
    eval: (fn, ...args) => exec(`return (${fn})(...arguments)`, args),
    click: async (path) => void (await wd('POST', `${s}/element/${await find(path)}/click`, {})),
    type: async (path, text) => {
      const id = await find(path);
      // Clicking a text field inside a shadow root can be "intercepted" here: focus it, then type.
      await exec('arguments[0].focus(); arguments[0].select();', [{ [ELEMENT]: id }]);
      // Backspace takes the selected old value away (WebKitWebDriver refuses an empty text).
      await wd('POST', `${s}/element/${id}/value`, { text: `\uE003${text}` });
    },
    select: async (path, value) => {
      const id = await find(path);
      await exec(`const e = arguments[0]; e.value = arguments[1]; e.dispatchEvent(new Event('input', { bubbles: true })); e.dispatchEvent(new Event('change', { bubbles: true }));`, [{ [ELEMENT]: id }, value]);
    },
    inFrame: async (body, which = 'cart') => {
      // The host role's dialog keeps its iframe in a shadow root; the MCP Apps view is one frame deeper.
      const levels = which === 'app' ? 2 : 1;
      for (let i = 0; i < levels; i++) {
        const frame = await exec(`return document.querySelector('iframe') || [...document.querySelectorAll('*')].map((e) => e.shadowRoot && e.shadowRoot.querySelector('iframe')).find(Boolean)`);
        if (!frame) throw new Error(`webkit: no ${which} frame on the page`);
        await wd('POST', `${s}/frame`, { id: frame });
      }
      try {
        await exec(COLLECT);
        return await body(driver);
      } finally {
        for (let i = 0; i < levels; i++) await wd('POST', `${s}/frame/parent`, {});
      }
    },
    viewport: async (width, height) => {
      // The window rect includes the browser's chrome: size it, then correct by what the page got.
      await wd('POST', `${s}/window/rect`, { width, height });
      for (let i = 0; i < 3; i++) {
        const inner = (await exec('return [innerWidth, innerHeight]')) as [number, number];
        if (inner[0] === width) break;
        const rect = await wd('GET', `${s}/window/rect`);
        await wd('POST', `${s}/window/rect`, { width: rect.width + width - inner[0], height: rect.height + height - inner[1] });
      }
    },
    back: async () => {
      await drain();
      await wd('POST', `${s}/back`, {});
      await arrived();
    },
    reload: async () => {
      await drain();
      await wd('POST', `${s}/refresh`, {});
      await arrived();
    },
    screenshot: async (file) => writeFileSync(file, Buffer.from(await wd('GET', `${s}/screenshot`), 'base64')),
    errors: async () => {
      await drain();
      return errs.splice(0);
    },
    close: async () => void (await wd('DELETE', s).catch(() => {})),
  };
  return driver;
}
