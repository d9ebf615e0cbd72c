/**
 * Builds the demo catalogs that ship with the product, from the compact tables below:
 *
 *   server/seed/data/demo.json     shop_demo    (demo.localhost, en + fr, MCP on, discounts)
 *   server/seed/data/other.json    shop_other   (other.localhost, a separate catalog)
 *   server/seed/data/offline.json  shop_offline (offline.localhost, protocol disabled)
 *   server/seed/data/strict.json   shop_strict  (strict.localhost, MCP on, anonymous may only search)
 *   public/media/<handle>.svg      one placeholder image per product (plus <handle>-detail.svg)
 *
 * Run: `npx tsx server/seed/build-demo.ts`. Deterministic: inventory and ratings come from a PRNG
 * seeded by the variant / product id, so re-running produces byte-identical files. Every file is
 * validated with `CatalogFile.parse` before it is written. The format is documented in
 * docs/catalog-format.md.
 *
 * Some products are test fixtures (prod_engraved_flask, prod_custom_mug, prod_classic_tee): keep
 * their ids, prices and customizations stable.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CatalogFile, type CustomizationDef, type StoredProduct, type StoredVariant } from '../formats/catalog-format.ts';

type L = { en: string; fr?: string };
type Localized = string | Record<string, string>;
type Stock = number | 'oos' | 'backorder' | 'preorder' | 'untracked';

// ---------------------------------------------------------------------------------------------
// Deterministic randomness

/** FNV-1a 32-bit hash of a string, used to seed the PRNG per id. */
export function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** mulberry32: small, fast, seeded PRNG returning floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ---------------------------------------------------------------------------------------------
// Option vocabulary: option name -> label, and option value id -> label

const OPTION_LABELS: Record<string, L> = {
  size: { en: 'Size', fr: 'Taille' },
  color: { en: 'Color', fr: 'Couleur' },
  finish: { en: 'Finish', fr: 'Finition' },
  scent: { en: 'Scent', fr: 'Parfum' },
  diameter: { en: 'Diameter', fr: 'Diamètre' },
  capacity: { en: 'Capacity', fr: 'Contenance' },
  format: { en: 'Format', fr: 'Format' },
  ruling: { en: 'Ruling', fr: 'Réglure' },
  amount: { en: 'Amount', fr: 'Montant' },
};

const VALUE_LABELS: Record<string, Record<string, L>> = {
  size: {
    xs: { en: 'XS', fr: 'XS' },
    s: { en: 'S', fr: 'S' },
    m: { en: 'M', fr: 'M' },
    l: { en: 'L', fr: 'L' },
    xl: { en: 'XL', fr: 'XL' },
    small: { en: 'Small', fr: 'Petit' },
    large: { en: 'Large', fr: 'Grand' },
  },
  color: {
    white: { en: 'White', fr: 'Blanc' },
    black: { en: 'Black', fr: 'Noir' },
    navy: { en: 'Navy', fr: 'Bleu marine' },
    grey: { en: 'Grey', fr: 'Gris' },
    charcoal: { en: 'Charcoal', fr: 'Anthracite' },
    olive: { en: 'Olive', fr: 'Olive' },
    sand: { en: 'Sand', fr: 'Sable' },
    rust: { en: 'Rust', fr: 'Rouille' },
    yellow: { en: 'Yellow', fr: 'Jaune' },
    natural: { en: 'Natural', fr: 'Naturel' },
    terracotta: { en: 'Terracotta', fr: 'Terre cuite' },
    green: { en: 'Green', fr: 'Vert' },
    blue: { en: 'Blue', fr: 'Bleu' },
    red: { en: 'Red', fr: 'Rouge' },
    brown: { en: 'Brown', fr: 'Marron' },
    tortoise: { en: 'Tortoiseshell', fr: 'Écaille' },
    sage: { en: 'Sage', fr: 'Sauge' },
  },
  finish: {
    steel: { en: 'Brushed steel', fr: 'Acier brossé' },
    black: { en: 'Matte black', fr: 'Noir mat' },
  },
  scent: {
    fig: { en: 'Fig', fr: 'Figue' },
    cedar: { en: 'Cedar', fr: 'Cèdre' },
    lavender: { en: 'Lavender', fr: 'Lavande' },
  },
  diameter: {
    '20cm': { en: '20 cm', fr: '20 cm' },
    '26cm': { en: '26 cm', fr: '26 cm' },
  },
  capacity: {
    '500ml': { en: '500 ml', fr: '50 cl' },
    '750ml': { en: '750 ml', fr: '75 cl' },
  },
  format: {
    a5: { en: 'A5', fr: 'A5' },
    a4: { en: 'A4', fr: 'A4' },
  },
  ruling: {
    lined: { en: 'Lined', fr: 'Ligné' },
    dotted: { en: 'Dot grid', fr: 'Pointillé' },
    blank: { en: 'Blank', fr: 'Uni' },
  },
  amount: {
    '25': { en: '$25', fr: '25 $' },
    '50': { en: '$50', fr: '50 $' },
    '100': { en: '$100', fr: '100 $' },
  },
};

// ---------------------------------------------------------------------------------------------
// Customization definitions

const FLASK_CUSTOMIZATIONS: CustomizationDef[] = [
  {
    id: 'engraving',
    type: 'text',
    label: { en: 'Engraving', fr: 'Gravure' },
    required: true,
    min_length: 1,
    max_length: 20,
    placeholder: { en: 'Up to 20 characters', fr: '20 caractères max' },
  },
  {
    id: 'gift_box',
    type: 'single_select',
    label: { en: 'Gift box', fr: 'Coffret' },
    required: true,
    options: [
      { id: 'none', label: { en: 'No box', fr: 'Sans coffret' } },
      { id: 'kraft', label: { en: 'Kraft box', fr: 'Coffret kraft' }, price_modifier: 300 },
      { id: 'wood', label: { en: 'Wooden box', fr: 'Coffret en bois' }, price_modifier: 1200 },
    ],
  },
  {
    id: 'extras',
    type: 'multi_select',
    label: { en: 'Extras', fr: 'Options' },
    required: false,
    min_selections: 1,
    max_selections: 2,
    options: [
      { id: 'card', label: { en: 'Greeting card', fr: 'Carte de vœux' }, price_modifier: 250 },
      { id: 'ribbon', label: { en: 'Ribbon', fr: 'Ruban' }, price_modifier: 150 },
      { id: 'funnel', label: { en: 'Steel funnel', fr: 'Entonnoir en acier' }, price_modifier: 400 },
    ],
  },
];

const MUG_CUSTOMIZATIONS: CustomizationDef[] = [
  {
    id: 'name',
    type: 'text',
    label: { en: 'Name', fr: 'Prénom' },
    required: true,
    max_length: 12,
    placeholder: { en: 'Up to 12 characters', fr: '12 caractères max' },
  },
];

const MONOGRAM: CustomizationDef = {
  id: 'monogram',
  type: 'text',
  label: { en: 'Monogram', fr: 'Monogramme' },
  required: false,
  min_length: 1,
  max_length: 3,
  placeholder: { en: 'Up to 3 initials', fr: '3 initiales max' },
  price_modifier: 500,
};

