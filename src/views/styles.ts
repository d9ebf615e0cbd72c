/**
 * Shadow-root styles as constructable stylesheets (adoptedStyleSheets): no <style> elements and no
 * style attributes, so host.js runs under `style-src 'self'`. Theme with the `--ucp-*` custom
 * properties on the element (they inherit into the shadow root) and with `::part(...)`.
 */
const CSS = /* css */ `
:host{display:block;color-scheme:light dark;font:var(--ucp-font,15px/1.45 system-ui,sans-serif);color:var(--ucp-fg,light-dark(#1b1d21,#eceef2));
--b:var(--ucp-bg,light-dark(#fff,#17191d));--a:var(--ucp-accent,light-dark(#1f4fd1,#8fb0ff));--at:var(--ucp-accent-fg,light-dark(#fff,#0b1020));
--m:var(--ucp-muted,light-dark(#555b66,#aab0bb));--l:var(--ucp-border,light-dark(#c9ced6,#4a505a));--e:var(--ucp-error,light-dark(#b3261e,#ffb4ab));--r:var(--ucp-radius,8px)}
:host([color-scheme=light]){color-scheme:light}:host([color-scheme=dark]){color-scheme:dark}
:host([hidden]){display:none}
*{box-sizing:border-box}
.card,dialog{background:var(--b);color:inherit;border:1px solid var(--l);border-radius:var(--r);padding:1rem}
img{max-width:100%;height:auto;border-radius:calc(var(--r)/2)}
h2{margin:.2rem 0 .5rem;font-size:1.15rem}
.p{font-weight:600}.m{color:var(--m);font-size:.9em}
.row,.opt,.hd{display:flex;gap:.5rem;align-items:center}.row{flex-wrap:wrap}
.f{margin:.75rem 0;border:0;padding:0}
legend,label.t{display:block;font-weight:600;margin-bottom:.25rem}
.req{color:var(--e)}
input,select,button{font:inherit;color:inherit;background:var(--b);border:1px solid var(--l);border-radius:calc(var(--r)/2);padding:.4rem .5rem}
input[type=text]{width:100%}
[aria-invalid=true]{border-color:var(--e);outline:1px solid var(--e)}
.opt{font-weight:400;margin:.15rem 0}
.err{color:var(--e);margin:.25rem 0;font-size:.9em}
button{cursor:pointer;padding:.4rem .8rem}
.pri{background:var(--a);color:var(--at);border-color:var(--a);font-weight:600}
button:disabled{opacity:.6;cursor:default}
:focus-visible{outline:2px solid var(--a);outline-offset:2px}
dialog{width:min(34rem,94vw);max-height:90vh}
dialog::backdrop{background:#0008}
ul{list-style:none;margin:0;padding:0}
li.line{display:grid;grid-template-columns:3rem 1fr auto;gap:.6rem;padding:.6rem 0;border-bottom:1px solid var(--l)}
.qty input{width:3.25rem;padding:.4rem .1rem;text-align:center}.qty>.row{flex-wrap:nowrap;gap:.25rem}
dl{display:grid;grid-template-columns:1fr auto;gap:.2rem 1rem;margin:.75rem 0}dd{margin:0;text-align:right}
.tot{font-weight:700}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.hd{justify-content:space-between}
`;

let sheet: CSSStyleSheet | null = null;

export function adoptStyles(root: ShadowRoot) {
  try {
    if (!sheet) {
      sheet = new CSSStyleSheet();
      sheet.replaceSync(CSS);
    }
    root.adoptedStyleSheets = [sheet];
  } catch {
    // No constructable stylesheets (old engines, some test DOMs): unstyled but working.
  }
}
