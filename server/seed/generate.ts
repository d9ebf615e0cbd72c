/**
 * Large-catalog generator for benchmarks and tests.
 *
 *   npx tsx server/seed/generate.ts --products 100000 --shop-id shop_bench --domain bench.localhost --out /tmp/bench.json
 *
 * Options: --products N (default 1000), --shop-id ID (shop_bench), --domain HOST (bench.localhost),
 * --name NAME, --seed N (1), --out FILE (default: stdout), --no-validate (skip per-product zod checks).
 *
 * Output is a valid CatalogFile (server/formats/catalog-format.ts): English + French titles and
 * descriptions assembled from word lists (so full-text search sees a varied vocabulary), 2–4
 * variants per product, a few customizations and discounts. Product i depends only on (seed, i),
 * so the output is deterministic and a catalog of N products is a prefix of one of N+M products.
 * The CLI streams products to the file one at a time; `generateCatalog()` builds it in memory.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import {
  CatalogFile,
  ShopSettings,
  StoredProduct,
  type CustomizationDef,
  type StoredDiscount,
  type StoredVariant,
} from '../formats/catalog-format.ts';

export interface GenerateOptions {
  /** Number of products. */
  products: number;
  shopId?: string;
  domain?: string;
  name?: string;
  /** PRNG seed (default 1). */
  seed?: number;
}

// ---------------------------------------------------------------------------------------------
// PRNG

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Independent stream per (seed, index): product i is the same whatever N is. */
function rngFor(seed: number, i: number): () => number {
  let h = Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(i + 1, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  return mulberry32(h);
}

type Rng = () => number;
const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
const int = (r: Rng, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));

// ---------------------------------------------------------------------------------------------
// Word lists. French nouns carry a gender so adjectives agree.

type G = 'm' | 'f';
interface Noun {
  en: string;
  fr: string;
  g: G;
}
interface Adj {
  en: string;
  m: string;
  f: string;
}
interface Word {
  en: string;
  fr: string;
}

const ADJECTIVES: Adj[] = [
  { en: 'Classic', m: 'classique', f: 'classique' },
  { en: 'Rustic', m: 'rustique', f: 'rustique' },
  { en: 'Modern', m: 'moderne', f: 'moderne' },
  { en: 'Elegant', m: 'élégant', f: 'élégante' },
  { en: 'Compact', m: 'compact', f: 'compacte' },
  { en: 'Handmade', m: 'fait main', f: 'faite main' },
  { en: 'Vintage', m: 'vintage', f: 'vintage' },
  { en: 'Lightweight', m: 'léger', f: 'légère' },
  { en: 'Sturdy', m: 'robuste', f: 'robuste' },
  { en: 'Minimal', m: 'minimaliste', f: 'minimaliste' },
  { en: 'Cozy', m: 'douillet', f: 'douillette' },
  { en: 'Nordic', m: 'nordique', f: 'nordique' },
  { en: 'Artisan', m: 'artisanal', f: 'artisanale' },
  { en: 'Everyday', m: 'du quotidien', f: 'du quotidien' },
  { en: 'Heritage', m: 'traditionnel', f: 'traditionnelle' },
  { en: 'Coastal', m: 'bord de mer', f: 'bord de mer' },
  { en: 'Alpine', m: 'alpin', f: 'alpine' },
  { en: 'Urban', m: 'urbain', f: 'urbaine' },
  { en: 'Refined', m: 'raffiné', f: 'raffinée' },
  { en: 'Soft', m: 'doux', f: 'douce' },
  { en: 'Bold', m: 'audacieux', f: 'audacieuse' },
  { en: 'Timeless', m: 'intemporel', f: 'intemporelle' },
  { en: 'Portable', m: 'portable', f: 'portable' },
  { en: 'Premium', m: 'haut de gamme', f: 'haut de gamme' },
];

interface Category {
  id: string;
  nouns: Noun[];
  materials: Word[];
  sized: boolean;
}