const GIFT_WRAP: CustomizationDef = {
  id: 'gift_wrap',
  type: 'single_select',
  label: { en: 'Gift wrap', fr: 'Emballage cadeau' },
  required: false,
  options: [
    { id: 'none', label: { en: 'No gift wrap', fr: 'Sans emballage' } },
    { id: 'paper', label: { en: 'Recycled paper wrap', fr: 'Papier recyclé' }, price_modifier: 200 },
    { id: 'fabric', label: { en: 'Reusable fabric wrap', fr: 'Tissu réutilisable (furoshiki)' }, price_modifier: 600 },
  ],
};

const JOURNAL_CUSTOMIZATIONS: CustomizationDef[] = [
  {
    id: 'embossing',
    type: 'text',
    label: { en: 'Embossed name', fr: 'Nom embossé' },
    required: false,
    min_length: 1,
    max_length: 15,
    placeholder: { en: 'Up to 15 characters', fr: '15 caractères max' },
    price_modifier: 800,
  },
  {
    id: 'foil',
    type: 'single_select',
    label: { en: 'Foil', fr: 'Dorure' },
    required: false,
    options: [
      { id: 'blind', label: { en: 'Blind (no foil)', fr: 'À sec (sans dorure)' } },
      { id: 'gold', label: { en: 'Gold foil', fr: 'Dorure or' }, price_modifier: 300 },
      { id: 'silver', label: { en: 'Silver foil', fr: 'Dorure argent' }, price_modifier: 300 },
    ],
  },
];

const KEYRING_ENGRAVING: CustomizationDef = {
  id: 'engraving',
  type: 'text',
  label: { en: 'Engraving', fr: 'Gravure' },
  required: false,
  min_length: 1,
  max_length: 10,
  placeholder: { en: 'Up to 10 characters', fr: '10 caractères max' },
  price_modifier: 500,
};

const GIFT_MESSAGE: CustomizationDef = {
  id: 'message',
  type: 'text',
  label: { en: 'Personal message', fr: 'Message personnel' },
  required: false,
  max_length: 140,
  placeholder: { en: 'Sent with the gift card email', fr: "Envoyé avec l'e-mail de la carte cadeau" },
};

const CARD_EXTRAS: CustomizationDef = {
  id: 'extras',
  type: 'multi_select',
  label: { en: 'Add-ons', fr: 'Accessoires' },
  required: false,
  max_selections: 2,
  options: [
    { id: 'sticker', label: { en: 'Wax seal sticker', fr: 'Sceau en cire adhésif' }, price_modifier: 200 },
    { id: 'envelope_liner', label: { en: 'Patterned envelope liners', fr: "Doublures d'enveloppe à motifs" }, price_modifier: 300 },
    { id: 'gold_pen', label: { en: 'Gold ink pen', fr: "Stylo à l'encre dorée" }, price_modifier: 450 },
  ],
};

// ---------------------------------------------------------------------------------------------
// Product tables

interface Row {
  id?: string; // defaults to prod_<handle with _>
  handle: string;
  /** Short name used in variant ids: var_<short>[_<value>...]. */
  short: string;
  cat: string;
  title: L;
  desc: L;
  tags: string[];
  /** Base price in cents. */
  price: number;
  list?: number;
  opts?: [string, string[]][];
  /** Per option value id, added to the base price. */
  delta?: Record<string, number>;
  /** Keyed by the variant's joined value ids ("" for a product without options). */
  stock?: Record<string, Stock>;
  cust?: CustomizationDef[];
  /** Second media entry (<handle>-detail.svg). */
  detail?: boolean;
  hue: number;
  /** Variant id prefix (default "var_"). */
  varPrefix?: string;
  sku?: string;
  noRating?: boolean;
  /** The sale basis and unit pricing of every variant (UCP 2026-08-25 `quantity_unit` / `unit_price`). */
  unit?: Pick<StoredVariant, 'quantity_unit' | 'unit_price'>;
}

const t = (en: string, fr?: string): L => ({ en, fr });

