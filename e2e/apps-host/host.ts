/**
 * A chat host's MCP Apps side, for the browser tests: the official `AppBridge` of
 * `@modelcontextprotocol/ext-apps` and the official MCP client, connected to a shop's `/mcp`.
 * `host.run(tool, args)` does what a host does when its model calls a tool: call it, read the
 * tool's `ui://` resource, load it into a sandbox proxy on another origin (./sandbox.ts) under the
 * CSP its metadata asks for, and hand the view the input and the result. A new view per call, as
 * hosts do. Tests read `host.log` (links opened, model context, sizes) and drive the rest through
 * `host.*` (bad results, cancellation, context changes, declined calls, teardown).
 *
 * Query: shop (origin of the shop), sandbox (origin of the proxy), theme, locale, width,
 * ucp=0 (a plain MCP Apps host that adds no UCP `meta` to the view's calls), era=2025 (the client's
 * `legacy` negotiation: the initialize handshake; default `auto`, which lands on 2026-07-28).
 */
import { AppBridge, PostMessageTransport, getToolUiResourceUri, isToolVisibilityModelOnly } from '@modelcontextprotocol/ext-apps/app-bridge';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const q = new URLSearchParams(location.search);
const shop = q.get('shop')!;
const sandbox = q.get('sandbox')!;
const theme = (q.get('theme') ?? 'light') as 'light' | 'dark';
const ucpAware = q.get('ucp') !== '0';
const profile = `${shop.replace('//demo.', '//agent.')}/.well-known/ucp`;
const agentMeta = { 'ucp-agent': { profile } };
document.body.classList.toggle('dark', theme === 'dark');

type Entry = { kind: string; view: number; [k: string]: unknown };
const log: Entry[] = [];
const views: Array<{ bridge: AppBridge; frame: HTMLIFrameElement }> = [];
/** As chat hosts do, a view grows with its content up to a height, then scrolls inside. */
const MAX_HEIGHT = 700;
/** Tool names whose next call from a view the "buyer" declines (update_cart's confirmation, say). */
const decline = new Set<string>();
/** Whether `ui/open-link` is refused (a host or a buyer that says no). */
let refuseLinks = false;
/** Tool calls from views that get no answer at all (a host that hangs). */
const hang = new Set<string>();

const VARIABLES: Record<string, string> = {
  '--color-background-primary': 'light-dark(#ffffff, #1f1f1e)',
  '--color-background-secondary': 'light-dark(#f5f4ef, #2b2a27)',
  '--color-background-inverse': 'light-dark(#141413, #faf9f5)',
  '--color-text-primary': 'light-dark(#141413, #faf9f5)',
  '--color-text-secondary': 'light-dark(#5e5d59, #b8b5a9)',
  '--color-text-inverse': 'light-dark(#faf9f5, #141413)',
  '--color-text-danger': 'light-dark(#b3261e, #ffb4ab)',
  '--color-border-primary': 'light-dark(#d9d7cf, #4a4944)',
  '--border-radius-md': '10px',
  '--font-sans': 'system-ui, sans-serif',
};

const mode = q.get('era') === '2025' ? 'legacy' : 'auto';
const client = new Client({ name: 'ucp-e2e-host', version: '1.0.0' }, { capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } }, versionNegotiation: { mode } } as never);
const ready = client.connect(new StreamableHTTPClientTransport(new URL(`${shop}/mcp`)));
void ready.then(() => log.push({ kind: 'era', view: 0, version: client.getNegotiatedProtocolVersion() }));
const toolsReady = ready.then(() => client.listTools()).then((r) => new Map(r.tools.map((t) => [t.name, t])));

async function frameFor(csp: unknown): Promise<HTMLIFrameElement> {
  const frame = document.createElement('iframe');
  frame.setAttribute('sandbox', 'allow-scripts allow-same-origin allow-forms');
  frame.title = 'Shop';
  const url = new URL('/sandbox.html', sandbox);
  if (csp) url.searchParams.set('csp', JSON.stringify(csp));
  const proxyReady = new Promise<void>((resolve) => {
    const f = (e: MessageEvent) => {
      if (e.source === frame.contentWindow && e.data?.method === 'ui/notifications/sandbox-proxy-ready') {
        removeEventListener('message', f);
        resolve();
      }
    };
    addEventListener('message', f);
  });
  frame.src = url.href;
  document.getElementById('views')!.appendChild(frame);
  // As a conversation scrolls to its newest message (browsers do not draw, nor resize-observe,
  // cross-origin frames far off screen).
  frame.scrollIntoView();
  await proxyReady;
  return frame;
}

