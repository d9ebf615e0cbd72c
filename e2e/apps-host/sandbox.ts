/**
 * The sandbox proxy of the test host (MCP Apps "Sandbox proxy"): a page on an origin other than the
 * host's, served with the view's CSP as an HTTP header (./serve.ts), that loads the view's HTML into
 * an inner frame (which inherits that CSP) and relays messages both ways, except
 * `ui/notifications/sandbox-*`. Written from the specification's rules; the host side is the
 * official AppBridge (./host.ts).
 */
const hostOrigin = new URL(document.referrer).origin;
const inner = document.createElement('iframe');
inner.setAttribute('sandbox', 'allow-scripts allow-same-origin allow-forms');
inner.title = 'Shop view';
document.body.appendChild(inner);

addEventListener('message', (e) => {
  if (e.source === parent) {
    if (e.origin !== hostOrigin) return;
    const m = e.data;
    if (m?.method === 'ui/notifications/sandbox-resource-ready') {
      const doc = inner.contentDocument!;
      doc.open();
      doc.write(String(m.params.html));
      doc.close();
      return;
    }
    inner.contentWindow?.postMessage(m, location.origin);
  } else if (e.source === inner.contentWindow) {
    if (e.origin !== location.origin) return;
    parent.postMessage(e.data, hostOrigin);
  }
});
parent.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/sandbox-proxy-ready', params: {} }, hostOrigin);