const DEMO_ROWS: Row[] = [
  // ----- apparel
  {
    handle: 'classic-tee', short: 'tee', cat: 'apparel', hue: 215, detail: true,
    title: t('Classic Tee', 'T-shirt classique'),
    desc: t(
      'A midweight organic cotton tee with a relaxed fit and a clean crew neck. Pre-shrunk, so it keeps its shape wash after wash.',
      'Un t-shirt en coton bio de grammage moyen, à la coupe décontractée et au col rond net. Prérétréci, il garde sa forme lavage après lavage.',
    ),
    tags: ['cotton', 'organic', 'basics', 't-shirt'], price: 2500, list: 3000,
    opts: [['size', ['s', 'm', 'l']], ['color', ['white', 'navy']]],
    stock: { s_white: 40, s_navy: 35, m_white: 60, m_navy: 55, l_white: 45, l_navy: 30 },
  },
  {
    handle: 'merino-crew-sweater', short: 'merino', cat: 'apparel', hue: 200,
    title: t('Merino Crew Sweater', 'Pull col rond en mérinos'),
    desc: t(
      'Fine-gauge merino wool that is warm without bulk and soft against the skin. Naturally odour-resistant and easy to layer.',
      'Une maille fine en laine mérinos, chaude sans être épaisse et douce contre la peau. Naturellement anti-odeurs et facile à superposer.',
    ),
    tags: ['wool', 'merino', 'knitwear'], price: 8900,
    opts: [['size', ['s', 'm', 'l', 'xl']], ['color', ['grey', 'navy']]],
    stock: { s_navy: 'oos' },
  },
  {
    handle: 'linen-button-shirt', short: 'linen_shirt', cat: 'apparel', hue: 40, detail: true,
    title: t('Linen Button-Down Shirt', 'Chemise en lin'),
    desc: t(
      'A breathable, garment-washed linen shirt that gets softer with every wear. Cut for warm days and long evenings.',
      "Une chemise en lin respirant, lavée après confection, qui s'assouplit à chaque port. Pensée pour les journées chaudes et les longues soirées.",
    ),
    tags: ['linen', 'summer', 'shirt'], price: 6800, list: 8500,
    opts: [['size', ['s', 'm', 'l', 'xl']], ['color', ['white', 'sand']]],
  },
  {
    handle: 'organic-hoodie', short: 'hoodie', cat: 'apparel', hue: 100,
    title: t('Organic Cotton Hoodie', 'Sweat à capuche en coton bio'),
    desc: t(
      'A heavyweight brushed-fleece hoodie in organic cotton, with a lined hood and a roomy front pocket.',
      'Un sweat à capuche épais en molleton gratté de coton bio, avec capuche doublée et grande poche kangourou.',
    ),
    tags: ['cotton', 'organic', 'sweatshirt'], price: 7200,
    opts: [['size', ['s', 'm', 'l', 'xl']], ['color', ['charcoal', 'olive']]],
  },
  {
    handle: 'chino-shorts', short: 'shorts', cat: 'apparel', hue: 35,
    title: t('Everyday Chino Shorts', 'Short chino de tous les jours'),
    desc: t(
      'Stretch cotton twill shorts with a 7-inch inseam, deep pockets and a comfortable waistband.',
      'Un short en sergé de coton stretch, avec entrejambe de 18 cm, poches profondes et ceinture confortable.',
    ),
    tags: ['cotton', 'summer', 'shorts'], price: 4800,
    opts: [['size', ['s', 'm', 'l']], ['color', ['sand', 'navy']]],
  },
  {
    handle: 'rain-shell-jacket', short: 'rain_shell', cat: 'apparel', hue: 50, detail: true,
    title: t('Packable Rain Shell', 'Veste de pluie compressible'),
    desc: t(
      'A lightweight waterproof jacket with taped seams and an adjustable hood. Packs into its own pocket.',
      'Une veste imperméable et légère, aux coutures étanchées et à la capuche réglable. Elle se range dans sa propre poche.',
    ),
    tags: ['waterproof', 'jacket', 'travel'], price: 12900, list: 15900,
    opts: [['size', ['s', 'm', 'l', 'xl']], ['color', ['yellow', 'black']]],
    stock: { xl_yellow: 'oos', s_black: 3 },
  },
  {
    handle: 'wool-beanie', short: 'beanie', cat: 'apparel', hue: 15,
    title: t('Ribbed Wool Beanie', 'Bonnet côtelé en laine'),
    desc: t(
      'A classic ribbed beanie knitted from soft, warm wool, with a fold-over cuff.',
      'Un bonnet côtelé classique, tricoté dans une laine douce et chaude, avec revers.',
    ),
    tags: ['wool', 'winter', 'hat'], price: 2800,
    opts: [['color', ['rust', 'charcoal', 'navy']]],
  },
  {
    handle: 'crew-socks-3-pack', short: 'socks', cat: 'apparel', hue: 330,
    title: t('Crew Socks, 3-Pack', 'Chaussettes mi-hautes, lot de 3'),
    desc: t(
      'Three pairs of cushioned cotton-blend crew socks with a reinforced heel and toe.',
      'Trois paires de chaussettes mi-hautes rembourrées en coton mélangé, au talon et à la pointe renforcés.',
    ),
    tags: ['cotton', 'socks', 'basics'], price: 1800,
    opts: [['size', ['m', 'l']]],
    // Sold by the pack of three pairs, priced per pair too: the demo of a sale unit (issue 37).
    unit: {
      quantity_unit: { unit: 'PK', display_text: { en: '3-pair pack', fr: 'lot de 3 paires' } },
      unit_price: { measure: { unit: 'PR', display_text: { en: 'pairs', fr: 'paires' }, value: 3 }, reference: { unit: 'PR', display_text: { en: 'pair', fr: 'paire' }, value: 1 } },
    },
  },

  // ----- home
  {
    handle: 'scented-candle', short: 'candle', cat: 'home', hue: 28, detail: true,
    title: t('Soy Scented Candle', 'Bougie parfumée à la cire de soja'),
    desc: t(
      'A hand-poured soy wax candle in a reusable amber glass jar, with about 50 hours of clean burn time.',
      'Une bougie en cire de soja coulée à la main dans un pot en verre ambré réutilisable, pour environ 50 heures de combustion.',
    ),
    tags: ['candle', 'soy', 'gift'], price: 2400,
    opts: [['scent', ['fig', 'cedar', 'lavender']]],
    cust: [GIFT_WRAP],
  },
  {
    handle: 'linen-throw-pillow', short: 'pillow', cat: 'home', hue: 20,
    title: t('Linen Throw Pillow', 'Coussin en lin'),
    desc: t(
      'A stonewashed linen cushion cover with a hidden zip, sold with a feather insert. 50 × 50 cm.',
      'Une housse de coussin en lin lavé avec fermeture invisible, vendue avec son garnissage en plumes. 50 × 50 cm.',
    ),
    tags: ['linen', 'cushion', 'living-room'], price: 3900,
    opts: [['color', ['natural', 'rust', 'olive']]],
  },
  {
    handle: 'wool-throw-blanket', short: 'throw', cat: 'home', hue: 0,
    title: t('Wool Throw Blanket', 'Plaid en laine'),
    desc: t(
      'A generous throw woven from pure new wool and finished with fringed edges. 130 × 180 cm.',
      'Un grand plaid tissé en pure laine vierge et bordé de franges. 130 × 180 cm.',
    ),
    tags: ['wool', 'blanket', 'living-room'], price: 11900, list: 13900,
    opts: [['color', ['grey', 'sand']]],
  },
  {
    handle: 'ceramic-vase', short: 'vase', cat: 'home', hue: 18,
    title: t('Stoneware Bud Vase', 'Soliflore en grès'),
    desc: t(
      'A small wheel-thrown stoneware vase for a single stem or a few dried flowers.',
      'Un petit vase en grès tourné à la main, pour une seule tige ou quelques fleurs séchées.',
    ),
    tags: ['ceramic', 'stoneware', 'flowers'], price: 2900,
    opts: [['color', ['white', 'terracotta']]],
  },
  {
    handle: 'woven-storage-basket', short: 'basket', cat: 'home', hue: 45,
    title: t('Woven Storage Basket', 'Panier de rangement tressé'),
    desc: t(
      'A sturdy basket woven from natural seagrass, with handles. Ideal for blankets, toys or laundry.',
      'Un panier robuste tressé en jonc de mer naturel, avec anses. Idéal pour les plaids, les jouets ou le linge.',
    ),
    tags: ['storage', 'seagrass', 'basket'], price: 3400,
    opts: [['size', ['small', 'large']]], delta: { large: 1200 },
  },
  {
    handle: 'brass-desk-lamp', short: 'lamp', cat: 'home', hue: 48, detail: true,
    title: t('Brass Desk Lamp', 'Lampe de bureau en laiton'),
    desc: t(
      'An adjustable desk lamp in solid brass, supplied with a warm, dimmable LED bulb.',
      'Une lampe de bureau orientable en laiton massif, livrée avec une ampoule LED à lumière chaude et variable.',
    ),
    tags: ['lighting', 'brass', 'office'], price: 8900,
    stock: { '': 'backorder' },
  },
  {
    handle: 'cotton-bath-towel', short: 'towel', cat: 'home', hue: 190,
    title: t('Cotton Bath Towel', 'Serviette de bain en coton'),
    desc: t(
      'A thick, absorbent bath towel in long-staple cotton terry. 70 × 140 cm.',
      'Une serviette de bain épaisse et absorbante en éponge de coton à fibres longues. 70 × 140 cm.',
    ),
    tags: ['cotton', 'bathroom', 'towel'], price: 2600,
    opts: [['color', ['white', 'grey', 'sage']]],
  },
  {
    handle: 'minimal-wall-clock', short: 'clock', cat: 'home', hue: 260,
    title: t('Minimal Wall Clock', 'Horloge murale minimaliste'),
    desc: t(
      'A silent-sweep wall clock with a clean dial and an oak frame. 30 cm across.',
      'Une horloge murale silencieuse au cadran épuré et au cadre en chêne. 30 cm de diamètre.',
    ),
    tags: ['clock', 'oak', 'decor'], price: 4500,
    opts: [['color', ['black', 'white']]],
  },

  // ----- kitchen
  {
    handle: 'custom-mug', short: 'mug', cat: 'kitchen', hue: 205,
    title: t('Custom Name Mug', 'Mug personnalisé'),
    desc: t(
      'A 350 ml stoneware mug printed with the name of your choice. Dishwasher and microwave safe.',
      'Un mug en grès de 35 cl imprimé avec le prénom de votre choix. Compatible lave-vaisselle et micro-ondes.',
    ),
    tags: ['mug', 'personalized', 'gift', 'stoneware'], price: 1800,
    opts: [['color', ['white']]],
    stock: { white: 100 },
    cust: MUG_CUSTOMIZATIONS,
  },
  {
    handle: 'chef-knife', short: 'knife', cat: 'kitchen', hue: 210, detail: true,
    title: t("8-inch Chef's Knife", 'Couteau de chef 20 cm'),
    desc: t(
      "A forged stainless steel chef's knife with a 20 cm blade and a balanced pakkawood handle.",
      'Un couteau de chef forgé en acier inoxydable, avec une lame de 20 cm et un manche équilibré en pakka.',
    ),
    tags: ['knife', 'steel', 'cooking'], price: 7900,
  },
  {
    handle: 'walnut-cutting-board', short: 'board', cat: 'kitchen', hue: 25,
    title: t('Walnut Cutting Board', 'Planche à découper en noyer'),
    desc: t(
      'A solid walnut board with a juice groove, oiled and ready to use. Gentle on knife edges.',
      "Une planche en noyer massif avec rigole à jus, huilée et prête à l'emploi. Elle préserve le tranchant des couteaux.",
    ),
    tags: ['walnut', 'wood', 'cooking'], price: 4200,
    opts: [['size', ['small', 'large']]], delta: { large: 1800 },
  },
  {
    handle: 'cast-iron-skillet', short: 'skillet', cat: 'kitchen', hue: 0,
    title: t('Cast Iron Skillet', 'Poêle en fonte'),
    desc: t(
      'A pre-seasoned cast iron skillet that goes from hob to oven to table.',
      'Une poêle en fonte déjà culottée, qui passe de la plaque au four, puis à la table.',
    ),
    tags: ['cast-iron', 'cookware', 'cooking'], price: 3900,
    opts: [['diameter', ['20cm', '26cm']]], delta: { '26cm': 1500 },
  },
  {
    handle: 'pour-over-coffee-set', short: 'pourover', cat: 'kitchen', hue: 30, detail: true,
    title: t('Pour-Over Coffee Set', 'Set pour café filtre'),
    desc: t(
      'A ceramic dripper, a glass carafe and 100 paper filters for slow, balanced coffee.',
      'Un filtre en céramique, une carafe en verre et 100 filtres en papier pour un café doux et équilibré.',
    ),
    tags: ['coffee', 'ceramic', 'glass'], price: 5400, list: 6400,
  },
  {
    handle: 'espresso-cups', short: 'espresso', cat: 'kitchen', hue: 350,
    title: t('Stoneware Espresso Cups, Set of 4', 'Tasses à expresso en grès, lot de 4'),
    desc: t(
      'Four small stoneware cups with a reactive glaze, each holding 90 ml.',
      "Quatre petites tasses en grès à l'émail réactif, d'une contenance de 9 cl chacune.",
    ),
    tags: ['coffee', 'stoneware', 'cups'], price: 3200,
    opts: [['color', ['white', 'black']]],
  },
  {
    handle: 'linen-apron', short: 'apron', cat: 'kitchen', hue: 160,
    title: t('Linen Apron', 'Tablier en lin'),
    desc: t(
      'A full-length linen apron with adjustable cotton straps and a large front pocket.',
      'Un tablier long en lin, avec liens en coton réglables et grande poche frontale.',
    ),
    tags: ['linen', 'apron', 'cooking'], price: 3600,
    opts: [['color', ['natural', 'navy']]],
    cust: [MONOGRAM],
  },
  {
    handle: 'glass-storage-jars', short: 'jars', cat: 'kitchen', hue: 175,
    title: t('Glass Storage Jars, Set of 3', 'Bocaux de conservation en verre, lot de 3'),
    desc: t(
      'Three airtight borosilicate jars with bamboo lids, for pasta, grains and coffee.',
      'Trois bocaux hermétiques en verre borosilicate avec couvercles en bambou, pour les pâtes, les céréales et le café.',
    ),
    tags: ['glass', 'storage', 'pantry'], price: 2800,
  },
  {
    handle: 'olive-wood-spoons', short: 'spoons', cat: 'kitchen', hue: 70,
    title: t('Olive Wood Spoon Set', "Lot de cuillères en bois d'olivier"),
    desc: t(
      'Three cooking spoons, each carved from a single piece of olive wood.',
      "Trois cuillères de cuisine, chacune taillée dans une seule pièce de bois d'olivier.",
    ),
    tags: ['wood', 'utensils', 'cooking'], price: 2200,
    stock: { '': 'oos' },
  },

  // ----- stationery
  {
    handle: 'hardcover-notebook', short: 'notebook', cat: 'stationery', hue: 230, detail: true,
    title: t('Hardcover Notebook', 'Carnet à couverture rigide'),
    desc: t(
      'A lay-flat hardcover notebook with 192 pages of 100 gsm acid-free paper.',
      "Un carnet à couverture rigide qui s'ouvre à plat, avec 192 pages de papier sans acide de 100 g/m².",
    ),
    tags: ['notebook', 'paper', 'writing'], price: 1800,
    opts: [['format', ['a5', 'a4']], ['ruling', ['lined', 'dotted', 'blank']]], delta: { a4: 400 },
    stock: { a4_blank: 'oos' },
  },
  {
    handle: 'leather-journal', short: 'journal', cat: 'stationery', hue: 22,
    title: t('Leather Journal', 'Carnet en cuir'),
    desc: t(
      'A refillable vegetable-tanned leather journal that develops a rich patina with use.',
      'Un carnet rechargeable en cuir tanné végétal, qui se patine joliment avec le temps.',
    ),
    tags: ['leather', 'journal', 'writing', 'personalized'], price: 4600,
    opts: [['color', ['brown', 'black']]],
    stock: { black: 2 },
    cust: JOURNAL_CUSTOMIZATIONS,
  },
  {
    handle: 'steel-fountain-pen', short: 'fountain_pen', cat: 'stationery', hue: 240,
    title: t('Steel Fountain Pen', 'Stylo plume en acier'),
    desc: t(
      'A steel fountain pen with a medium nib, supplied with a converter and two ink cartridges.',
      "Un stylo plume en acier à pointe moyenne, fourni avec un convertisseur et deux cartouches d'encre.",
    ),
    tags: ['pen', 'writing', 'steel'], price: 3800,
    opts: [['color', ['black', 'navy']]],
  },
  {
    handle: 'brass-ballpoint-pen', short: 'brass_pen', cat: 'stationery', hue: 46,
    title: t('Brass Ballpoint Pen', 'Stylo bille en laiton'),
    desc: t(
      'A solid brass ballpoint pen that takes standard refills and ages beautifully.',
      'Un stylo bille en laiton massif, compatible avec les recharges standard, qui vieillit magnifiquement.',
    ),
    tags: ['pen', 'brass', 'writing'], price: 2400,
  },
  {
    handle: 'weekly-planner', short: 'planner', cat: 'stationery', hue: 120,
    title: t('Undated Weekly Planner', 'Agenda hebdomadaire non daté'),
    desc: t(
      'An undated weekly planner with a linen cover, monthly overviews and notes pages.',
      'Un agenda hebdomadaire non daté à couverture en lin, avec vues mensuelles et pages de notes.',
    ),
    tags: ['planner', 'paper', 'organization'], price: 2600, list: 3200,
    opts: [['color', ['sage', 'sand']]],
  },
  {
    handle: 'letterpress-cards', short: 'cards', cat: 'stationery', hue: 300,
    title: t('Letterpress Greeting Cards, Set of 6', 'Cartes de vœux typographiées, lot de 6'),
    desc: t(
      'Six blank cards printed by letterpress on cotton paper, with kraft envelopes.',
      'Six cartes vierges imprimées en typographie sur papier coton, avec enveloppes kraft.',
    ),
    tags: ['cards', 'paper', 'gift'], price: 1600,
    cust: [CARD_EXTRAS],
  },
  {
    handle: 'oak-desk-organizer', short: 'organizer', cat: 'stationery', hue: 38,
    title: t('Oak Desk Organizer', 'Organiseur de bureau en chêne'),
    desc: t(
      'A solid oak organiser with compartments for pens, cards and your phone.',
      'Un organiseur en chêne massif, avec des compartiments pour les stylos, les cartes et le téléphone.',
    ),
    tags: ['oak', 'office', 'organization'], price: 4900,
  },
  {
    handle: 'washi-tape-set', short: 'washi', cat: 'stationery', hue: 340,
    title: t('Washi Tape Set', 'Lot de rubans washi'),
    desc: t(
      'Eight rolls of Japanese paper tape in muted colours, for journaling and gift wrapping.',
      'Huit rouleaux de ruban adhésif en papier japonais aux couleurs douces, pour les carnets et les paquets cadeaux.',
    ),
    tags: ['tape', 'paper', 'crafts'], price: 1200,
  },

  // ----- outdoors
  {
    handle: 'insulated-bottle', short: 'bottle', cat: 'outdoors', hue: 150, detail: true,
    title: t('Insulated Water Bottle', 'Gourde isotherme'),
    desc: t(
      'A double-walled stainless steel bottle that keeps drinks cold for 24 hours or hot for 12.',
      'Une gourde en acier inoxydable à double paroi, qui garde les boissons froides 24 heures ou chaudes 12 heures.',
    ),
    tags: ['bottle', 'steel', 'hiking'], price: 2900,
    opts: [['capacity', ['500ml', '750ml']], ['color', ['black', 'green']]], delta: { '750ml': 400 },
  },
  {
    handle: 'enamel-camp-mug', short: 'camp_mug', cat: 'outdoors', hue: 195,
    title: t('Enamel Camp Mug', 'Tasse de camping émaillée'),
    desc: t(
      'A lightweight enamelled steel mug, as at home by the campfire as on the kitchen table.',
      "Une tasse légère en acier émaillé, aussi à l'aise au coin du feu que sur la table de la cuisine.",
    ),
    tags: ['mug', 'camping', 'enamel'], price: 1600,
    opts: [['color', ['white', 'blue']]],
  },
  {
    handle: 'hiking-daypack', short: 'daypack', cat: 'outdoors', hue: 85, detail: true,
    title: t('Hiking Daypack 20L', 'Sac à dos de randonnée 20 L'),
    desc: t(
      'A 20-litre daypack in recycled ripstop with a padded back panel and a hydration sleeve.',
      'Un sac à dos de 20 litres en ripstop recyclé, avec dos rembourré et poche à hydratation.',
    ),
    tags: ['backpack', 'hiking', 'recycled'], price: 8900, list: 10900,
    opts: [['color', ['olive', 'black', 'rust']]],
    stock: { rust: 'backorder' },
  },
  {
    handle: 'picnic-blanket', short: 'picnic', cat: 'outdoors', hue: 5,
    title: t('Waterproof Picnic Blanket', 'Couverture de pique-nique imperméable'),
    desc: t(
      'A soft fleece blanket with a waterproof backing that folds into its own carry strap.',
      'Une couverture en polaire douce avec envers imperméable, qui se replie dans sa sangle de transport.',
    ),
    tags: ['picnic', 'blanket', 'waterproof'], price: 5400,
    opts: [['color', ['red', 'navy']]],
  },
  {
    handle: 'camp-lantern', short: 'lantern', cat: 'outdoors', hue: 55,
    title: t('Rechargeable Camp Lantern', 'Lanterne de camping rechargeable'),
    desc: t(
      'A USB-C rechargeable LED lantern with three brightness levels and up to 40 hours of light.',
      "Une lanterne LED rechargeable en USB-C, avec trois niveaux d'intensité et jusqu'à 40 heures d'éclairage.",
    ),
    tags: ['lighting', 'camping', 'led'], price: 4400,
    stock: { '': 'preorder' },
  },
  {
    handle: 'folding-camp-stool', short: 'stool', cat: 'outdoors', hue: 110,
    title: t('Folding Camp Stool', 'Tabouret de camping pliant'),
    desc: t(
      'A compact aluminium stool with a canvas seat that folds flat in a second.',
      "Un tabouret compact en aluminium à l'assise en toile, qui se plie à plat en une seconde.",
    ),
    tags: ['camping', 'furniture', 'aluminium'], price: 3800,
  },
  {
    handle: 'wide-brim-trail-hat', short: 'trail_hat', cat: 'outdoors', hue: 60,
    title: t('Wide-Brim Trail Hat', 'Chapeau de randonnée à larges bords'),
    desc: t(
      'A wide-brim hat in quick-drying nylon with UPF 50 sun protection and a chin strap.',
      'Un chapeau à larges bords en nylon à séchage rapide, avec protection solaire UPF 50 et jugulaire.',
    ),
    tags: ['hat', 'hiking', 'sun'], price: 3600,
    opts: [['size', ['m', 'l']], ['color', ['sand', 'olive']]],
  },
  {
    handle: 'travel-hammock', short: 'hammock', cat: 'outdoors', hue: 140,
    title: t('Travel Hammock', 'Hamac de voyage'),
    desc: t(
      'A parachute-nylon hammock with tree straps that packs down to the size of a grapefruit.',
      "Un hamac en nylon parachute avec sangles d'arbre, qui se range dans un volume à peine plus grand qu'un pamplemousse.",
    ),
    tags: ['camping', 'hammock', 'travel'], price: 6400,
    opts: [['color', ['green', 'blue']]],
    stock: { blue: 'oos' },
  },

  // ----- accessories
  {
    handle: 'engraved-flask', short: 'flask', cat: 'accessories', hue: 210, detail: true,
    title: t('Engraved Steel Flask', 'Flasque en acier gravée'),
    desc: t(
      'A 200 ml stainless steel hip flask with a leak-proof captive cap, engraved with your message.',
      'Une flasque de 20 cl en acier inoxydable avec bouchon imperdable et étanche, gravée avec votre message.',
    ),
    tags: ['flask', 'steel', 'engraving', 'gift', 'personalized'], price: 3200,
    opts: [['finish', ['steel', 'black']]], delta: { black: 200 },
    stock: { steel: 50, black: 30 },
    cust: FLASK_CUSTOMIZATIONS,
  },
  {
    handle: 'canvas-tote', short: 'tote', cat: 'accessories', hue: 42,
    title: t('Canvas Tote Bag', 'Sac cabas en toile'),
    desc: t(
      'A heavy cotton canvas tote with an inside pocket and long handles for carrying on the shoulder.',
      "Un sac cabas en toile de coton épaisse, avec poche intérieure et anses longues pour le porter à l'épaule.",
    ),
    tags: ['bag', 'canvas', 'cotton'], price: 2800,
    opts: [['color', ['natural', 'black']]],
    cust: [MONOGRAM],
  },
  {
    handle: 'leather-card-wallet', short: 'wallet', cat: 'accessories', hue: 24,
    title: t('Leather Card Wallet', 'Porte-cartes en cuir'),
    desc: t(
      'A slim card wallet in full-grain leather with four card slots and a central pocket.',
      'Un porte-cartes fin en cuir pleine fleur, avec quatre fentes et une poche centrale.',
    ),
    tags: ['leather', 'wallet'], price: 4200,
    opts: [['color', ['brown', 'black']]],
  },
  {
    handle: 'classic-sunglasses', short: 'sunglasses', cat: 'accessories', hue: 275, detail: true,
    title: t('Classic Sunglasses', 'Lunettes de soleil classiques'),
    desc: t(
      'Acetate frames with polarised UV400 lenses and a hard protective case.',
      'Une monture en acétate avec verres polarisés UV400 et étui rigide de protection.',
    ),
    tags: ['sunglasses', 'summer', 'acetate'], price: 6800, list: 8500,
    opts: [['color', ['black', 'tortoise']]],
  },
  {
    handle: 'lambswool-scarf', short: 'scarf', cat: 'accessories', hue: 10,
    title: t('Lambswool Scarf', "Écharpe en laine d'agneau"),
    desc: t(
      'A generous scarf woven in Scotland from soft lambswool.',
      "Une grande écharpe tissée en Écosse dans une laine d'agneau douce.",
    ),
    tags: ['wool', 'scarf', 'winter'], price: 5200,
    opts: [['color', ['grey', 'rust', 'navy']]],
  },
  {
    handle: 'brass-key-ring', short: 'keyring', cat: 'accessories', hue: 50,
    title: t('Brass Key Ring', 'Porte-clés en laiton'),
    desc: t(
      'A solid brass key ring with a sturdy split ring. Add a short engraving to make it your own.',
      'Un porte-clés en laiton massif avec un anneau brisé robuste. Ajoutez une courte gravure pour le personnaliser.',
    ),
    tags: ['brass', 'keys', 'engraving', 'gift'], price: 1400,
    cust: [KEYRING_ENGRAVING],
  },
  {
    handle: 'digital-gift-card', short: 'gift_card', cat: 'accessories', hue: 320,
    title: t('Digital Gift Card', 'Carte cadeau numérique'),
    desc: t(
      'A digital gift card delivered by email, valid on everything in the shop for two years.',
      "Une carte cadeau numérique envoyée par e-mail, valable sur toute la boutique pendant deux ans.",
    ),
    tags: ['gift', 'gift-card', 'digital'], price: 2500,
    opts: [['amount', ['25', '50', '100']]], delta: { '50': 2500, '100': 7500 },
    stock: { '25': 'untracked', '50': 'untracked', '100': 'untracked' },
    cust: [GIFT_MESSAGE], noRating: true,
  },
  {
    handle: 'leather-belt', short: 'belt', cat: 'accessories', hue: 30,
    title: t('Leather Belt', 'Ceinture en cuir'),
    desc: t(
      'A 35 mm belt in vegetable-tanned leather with a solid brass buckle.',
      'Une ceinture de 35 mm en cuir tanné végétal, avec boucle en laiton massif.',
    ),
    tags: ['leather', 'belt'], price: 5800,
    opts: [['size', ['s', 'm', 'l', 'xl']], ['color', ['brown', 'black']]],
    stock: { xl_black: 'oos' },
  },
];

