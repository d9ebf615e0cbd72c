/**
 * The MCP Apps view's own styles, beside the views' (src/views/styles.ts). The host's standard
 * variables (MCP Apps "Theming": `--color-*`, `--font-*`, `--border-radius-*`) feed the views'
 * `--ucp-*` properties in shop.html's document style (vite.apps.config.ts); here only the layout:
 * cards in a grid that fits a 360 px chat column and a 1200 px full screen.
 */
export const APP_CSS = /* css */ `
:host{padding:2px}
.view{display:flex;flex-direction:column;gap:.6rem}
:host(.fixed){height:100%;overflow:auto}
.bar{justify-content:space-between}.bar:empty{display:none}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(9.5rem,1fr));gap:.6rem}
:host([data-mode=fullscreen]) .cards{grid-template-columns:repeat(auto-fill,minmax(13rem,1fr))}
.pc{display:flex;flex-direction:column;gap:.3rem;padding:.6rem}
.pc h2{font-size:1rem;margin:.1rem 0}
.pc p{margin:0}
.pc img{aspect-ratio:1;object-fit:cover;width:100%}
.pc button{margin-top:auto}
/* Wider than a phone: the product's image beside its choices, the code field not the full width. */
@media (min-width:32rem){
form.card{display:grid;grid-template-columns:minmax(0,16rem) 1fr;column-gap:1.2rem;align-items:start}
form.card>img{grid-row:1/span 30}
form.card>:not(img){grid-column:2}
[part=discount] input[type=text]{max-width:20rem}
}
:host([data-mode=fullscreen]) form.card{max-width:60rem}
`;