const CATEGORIES: Category[] = [
  {
    id: 'apparel',
    sized: true,
    nouns: [
      { en: 'Tee', fr: 't-shirt', g: 'm' },
      { en: 'Sweater', fr: 'pull', g: 'm' },
      { en: 'Shirt', fr: 'chemise', g: 'f' },
      { en: 'Jacket', fr: 'veste', g: 'f' },
      { en: 'Hoodie', fr: 'sweat à capuche', g: 'm' },
      { en: 'Cardigan', fr: 'gilet', g: 'm' },
      { en: 'Dress', fr: 'robe', g: 'f' },
      { en: 'Trousers', fr: 'pantalon', g: 'm' },
      { en: 'Shorts', fr: 'short', g: 'm' },
      { en: 'Skirt', fr: 'jupe', g: 'f' },
      { en: 'Vest', fr: 'gilet sans manches', g: 'm' },
      { en: 'Overshirt', fr: 'surchemise', g: 'f' },
    ],
    materials: [
      { en: 'Cotton', fr: 'coton' },
      { en: 'Linen', fr: 'lin' },
      { en: 'Wool', fr: 'laine' },
      { en: 'Merino', fr: 'mérinos' },
      { en: 'Denim', fr: 'denim' },
      { en: 'Corduroy', fr: 'velours côtelé' },
      { en: 'Hemp', fr: 'chanvre' },
      { en: 'Cashmere', fr: 'cachemire' },
      { en: 'Flannel', fr: 'flanelle' },
    ],
  },
  {
    id: 'home',
    sized: false,
    nouns: [
      { en: 'Lamp', fr: 'lampe', g: 'f' },
      { en: 'Vase', fr: 'vase', g: 'm' },
      { en: 'Cushion', fr: 'coussin', g: 'm' },
      { en: 'Throw', fr: 'plaid', g: 'm' },
      { en: 'Mirror', fr: 'miroir', g: 'm' },
      { en: 'Basket', fr: 'panier', g: 'm' },
      { en: 'Candle Holder', fr: 'bougeoir', g: 'm' },
      { en: 'Rug', fr: 'tapis', g: 'm' },
      { en: 'Shelf', fr: 'étagère', g: 'f' },
      { en: 'Clock', fr: 'horloge', g: 'f' },
      { en: 'Planter', fr: 'jardinière', g: 'f' },
      { en: 'Tray', fr: 'plateau', g: 'm' },
    ],
    materials: [
      { en: 'Oak', fr: 'chêne' },
      { en: 'Ceramic', fr: 'céramique' },
      { en: 'Linen', fr: 'lin' },
      { en: 'Rattan', fr: 'rotin' },
      { en: 'Marble', fr: 'marbre' },
      { en: 'Brass', fr: 'laiton' },
      { en: 'Glass', fr: 'verre' },
      { en: 'Wool', fr: 'laine' },
      { en: 'Jute', fr: 'jute' },
      { en: 'Terracotta', fr: 'terre cuite' },
    ],
  },
  {
    id: 'kitchen',
    sized: false,
    nouns: [
      { en: 'Mug', fr: 'mug', g: 'm' },
      { en: 'Bowl', fr: 'bol', g: 'm' },
      { en: 'Plate', fr: 'assiette', g: 'f' },
      { en: 'Teapot', fr: 'théière', g: 'f' },
      { en: 'Cutting Board', fr: 'planche à découper', g: 'f' },
      { en: 'Skillet', fr: 'poêle', g: 'f' },
      { en: 'Saucepan', fr: 'casserole', g: 'f' },
      { en: 'Carafe', fr: 'carafe', g: 'f' },
      { en: 'Knife', fr: 'couteau', g: 'm' },
      { en: 'Spoon Set', fr: 'lot de cuillères', g: 'm' },
      { en: 'Storage Jar', fr: 'bocal', g: 'm' },
      { en: 'Apron', fr: 'tablier', g: 'm' },
      { en: 'Colander', fr: 'passoire', g: 'f' },
    ],
    materials: [
      { en: 'Stoneware', fr: 'grès' },
      { en: 'Porcelain', fr: 'porcelaine' },
      { en: 'Cast Iron', fr: 'fonte' },
      { en: 'Copper', fr: 'cuivre' },
      { en: 'Steel', fr: 'acier' },
      { en: 'Walnut', fr: 'noyer' },
      { en: 'Olive Wood', fr: "bois d'olivier" },
      { en: 'Bamboo', fr: 'bambou' },
      { en: 'Enamel', fr: 'émail' },
      { en: 'Glass', fr: 'verre' },
    ],
  },
  {
    id: 'stationery',
    sized: false,
    nouns: [
      { en: 'Notebook', fr: 'carnet', g: 'm' },
      { en: 'Journal', fr: 'journal', g: 'm' },
      { en: 'Pen', fr: 'stylo', g: 'm' },
      { en: 'Pencil Case', fr: 'trousse', g: 'f' },
      { en: 'Planner', fr: 'agenda', g: 'm' },
      { en: 'Desk Organizer', fr: 'organiseur de bureau', g: 'm' },
      { en: 'Sketchbook', fr: 'carnet de croquis', g: 'm' },
      { en: 'Card Set', fr: 'lot de cartes', g: 'm' },
      { en: 'Bookmark', fr: 'marque-page', g: 'm' },
      { en: 'Folder', fr: 'pochette', g: 'f' },
      { en: 'Ruler', fr: 'règle', g: 'f' },
    ],
    materials: [
      { en: 'Leather', fr: 'cuir' },
      { en: 'Recycled Paper', fr: 'papier recyclé' },
      { en: 'Brass', fr: 'laiton' },
      { en: 'Linen', fr: 'lin' },
      { en: 'Cork', fr: 'liège' },
      { en: 'Kraft', fr: 'kraft' },
      { en: 'Walnut', fr: 'noyer' },
      { en: 'Aluminium', fr: 'aluminium' },
    ],
  },
  {
    id: 'outdoors',
    sized: false,
    nouns: [
      { en: 'Backpack', fr: 'sac à dos', g: 'm' },
      { en: 'Tent', fr: 'tente', g: 'f' },
      { en: 'Lantern', fr: 'lanterne', g: 'f' },
      { en: 'Water Bottle', fr: 'gourde', g: 'f' },
      { en: 'Hammock', fr: 'hamac', g: 'm' },
      { en: 'Camp Stool', fr: 'tabouret de camping', g: 'm' },
      { en: 'Sleeping Bag', fr: 'sac de couchage', g: 'm' },
      { en: 'Picnic Blanket', fr: 'couverture de pique-nique', g: 'f' },
      { en: 'Trail Hat', fr: 'chapeau de randonnée', g: 'm' },
      { en: 'Cooler', fr: 'glacière', g: 'f' },
      { en: 'Camp Mug', fr: 'tasse de camping', g: 'f' },
    ],
    materials: [
      { en: 'Ripstop', fr: 'ripstop' },
      { en: 'Canvas', fr: 'toile' },
      { en: 'Steel', fr: 'acier' },
      { en: 'Aluminium', fr: 'aluminium' },
      { en: 'Nylon', fr: 'nylon' },
      { en: 'Fleece', fr: 'polaire' },
      { en: 'Waxed Cotton', fr: 'coton ciré' },
      { en: 'Titanium', fr: 'titane' },
    ],
  },
  {
    id: 'accessories',
    sized: false,
    nouns: [
      { en: 'Wallet', fr: 'portefeuille', g: 'm' },
      { en: 'Belt', fr: 'ceinture', g: 'f' },
      { en: 'Scarf', fr: 'écharpe', g: 'f' },
      { en: 'Flask', fr: 'flasque', g: 'f' },
      { en: 'Tote Bag', fr: 'sac cabas', g: 'm' },
      { en: 'Key Ring', fr: 'porte-clés', g: 'm' },
      { en: 'Watch Strap', fr: 'bracelet de montre', g: 'm' },
      { en: 'Sunglasses Case', fr: 'étui à lunettes', g: 'm' },
      { en: 'Beanie', fr: 'bonnet', g: 'm' },
      { en: 'Card Holder', fr: 'porte-cartes', g: 'm' },
      { en: 'Umbrella', fr: 'parapluie', g: 'm' },
    ],
    materials: [
      { en: 'Leather', fr: 'cuir' },
      { en: 'Suede', fr: 'daim' },
      { en: 'Wool', fr: 'laine' },
      { en: 'Canvas', fr: 'toile' },
      { en: 'Steel', fr: 'acier' },
      { en: 'Silk', fr: 'soie' },
      { en: 'Cashmere', fr: 'cachemire' },
      { en: 'Brass', fr: 'laiton' },
    ],
  },
];