/** Products of shop_other: a different catalog (English only), including a "Flask" of its own. */
const OTHER_ROWS: Row[] = [
  {
    id: 'other_pewter_hip_flask', handle: 'pewter-hip-flask', short: 'pewter_flask', varPrefix: 'other_var_', cat: 'barware', hue: 190,
    title: t('Pewter Hip Flask'), desc: t('A hand-finished 170 ml pewter hip flask with a hinged screw cap.'),
    tags: ['flask', 'pewter', 'barware'], price: 4500,
  },
  {
    id: 'other_cocktail_shaker', handle: 'cocktail-shaker', short: 'shaker', varPrefix: 'other_var_', cat: 'barware', hue: 0,
    title: t('Cocktail Shaker'), desc: t('A three-piece stainless steel shaker with a built-in strainer. Holds 700 ml.'),
    tags: ['cocktail', 'barware', 'steel'], price: 3200,
    opts: [['finish', ['steel', 'black']]],
  },
  {
    id: 'other_bamboo_toothbrushes', handle: 'bamboo-toothbrushes', short: 'toothbrush', varPrefix: 'other_var_', cat: 'bathroom', hue: 90,
    title: t('Bamboo Toothbrush 4-Pack'), desc: t('Four compostable bamboo toothbrushes with soft, plant-based bristles.'),
    tags: ['bamboo', 'zero-waste', 'bathroom'], price: 1200,
  },
  {
    id: 'other_wool_dryer_balls', handle: 'wool-dryer-balls', short: 'dryer_balls', varPrefix: 'other_var_', cat: 'laundry', hue: 280,
    title: t('Wool Dryer Balls'), desc: t('Six felted wool balls that soften laundry and shorten drying time without chemicals.'),
    tags: ['wool', 'laundry', 'zero-waste'], price: 1900,
    stock: { '': 'oos' },
  },
  {
    id: 'other_beeswax_wraps', handle: 'beeswax-wraps', short: 'wraps', varPrefix: 'other_var_', cat: 'kitchen', hue: 48,
    title: t('Beeswax Food Wraps'), desc: t('Reusable cotton wraps coated in beeswax and jojoba oil to keep food fresh.'),
    tags: ['beeswax', 'kitchen', 'zero-waste'], price: 1600,
    opts: [['size', ['small', 'large']]], delta: { large: 600 },
  },
  {
    id: 'other_jute_doormat', handle: 'jute-doormat', short: 'doormat', varPrefix: 'other_var_', cat: 'home', hue: 35,
    title: t('Jute Doormat'), desc: t('A thick, hard-wearing doormat woven from natural jute. 45 × 75 cm.'),
    tags: ['jute', 'home', 'entryway'], price: 3400, list: 3900,
  },
];

