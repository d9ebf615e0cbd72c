/**
 * The reference for catalog search at scale (issue 17.1): a bare node:http server over the same
 * in-memory index, built by the same code from the same database with the same tokenizer
 * (PostgreSQL's, asked once per distinct query), answering the same requests with the stored
 * product documents it holds in memory, stringified per response as a plain server would. No
 * framework, no shop lookup, no negotiation, no localized rendering: what the machine allows for this
 * index. `tsx bench/search-reference.ts DATA_DIR PORT SHOP_ID [prebuilt]`; `prebuilt` keeps each
 * document's JSON text instead (an upper bound: no per-request serialization at all).
 */
import { createServer } from 'node:http';
import { sql } from 'kysely';
import { openDatabase } from '../server/db/index.ts';
import { parseQuery, readyCatalogIndex } from '../server/core/search/catalog-index.ts';

const [dataDir, port, shopId, mode] = process.argv.slice(2);
const prebuilt = mode === 'prebuilt';
const db = await openDatabase({ dataDir });
const t0 = performance.now();
const index = (await readyCatalogIndex(db, shopId))!;
const docs = new Map<string, unknown>();
for (let after = -1; ; ) {
  const rows = (await sql<{ id: string; position: number; doc: string }>`select id, position, doc::text as doc from products where shop_id = ${shopId} and position > ${after} order by position limit 10000`.execute(db)).rows;
  for (const r of rows) docs.set(r.id, prebuilt ? r.doc : JSON.parse(r.doc));
  if (rows.length < 10000) break;
  after = Number(rows[rows.length - 1].position);
}

createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (d) => (body += d));
  req.on('end', async () => {
    const { query, limit } = JSON.parse(body) as { query: string; limit: number };
    const tree = await parseQuery(db, 'english', query);
    const ids = tree === 'positional' ? [] : index.page(tree, {}, 0, limit + 1);
    const page = ids.slice(0, limit).map((id) => docs.get(id));
    res.writeHead(200, { 'content-type': 'application/json' });
    const pagination = { has_next_page: ids.length > limit };
    res.end(prebuilt ? `{"products":[${page.join(',')}],"pagination":${JSON.stringify(pagination)}}` : JSON.stringify({ products: page, pagination }));
  });
}).listen(Number(port), '127.0.0.1', () => console.log(`ready: ${index.size} products in ${((performance.now() - t0) / 1000).toFixed(1)} s`));