const COLORS: Word[] = [
  { en: 'White', fr: 'Blanc' },
  { en: 'Black', fr: 'Noir' },
  { en: 'Navy', fr: 'Bleu marine' },
  { en: 'Grey', fr: 'Gris' },
  { en: 'Olive', fr: 'Olive' },
  { en: 'Sand', fr: 'Sable' },
  { en: 'Rust', fr: 'Rouille' },
  { en: 'Forest', fr: 'Vert forêt' },
  { en: 'Burgundy', fr: 'Bordeaux' },
  { en: 'Mustard', fr: 'Moutarde' },
  { en: 'Sky', fr: 'Bleu ciel' },
  { en: 'Charcoal', fr: 'Anthracite' },
];
const SIZES = ['xs', 's', 'm', 'l', 'xl'];
const SCALES: Word[] = [
  { en: 'Small', fr: 'Petit' },
  { en: 'Medium', fr: 'Moyen' },
  { en: 'Large', fr: 'Grand' },
  { en: 'Extra large', fr: 'Très grand' },
];

const FEATURES: Adj[] = [
  { en: 'finished by hand in a small workshop', m: 'fini à la main dans un petit atelier', f: 'finie à la main dans un petit atelier' },
  { en: 'built to last for years', m: 'conçu pour durer des années', f: 'conçue pour durer des années' },
  { en: 'made from responsibly sourced materials', m: 'fabriqué à partir de matériaux responsables', f: 'fabriquée à partir de matériaux responsables' },
  { en: 'designed with clean, simple lines', m: 'dessiné avec des lignes simples et épurées', f: 'dessinée avec des lignes simples et épurées' },
  { en: 'easy to care for', m: "facile d'entretien", f: "facile d'entretien" },
  { en: 'tested for everyday use', m: 'testé pour un usage quotidien', f: 'testée pour un usage quotidien' },
  { en: 'produced in limited batches', m: 'produit en petites séries', f: 'produite en petites séries' },
  { en: 'gentle on the planet', m: 'respectueux de la planète', f: 'respectueuse de la planète' },
  { en: 'with a subtle textured finish', m: 'doté d\'une finition légèrement texturée', f: 'dotée d\'une finition légèrement texturée' },
  { en: 'backed by a lifetime repair promise', m: 'garanti réparable à vie', f: 'garantie réparable à vie' },
];
const OCCASIONS: Word[] = [
  { en: 'weekend getaways', fr: 'les escapades du week-end' },
  { en: 'slow mornings at home', fr: 'les matins tranquilles à la maison' },
  { en: 'thoughtful gifts', fr: 'les cadeaux attentionnés' },
  { en: 'busy workdays', fr: 'les journées de travail chargées' },
  { en: 'long summer evenings', fr: "les longues soirées d'été" },
  { en: 'cold winter days', fr: "les froides journées d'hiver" },
  { en: 'city life', fr: 'la vie en ville' },
  { en: 'family dinners', fr: 'les dîners en famille' },
  { en: 'outdoor adventures', fr: 'les aventures en plein air' },
  { en: 'small apartments', fr: 'les petits appartements' },
];
const ORIGINS: Word[] = [
  { en: 'Portugal', fr: 'au Portugal' },
  { en: 'France', fr: 'en France' },
  { en: 'Japan', fr: 'au Japon' },
  { en: 'Italy', fr: 'en Italie' },
  { en: 'Scotland', fr: 'en Écosse' },
  { en: 'Denmark', fr: 'au Danemark' },
  { en: 'Mexico', fr: 'au Mexique' },
  { en: 'India', fr: 'en Inde' },
];