/** Products of shop_strict (strict.localhost): a small catalog behind a stricter access policy (docs/access.md). */
const STRICT_ROWS: Row[] = [
  {
    id: 'strict_brass_padlock', handle: 'brass-padlock', short: 'padlock', varPrefix: 'strict_var_', cat: 'accessories', hue: 45,
    title: t('Brass Padlock'), desc: t('A solid brass 40 mm padlock with two keys and a hardened steel shackle.'),
    tags: ['padlock', 'brass', 'security'], price: 2400,
  },
  {
    id: 'strict_steel_key_ring', handle: 'steel-key-ring', short: 'key_ring', varPrefix: 'strict_var_', cat: 'accessories', hue: 210,
    title: t('Steel Key Ring'), desc: t('A split key ring of brushed stainless steel with a quick-release clip.'),
    tags: ['keys', 'steel', 'everyday carry'], price: 900,
  },
];

/** Products of shop_offline (protocol disabled): the protocol must not expose them. */
const OFFLINE_ROWS: Row[] = [
  {
    id: 'offline_tea_tin', handle: 'loose-leaf-tea-tin', short: 'tea_tin', varPrefix: 'offline_var_', cat: 'tea', hue: 130,
    title: t('Loose Leaf Tea Tin'), desc: t('An airtight tin of organic green sencha, 100 g.'),
    tags: ['tea', 'organic'], price: 1400,
  },
  {
    id: 'offline_cast_iron_teapot', handle: 'cast-iron-teapot', short: 'teapot', varPrefix: 'offline_var_', cat: 'tea', hue: 0,
    title: t('Cast Iron Teapot'), desc: t('A 600 ml enamel-lined cast iron teapot with a stainless steel infuser.'),
    tags: ['tea', 'cast-iron'], price: 5900,
    opts: [['color', ['black', 'red']]],
  },
  {
    id: 'offline_tea_towel', handle: 'cotton-tea-towel', short: 'tea_towel', varPrefix: 'offline_var_', cat: 'kitchen', hue: 200,
    title: t('Cotton Tea Towel'), desc: t('A woven cotton tea towel with a hanging loop. 50 × 70 cm.'),
    tags: ['cotton', 'kitchen'], price: 1100,
  },
];