/** The bridge of one view: the view's tool calls go to the shop, with the UCP `meta` a UCP-aware host adds. */
function bridgeFor(view: number, frame: HTMLIFrameElement, tools: Map<string, any>): AppBridge {
  const bridge = new AppBridge(
    null,
    { name: 'ucp-e2e-host', version: '1.0.0' },
    { openLinks: {}, serverTools: {}, serverResources: {}, logging: {}, updateModelContext: { text: {} } } as never,
    { hostContext: { theme, locale: q.get('locale') ?? 'en-US', displayMode: 'inline', availableDisplayModes: ['inline', 'fullscreen'], platform: 'web', containerDimensions: { maxHeight: MAX_HEIGHT }, styles: { variables: VARIABLES } } as never },
  );
  bridge.oncalltool = async (params) => {
    log.push({ kind: 'call', view, name: params.name, arguments: params.arguments });
    const tool = tools.get(params.name);
    // MCP Apps: a host refuses a view's call to a tool that is not visible to apps.
    if (!tool || isToolVisibilityModelOnly(tool)) throw new Error(`Tool ${params.name} is not available to this view.`);
    if (decline.delete(params.name)) throw new Error('The buyer declined this change.');
    if (hang.has(params.name)) return new Promise(() => {});
    const meta = ucpAware ? { ...agentMeta, ...(tool.annotations?.readOnlyHint ? {} : { 'idempotency-key': crypto.randomUUID() }) } : undefined;
    return (await client.callTool({ name: params.name, arguments: { ...(params.arguments ?? {}), ...(meta ? { meta } : {}) } })) as never;
  };
  bridge.onreadresource = async (params) => (await client.readResource(params)) as never;
  bridge.onopenlink = async (params) => {
    log.push({ kind: 'open-link', view, url: params.url });
    if (refuseLinks) throw new Error('Link opening denied by user');
    return {};
  };
  bridge.onupdatemodelcontext = async (params) => {
    log.push({ kind: 'model-context', view, params });
    return {};
  };
  bridge.onsizechange = ({ width, height }) => {
    log.push({ kind: 'size', view, width, height });
    if (height !== undefined) frame.style.height = `${Math.min(height, MAX_HEIGHT)}px`;
  };
  bridge.onrequestdisplaymode = async ({ mode }) => ({ mode });
  bridge.onloggingmessage = (params) => log.push({ kind: 'log', view, params });
  return bridge;
}

/** What a host does when its model calls a tool that has a view. Resolves with the view's index. */
async function run(name: string, args: Record<string, unknown>, opts: { result?: unknown; partial?: Record<string, unknown> } = {}): Promise<number> {
  await ready;
  const tools = await toolsReady;
  const tool = tools.get(name);
  const uri = tool && getToolUiResourceUri(tool);
  if (!uri) throw new Error(`${name} has no view`);
  // The model's arguments: UCP's tools take the agent's profile in `meta`, and the model sends it.
  const modelArgs = { ...args, meta: agentMeta };
  const resultPromise = opts.result !== undefined ? Promise.resolve(opts.result) : client.callTool({ name, arguments: modelArgs });
  const resource = (await client.readResource({ uri })).contents[0] as { text: string; mimeType: string; _meta?: { ui?: { csp?: unknown } } };
  if (resource.mimeType !== 'text/html;profile=mcp-app') throw new Error(`unexpected ${resource.mimeType}`);
  const csp = resource._meta?.ui?.csp;
  log.push({ kind: 'resource', view: views.length, csp });
  const frame = await frameFor(csp);
  const view = views.length;
  const bridge = bridgeFor(view, frame, tools);
  const initialized = new Promise<void>((resolve) => (bridge.oninitialized = () => resolve()));
  views.push({ bridge, frame });
  await bridge.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!));
  await bridge.sendSandboxResourceReady({ html: resource.text, csp: csp as never });
  await initialized;
  if (opts.partial) await bridge.sendToolInputPartial({ arguments: opts.partial });
  await bridge.sendToolInput({ arguments: modelArgs });
  resultPromise.then(
    (r) => {
      // A clock every frame shares (docs/benchmarks.md "MCP Apps view"): epoch milliseconds.
      log.push({ kind: 'result-sent', view, at: performance.timeOrigin + performance.now() });
      return bridge.sendToolResult(r as never);
    },
    (e) => bridge.sendToolCancelled({ reason: e instanceof Error ? e.message : String(e) }),
  );
  return view;
}

const host = {
  log,
  run,
  /** Removes every view (and its log), as a new conversation would. */
  clear() {
    for (const v of views.splice(0)) v.frame.remove();
    log.length = 0;
  },
  result: (view: number, result: unknown) => views[view].bridge.sendToolResult(result as never),
  cancel: (view: number, reason: string) => views[view].bridge.sendToolCancelled({ reason }),
  contextChange: (view: number, ctx: Record<string, unknown>) => views[view].bridge.sendHostContextChange(ctx as never),
  teardown: async (view: number) => {
    await views[view].bridge.teardownResource({});
    log.push({ kind: 'teardown', view });
  },
  decline: (tool: string) => void decline.add(tool),
  /** The model's own call, without a view (to hand a view a result fetched beforehand). */
  callTool: async (name: string, args: Record<string, unknown>) => {
    await ready;
    return client.callTool({ name, arguments: { ...args, meta: agentMeta } });
  },
  hang: (tool: string) => void hang.add(tool),
  refuseLinks: () => void (refuseLinks = true),
  /** The frame of view i, for screenshots of one view. */
  frameHeight: (view: number) => views[view].frame.getBoundingClientRect().height,
  ready: () => toolsReady.then(() => true),
  /** Set once the tools are listed (for drivers that cannot wait on a promise). */
  isReady: false,
};
toolsReady.then(() => (host.isReady = true));
(window as unknown as { host: typeof host }).host = host;