const MONOGRAM: CustomizationDef = {
  id: 'monogram',
  type: 'text',
  label: { en: 'Monogram', fr: 'Monogramme' },
  required: false,
  min_length: 1,
  max_length: 3,
  price_modifier: 500,
};
const GIFT_WRAP: CustomizationDef = {
  id: 'gift_wrap',
  type: 'single_select',
  label: { en: 'Gift wrap', fr: 'Emballage cadeau' },
  required: false,
  options: [
    { id: 'none', label: { en: 'No gift wrap', fr: 'Sans emballage' } },
    { id: 'paper', label: { en: 'Paper wrap', fr: 'Papier cadeau' }, price_modifier: 200 },
  ],
};

// ---------------------------------------------------------------------------------------------
// Products

const slug = (s: string) =>
  s
    .toLowerCase()
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** Product number i (0-based) of the catalog: depends only on (seed, shopId, i). */
export function generateProduct(i: number, shopId = 'shop_bench', seed = 1): StoredProduct {
  const r = rngFor(seed, i);
  const cat = CATEGORIES[i % CATEGORIES.length];
  const adj = pick(r, ADJECTIVES);
  const mat = pick(r, cat.materials);
  const noun = pick(r, cat.nouns);
  const f1 = int(r, 0, FEATURES.length - 1);
  const feature = FEATURES[f1];
  const feature2 = FEATURES[(f1 + int(r, 1, FEATURES.length - 1)) % FEATURES.length];
  const occasion = pick(r, OCCASIONS);
  const origin = pick(r, ORIGINS);

  const titleEn = `${adj.en} ${mat.en} ${noun.en}`;
  const frNoun = noun.fr.charAt(0).toUpperCase() + noun.fr.slice(1);
  const titleFr = `${frNoun} en ${mat.fr.toLowerCase()} ${adj[noun.g]}`;
  const g = noun.g;
  const e = g === 'f' ? 'e' : '';
  const descEn =
    `A ${adj.en.toLowerCase()} ${noun.en.toLowerCase()} in ${mat.en.toLowerCase()}, ${feature.en}. ` +
    `Made in ${origin.en}, ${feature2.en} and perfect for ${occasion.en}.`;
  const descFr =
    `${g === 'f' ? 'Une' : 'Un'} ${noun.fr} en ${mat.fr.toLowerCase()} ${adj[g]}, ${feature[g]}. ` +
    `Fabriqué${e} ${origin.fr}, ${feature2[g]} et idéal${e} pour ${occasion.fr}.`;

  const num = String(i + 1);
  const id = `${shopId}_p${num}`;
  const handle = `${slug(titleEn)}-${num}`;

  // 2-4 variants: sizes for apparel (optionally x 2 colours), otherwise colours or scales.
  const count = int(r, 2, 4);
  const base = Math.round((500 + r() * r() * 25000) / 100) * 100 - (r() < 0.5 ? 1 : 0);
  const onSale = r() < 0.15;
  const options: NonNullable<StoredProduct['options']> = [];
  let combos: Record<string, string>[];
  const colorValues = (n: number) => {
    const start = int(r, 0, COLORS.length - 1);
    return Array.from({ length: n }, (_, k) => COLORS[(start + k) % COLORS.length]).map((c) => ({
      id: slug(c.en),
      label: { en: c.en, fr: c.fr },
    }));
  };
  const colorOption = (n: number) => ({ name: 'color', label: { en: 'Color', fr: 'Couleur' }, values: colorValues(n) });
  if (cat.sized) {
    const twoD = count === 4 && r() < 0.5;
    const nSizes = twoD ? 2 : count;
    const start = int(r, 0, SIZES.length - nSizes);
    const sizes = SIZES.slice(start, start + nSizes);
    options.push({
      name: 'size',
      label: { en: 'Size', fr: 'Taille' },
      values: sizes.map((s) => ({ id: s, label: s.toUpperCase() })),
    });
    if (twoD) options.push(colorOption(2));
  } else if (r() < 0.6) {
    options.push(colorOption(count));
  } else {
    options.push({
      name: 'size',
      label: { en: 'Size', fr: 'Taille' },
      values: SCALES.slice(0, count).map((s) => ({ id: slug(s.en), label: { en: s.en, fr: s.fr } })),
    });
  }
  combos = [{}];
  for (const o of options) combos = combos.flatMap((c) => o.values.map((v) => ({ ...c, [o.name]: v.id })));

  const custom = r();
  const customizations = custom < 0.04 ? [MONOGRAM] : custom < 0.08 ? [GIFT_WRAP] : undefined;
  const variants: StoredVariant[] = combos.map((combo, k) => {
    const step = options[0].name === 'size' && !cat.sized ? k * Math.round(base * 0.25) : 0;
    const price = base + step;
    const v: StoredVariant = {
      id: `${id}_v${k + 1}`,
      sku: `${shopId.toUpperCase()}-${num}-${k + 1}`,
      options: combo,
      price,
    };
    if (onSale) v.list_price = Math.round(price * 1.25);
    const stock = r();
    if (stock < 0.05) {
      v.inventory = 0;
      v.status = 'out_of_stock';
    } else if (stock < 0.07) {
      v.inventory = 0;
      v.status = 'backorder';
    } else if (stock < 0.12) {
      // untracked inventory
    } else {
      v.inventory = int(r, 1, 500);
    }
    if (customizations) v.customizations = customizations;
    return v;
  });

  const product: StoredProduct = {
    id,
    handle,
    title: { en: titleEn, fr: titleFr },
    description: { en: descEn, fr: descFr },
    categories: [cat.id],
    tags: [slug(mat.en), slug(noun.en), slug(adj.en)],
    media: [{ type: 'image', url: '/media/placeholder.svg', alt_text: { en: titleEn, fr: titleFr } }],
    options,
    variants,
  };
  if (r() < 0.7) product.rating = { value: Math.round((3 + r() * 2) * 10) / 10, scale_max: 5, count: int(r, 1, 2000) };
  return product;
}