// ---------------------------------------------------------------------------------------------
// Row -> StoredProduct

function loc(l: L, langs: string[]): Localized {
  if (langs.length === 1 || l.fr === undefined) return l.en;
  return { en: l.en, fr: l.fr };
}

function cartesian(opts: [string, string[]][]): Record<string, string>[] {
  let combos: Record<string, string>[] = [{}];
  for (const [name, values] of opts) {
    combos = combos.flatMap((c) => values.map((v) => ({ ...c, [name]: v })));
  }
  return combos;
}

/** Strips the French half of customization labels for English-only shops. */
function localizeCustomization(c: CustomizationDef, langs: string[]): CustomizationDef {
  const fix = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(fix);
    if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (typeof o.en === 'string' && Object.keys(o).every((k) => typeof o[k] === 'string' && k.length <= 5)) {
        return loc(o as unknown as L, langs);
      }
      return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, fix(x)]));
    }
    return v;
  };
  return fix(c) as CustomizationDef;
}

export function buildProduct(row: Row, langs: string[]): StoredProduct {
  const id = row.id ?? `prod_${row.handle.replace(/-/g, '_')}`;
  const opts = row.opts ?? [];
  const rng = mulberry32(hash32(id));
  const variants: StoredVariant[] = cartesian(opts).map((combo) => {
    const key = opts.map(([name]) => combo[name]).join('_');
    const vid = `${row.varPrefix ?? 'var_'}${row.short}${key ? `_${key}` : ''}`;
    const delta = Object.values(combo).reduce((sum, v) => sum + (row.delta?.[v] ?? 0), 0);
    const v: StoredVariant = {
      id: vid,
      sku: `${(row.sku ?? row.short).toUpperCase().replace(/_/g, '-')}${key ? `-${key.toUpperCase().replace(/_/g, '-')}` : ''}`,
      options: combo,
      price: row.price + delta,
    };
    if (row.list !== undefined) v.list_price = row.list + delta;
    const vr = mulberry32(hash32(vid));
    const stock: Stock = row.stock?.[key] ?? 5 + Math.floor(vr() * 76);
    if (stock === 'oos') {
      v.inventory = 0;
      v.status = 'out_of_stock';
    } else if (stock === 'backorder' || stock === 'preorder') {
      v.inventory = 0;
      v.status = stock;
    } else if (typeof stock === 'number') {
      v.inventory = stock;
    }
    if (row.cust) v.customizations = row.cust.map((c) => localizeCustomization(c, langs));
    if (row.unit) Object.assign(v, row.unit);
    return v;
  });

  const alt = loc(row.title, langs);
  const detailAlt =
    langs.length === 1 ? `${row.title.en}, detail` : { en: `${row.title.en}, detail`, fr: `${row.title.fr}, détail` };
  const product: StoredProduct = {
    id,
    handle: row.handle,
    title: loc(row.title, langs),
    description: loc(row.desc, langs),
    categories: [row.cat],
    tags: row.tags,
    media: [
      { type: 'image', url: `/media/${row.handle}.svg`, alt_text: alt, width: 400, height: 400 },
      ...(row.detail
        ? [{ type: 'image' as const, url: `/media/${row.handle}-detail.svg`, alt_text: detailAlt, width: 400, height: 400 }]
        : []),
    ],
    variants,
  };
  if (opts.length) {
    product.options = opts.map(([name, values]) => ({
      name,
      label: loc(OPTION_LABELS[name], langs),
      values: values.map((v) => {
        const label = VALUE_LABELS[name]?.[v];
        if (!label) throw new Error(`no label for option value ${name}=${v}`);
        return { id: v, label: loc(label, langs) };
      }),
    }));
  }
  if (!row.noRating && rng() < 0.8) {
    product.rating = { value: Math.round((3.6 + rng() * 1.4) * 10) / 10, scale_max: 5, count: 3 + Math.floor(rng() * 240) };
  }
  return product;
}

