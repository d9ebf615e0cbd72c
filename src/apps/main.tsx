/** @jsxRuntime classic */
/** @jsx h */
/**
 * The MCP Apps view of a shop (`ui://ucp/shop.html`, server/mcp/apps.ts): the second shell of the
 * Preact views host.js draws on storefront pages (the first is src/host/elements.tsx). Built by Vite
 * into one self-contained HTML document (vite.apps.config.ts), so it runs under the MCP Apps
 * default CSP (inline script and style only, `connect-src 'none'`).
 *
 * Order matters: handlers are set before `ui/initialize`, because the host sends the tool's input
 * and result right after the handshake.
 */
import { h, render } from 'preact';
import { effect } from '@preact/signals';
import { adoptStyles } from '../views/styles.ts';
import { ProductView } from '../views/product.tsx';
import { CartView } from '../views/cart.tsx';
import { t } from '../views/i18n.ts';
import { Bridge, type HostContext } from './bridge.ts';
import { Shell } from './shell.ts';
import { Cards } from './cards.tsx';
import { APP_CSS } from './styles.ts';
import { say } from './words.ts';
import { UCP_VERSION } from '../wire/version.ts';

function App({ shell }: { shell: Shell }) {
  const { store, screen: s } = shell;
  const lang = store.lang.value;
  const screen = s.value;
  const count = store.cart.value?.line_items.reduce((n, l) => n + l.quantity, 0) ?? 0;
  const notice = shell.notice.value;
  // Each view is its own document (in its own frame): its content is its main landmark.
  const nav = (
    <div class="row bar">
      {screen !== 'cards' && shell.products.value.length ? (
        <button type="button" class="back" onClick={() => (s.value = 'cards')}>
          ← {say(lang, 'back')}
        </button>
      ) : null}
      {screen !== 'cart' && store.cart.value ? (
        <button type="button" class="to-cart" onClick={() => (s.value = 'cart')}>
          {say(lang, 'view', count)}
        </button>
      ) : null}
    </div>
  );
  return (
    // The heading names the view's main landmark too (with the product's own title on the product
    // view), so that the views of one conversation are told apart.
    <main lang={lang} class="view" aria-labelledby={screen === 'product' && shell.productUi.product.value ? 'vh pv-t' : 'vh'}>
      <h1 class="sr" id="vh">
        {say(lang, screen === 'cart' ? 'cartTitle' : screen === 'product' ? 'productTitle' : 'results')}
      </h1>
      {nav}
      {notice ? (
        <p class="err" role="alert">
          {notice}
        </p>
      ) : null}
      {screen === 'wait' ? (
        <p class="m" aria-busy="true">
          {shell.pending.value || say(lang, 'waiting')}
        </p>
      ) : screen === 'cards' ? (
        <Cards shell={shell} />
      ) : screen === 'product' ? (
        <ProductView store={store} ui={shell.productUi} uid="pv" onRetry={() => shell.retryProduct()} />
      ) : (
        <CartView store={store} ui={shell.cartUi} uid="cv" page />
      )}
    </main>
  );
}

let hostFonts: CSSStyleSheet | undefined;
/**
 * The host's font CSS (`@font-face` rules) as a constructable stylesheet of the document: the
 * document's CSP admits only its own inline style, by hash (vite.apps.config.ts), and a `<style>`
 * element would be refused. `@import` is not loaded in a constructed sheet (nor admitted by that
 * CSP): hosts name font files with `@font-face`.
 */
function applyHostFonts(css: string) {
  try {
    if (!hostFonts) {
      hostFonts = new CSSStyleSheet();
      document.adoptedStyleSheets = [...document.adoptedStyleSheets, hostFonts];
    }
    hostFonts.replaceSync(css);
  } catch {}
}

/** The host's context, applied: theme, style variables, fonts, language, display mode, size, insets. */
export function applyContext(mount: HTMLElement, shell: Shell, c: HostContext | undefined) {
  if (!c) return;
  const root = document.documentElement;
  if (c.theme === 'light' || c.theme === 'dark') {
    root.style.colorScheme = c.theme;
    mount.setAttribute('color-scheme', c.theme);
  }
  for (const [k, v] of Object.entries(c.styles?.variables ?? {})) if (k.startsWith('--') && typeof v === 'string') root.style.setProperty(k, v);
  const fonts = c.styles?.css?.fonts;
  if (typeof fonts === 'string') applyHostFonts(fonts);
  if (typeof c.locale === 'string' && c.locale) shell.store.lang.value = c.locale;
  if (c.displayMode) mount.dataset.mode = c.displayMode;
  const d = c.containerDimensions;
  if (d) {
    // A fixed height is filled (and scrolls inside); otherwise the content sets the height, up to the
    // maximum: never 100vh then, which would grow with every size the host gives the frame.
    root.style.height = d.height ? '100vh' : '';
    root.style.maxHeight = d.maxHeight ? `${d.maxHeight}px` : '';
    mount.classList.toggle('fixed', !!d.height);
  }
  const i = c.safeAreaInsets;
  if (i) mount.style.padding = `${i.top}px ${i.right}px ${i.bottom}px ${i.left}px`;
}

function start() {
  const bridge = new Bridge();
  const shell = new Shell(bridge);
  const mount = document.getElementById('app')!;
  bridge.on('ui/notifications/tool-input', (p) => shell.toolInput(p.arguments));
  bridge.on('ui/notifications/tool-input-partial', (p) => shell.toolInput(p.arguments, false));
  bridge.on('ui/notifications/tool-result', (p) => shell.toolResult(p));
  bridge.on('ui/notifications/tool-cancelled', (p) => shell.toolCancelled(p.reason));
  bridge.on('ui/notifications/host-context-changed', (p) => applyContext(mount, shell, p as HostContext));

  const root = mount.attachShadow({ mode: 'open' });
  adoptStyles(root);
  try {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(APP_CSS);
    root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
  } catch {}
  const stop = effect(() => render(<App shell={shell} />, root));
  bridge.onTeardown = () => {
    stop();
    render(null, root);
  };
  bridge.watchSize(mount);
  bridge.initialize({ name: 'ucp-storefront shop view', version: UCP_VERSION }).then(
    (r) => applyContext(mount, shell, r.hostContext),
    () => (shell.notice.value = t(shell.store.lang.value, 'e_unavailable')),
  );
}

start();