function shopOf(opts: GenerateOptions): CatalogFile['shop'] {
  const shopId = opts.shopId ?? 'shop_bench';
  return {
    id: shopId,
    domain: opts.domain ?? 'bench.localhost',
    name: opts.name ?? `Benchmark Store (${shopId})`,
    protocol_enabled: true,
    settings: ShopSettings.parse({
      default_language: 'en',
      languages: ['en', 'fr'],
      currency: 'USD',
      rates: { EUR: 0.92, GBP: 0.79, JPY: 151.5, CAD: 1.37 },
      tax: { default_bps: 0, by_country: { FR: 2000, GB: 2000, DE: 1900 }, by_region: { 'US-CA': 725 } },
      mcp_enabled: true,
    }),
  };
}

const DISCOUNTS: StoredDiscount[] = [
  { code: 'BENCH10', kind: 'percentage', value: 1000, title: { en: '10% off', fr: '10 % de remise' } },
  { code: 'BENCH5', kind: 'fixed_amount', value: 500, min_subtotal: 2000, title: { en: '$5 off', fr: '5 $ de remise' } },
];

/** Products 0..n-1, lazily. */
export function* generateProducts(opts: GenerateOptions): Generator<StoredProduct> {
  const shopId = opts.shopId ?? 'shop_bench';
  for (let i = 0; i < opts.products; i++) yield generateProduct(i, shopId, opts.seed ?? 1);
}