// ---------------------------------------------------------------------------------------------
// Catalogs

export function buildDemoCatalogs(): Record<'demo' | 'other' | 'offline' | 'strict', CatalogFile> {
  const demoLangs = ['en', 'fr'];
  const demo = CatalogFile.parse({
    shop: {
      id: 'shop_demo',
      domain: 'demo.localhost',
      name: 'Demo Outfitters',
      protocol_enabled: true,
      settings: {
        default_language: 'en',
        languages: demoLangs,
        currency: 'USD',
        rates: { EUR: 0.92, GBP: 0.79, JPY: 151.5, CAD: 1.37 },
        tax: { default_bps: 0, by_country: { FR: 2000, GB: 2000, DE: 1900, CA: 500 }, by_region: { 'US-CA': 725, 'US-NY': 400 } },
        mcp_enabled: true,
        allowed_agent_origins: ['http://agent.localhost:*'],
        order_webhooks_enabled: false,
        // The demo's "own checkout" is a page that shows what was handed over (docs/carts.md "Checkout handoff").
        checkout: { url: '/handoff-preview', method: 'POST' },
        // Sent as `policies[]` to UCP 2026-08-25 agents (docs/catalog-format.md "Policies").
        policies: [
          {
            type: 'dev.ucp.shopping.policy.return',
            description: {
              en: 'Unworn items can be returned within 30 days of delivery for a full refund.',
              fr: 'Les articles non portés peuvent être retournés sous 30 jours après la livraison, remboursement intégral.',
            },
          },
          {
            type: 'localhost.demo.policy.shipping',
            description: {
              en: 'Orders ship within 2 business days; shipping is free over $75 in the US.',
              fr: 'Les commandes partent sous 2 jours ouvrés ; livraison offerte dès 75 $ aux États-Unis.',
            },
          },
        ],
        extra: {
          // Access tiers (docs/access.md): anonymous agents may browse and build carts; keys and signatures may do everything.
          access: {
            anonymous: ['search_catalog', 'lookup_catalog', 'get_product', 'create_cart', 'get_cart', 'update_cart', 'cancel_cart'],
            signed: '*',
            token: '*',
          },
        },
      },
    },
    products: DEMO_ROWS.map((r) => buildProduct(r, demoLangs)),
    discounts: [
      { code: 'WELCOME10', kind: 'percentage', value: 1000, title: { en: '10% off', fr: '10 % de remise' } },
      { code: 'SAVE5', kind: 'fixed_amount', value: 500, title: { en: '$5 off', fr: '5 $ de remise' } },
      {
        code: 'SUMMER2024',
        kind: 'percentage',
        value: 2000,
        ends_at: '2024-09-01T00:00:00Z',
        title: { en: 'Summer sale: 20% off', fr: "Soldes d'été : 20 % de remise" },
      },
      {
        code: 'BIGSPENDER',
        kind: 'fixed_amount',
        value: 2000,
        min_subtotal: 15000,
        title: { en: '$20 off orders of $150 or more', fr: "20 $ de remise dès 150 $ d'achat" },
      },
    ],
  });

  const other = CatalogFile.parse({
    shop: {
      id: 'shop_other',
      domain: 'other.localhost',
      name: 'Other Goods',
      protocol_enabled: true,
      settings: {
        default_language: 'en',
        languages: ['en'],
        currency: 'USD',
        rates: { EUR: 0.92 },
        mcp_enabled: false,
        webmcp_enabled: false,
      },
    },
    products: OTHER_ROWS.map((r) => buildProduct(r, ['en'])),
    discounts: [],
  });

  const offline = CatalogFile.parse({
    shop: {
      id: 'shop_offline',
      domain: 'offline.localhost',
      name: 'Offline Store',
      protocol_enabled: false,
      settings: { default_language: 'en', languages: ['en'], currency: 'USD', mcp_enabled: false },
    },
    products: OFFLINE_ROWS.map((r) => buildProduct(r, ['en'])),
    discounts: [],
  });

  // A stricter example (docs/access.md): anonymous agents may only search; carts need a channel key or a signature.
  const strict = CatalogFile.parse({
    shop: {
      id: 'shop_strict',
      domain: 'strict.localhost',
      name: 'Strict Hardware',
      protocol_enabled: true,
      settings: {
        default_language: 'en',
        languages: ['en'],
        currency: 'USD',
        mcp_enabled: true,
        extra: { access: { anonymous: ['search_catalog'], signed: '*', token: '*' } },
      },
    },
    products: STRICT_ROWS.map((r) => buildProduct(r, ['en'])),
    discounts: [],
  });

  return { demo, other, offline, strict };
}