/** The whole catalog in memory (for benchmarks and tests). Not validated: see `CatalogFile.parse`. */
export function generateCatalog(opts: GenerateOptions): CatalogFile {
  return { shop: shopOf(opts), products: [...generateProducts(opts)], discounts: DISCOUNTS };
}

/**
 * Streams the catalog as JSON to a file descriptor (one product per line), buffering writes.
 * Returns the number of bytes written.
 */
export function writeCatalog(fd: number, opts: GenerateOptions & { validate?: boolean }): number {
  const validate = opts.validate ?? true;
  const shop = shopOf(opts);
  if (validate) CatalogFile.parse({ shop, products: [], discounts: DISCOUNTS });
  let bytes = 0;
  let buf: string[] = [];
  let bufLen = 0;
  const flush = () => {
    if (!bufLen) return;
    bytes += writeSync(fd, buf.join(''));
    buf = [];
    bufLen = 0;
  };
  const write = (s: string) => {
    buf.push(s);
    bufLen += s.length;
    if (bufLen > 1 << 20) flush();
  };
  write(`{"shop":${JSON.stringify(shop)},\n"discounts":${JSON.stringify(DISCOUNTS)},\n"products":[\n`);
  let first = true;
  for (const p of generateProducts(opts)) {
    if (validate) StoredProduct.parse(p);
    write(first ? JSON.stringify(p) : `,\n${JSON.stringify(p)}`);
    first = false;
  }
  write('\n]}\n');
  flush();
  return bytes;
}

// ---------------------------------------------------------------------------------------------
// CLI

function parseArgs(argv: string[]): GenerateOptions & { out?: string; validate: boolean } {
  const opts: GenerateOptions & { out?: string; validate: boolean } = { products: 1000, validate: true };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    switch (a) {
      case '--products':
      case '-n':
        opts.products = Number(val());
        if (!Number.isInteger(opts.products) || opts.products < 0) throw new Error('--products must be a non-negative integer');
        break;
      case '--shop-id':
        opts.shopId = val();
        break;
      case '--domain':
        opts.domain = val();
        break;
      case '--name':
        opts.name = val();
        break;
      case '--seed':
        opts.seed = Number(val());
        break;
      case '--out':
      case '-o':
        opts.out = val();
        break;
      case '--no-validate':
        opts.validate = false;
        break;
      case '--help':
      case '-h':
        console.log(
          'usage: tsx server/seed/generate.ts [--products N] [--shop-id ID] [--domain HOST] [--name NAME] [--seed N] [--out FILE] [--no-validate]',
        );
        process.exit(0);
      default:
        throw new Error(`unknown argument ${a}`);
    }
  }
  return opts;
}

function main(): void {
  const opts = parseArgs(process.argv.slice(2));
  const started = performance.now();
  const fd = opts.out ? openSync(opts.out, 'w') : 1;
  try {
    const bytes = writeCatalog(fd, opts);
    const secs = ((performance.now() - started) / 1000).toFixed(1);
    if (opts.out) {
      console.error(`wrote ${opts.products} products (${(bytes / 1e6).toFixed(1)} MB) to ${opts.out} in ${secs}s`);
    }
  } finally {
    if (opts.out) closeSync(fd);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    main();
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  }
}