// ---------------------------------------------------------------------------------------------
// SVG placeholders

function hslHex(h: number, s: number, l: number): string {
  s /= 100;
  l /= 100;
  const k = (n: number) => (n + h / 30) % 12;
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => l - a * Math.max(-1, Math.min(k(n) - 3, Math.min(9 - k(n), 1)));
  return `#${[f(0), f(8), f(4)].map((x) => Math.round(x * 255).toString(16).padStart(2, '0')).join('')}`;
}

const xmlEscape = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');

/** A simple decorative shape per category, drawn in the 400×400 box. */
function shapeFor(cat: string, fill: string, detail: boolean): string {
  const o = detail ? ' opacity=".5"' : ' opacity=".35"';
  switch (cat) {
    case 'apparel':
      return `<path d="M130 110l50-20h40l50 20 40 60-45 25v115H135V195l-45-25z" fill="${fill}"${o}/>`;
    case 'home':
      return `<path d="M200 90l120 100v120H80V190z" fill="${fill}"${o}/>`;
    case 'kitchen':
    case 'tea':
    case 'barware':
      return `<circle cx="200" cy="200" r="115" fill="none" stroke="${fill}" stroke-width="28"${o}/>`;
    case 'stationery':
      return `<rect x="120" y="85" width="160" height="230" rx="10" fill="${fill}"${o}/>`;
    case 'outdoors':
      return `<path d="M50 320l110-180 60 90 40-50 90 140z" fill="${fill}"${o}/>`;
    case 'accessories':
      return `<path d="M200 80l120 120-120 120L80 200z" fill="${fill}"${o}/>`;
    default:
      return `<circle cx="200" cy="200" r="120" fill="${fill}"${o}/>`;
  }
}

export function placeholderSvg(opts: { title: string; category: string; hue: number; detail?: boolean }): string {
  const { title, category, hue, detail = false } = opts;
  const bg = hslHex(hue, detail ? 45 : 55, detail ? 86 : 78);
  const fg = hslHex(hue, 45, detail ? 32 : 38);
  const initial = xmlEscape(([...title.trim()][0] ?? '?').toUpperCase());
  const label = xmlEscape(detail ? `${title}, detail` : title);
  const letter = detail
    ? `<text x="320" y="350" font-family="Georgia,serif" font-size="64" text-anchor="middle" fill="${fg}">${initial}</text>`
    : `<text x="200" y="200" dy=".35em" font-family="Georgia,serif" font-size="120" text-anchor="middle" fill="#fff">${initial}</text>`;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 400 400" width="400" height="400" role="img" aria-label="${label}">` +
    `<rect width="400" height="400" rx="36" fill="${bg}"/>` +
    shapeFor(category, fg, detail) +
    letter +
    `</svg>\n`
  );
}

// ---------------------------------------------------------------------------------------------
// Main

function main(): void {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const dataDir = `${root}server/seed/data/`;
  const mediaDir = `${root}public/media/`;
  mkdirSync(dataDir, { recursive: true });
  mkdirSync(mediaDir, { recursive: true });

  const catalogs = buildDemoCatalogs();
  const rowsByShop = { demo: DEMO_ROWS, other: OTHER_ROWS, offline: OFFLINE_ROWS, strict: STRICT_ROWS };

  // Sanity checks beyond the schema: unique ids / handles across all shops (media files are
  // shared), every variant's options exist on the product.
  const seen = new Set<string>();
  const handles = new Set<string>();
  for (const [name, cat] of Object.entries(catalogs)) {
    for (const p of cat.products) {
      for (const id of [p.id, ...p.variants.map((v) => v.id)]) {
        if (seen.has(id)) throw new Error(`${name}: duplicate id ${id}`);
        seen.add(id);
      }
      if (handles.has(p.handle)) throw new Error(`${name}: duplicate handle ${p.handle}`);
      handles.add(p.handle);
      for (const v of p.variants) {
        for (const [k, val] of Object.entries(v.options)) {
          const opt = p.options?.find((o) => o.name === k);
          if (!opt?.values.some((x) => x.id === val)) throw new Error(`${v.id}: unknown option ${k}=${val}`);
        }
      }
    }
  }

  let svgCount = 0;
  let maxSvg = 0;
  const writeSvg = (file: string, svg: string) => {
    if (svg.length >= 1024) throw new Error(`${file} is ${svg.length} bytes (limit 1 KB)`);
    writeFileSync(`${mediaDir}${file}`, svg);
    svgCount++;
    maxSvg = Math.max(maxSvg, svg.length);
  };

  for (const [name, cat] of Object.entries(catalogs) as [keyof typeof catalogs, CatalogFile][]) {
    writeFileSync(`${dataDir}${name}.json`, `${JSON.stringify(cat, null, 2)}\n`);
    for (const row of rowsByShop[name]) {
      writeSvg(`${row.handle}.svg`, placeholderSvg({ title: row.title.en, category: row.cat, hue: row.hue }));
      if (row.detail) {
        writeSvg(`${row.handle}-detail.svg`, placeholderSvg({ title: row.title.en, category: row.cat, hue: row.hue, detail: true }));
      }
    }
    const variants = cat.products.reduce((n, p) => n + p.variants.length, 0);
    const categories = new Set(cat.products.flatMap((p) => p.categories));
    console.log(
      `${name}.json: ${cat.shop.id}, ${cat.products.length} products, ${variants} variants, ${categories.size} categories, ${cat.discounts.length} discounts`,
    );
  }
  // Generic placeholder used by generated (benchmark) catalogs.
  writeSvg('placeholder.svg', placeholderSvg({ title: 'Product', category: 'other', hue: 220 }));
  console.log(`public/media: ${svgCount} SVG files (largest ${maxSvg} bytes)`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
