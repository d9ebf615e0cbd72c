/** The request inspector's exchange as the routes and the CLI show it (store.ts records and shows it). */

/** Who sent it: an agent over REST or MCP, host.js on the shop's page (`webmcp` when it says so), the embedded cart. */
export type InspectorTransport = 'rest' | 'mcp' | 'webmcp' | 'page' | 'embedded';

export type NoteCode = 'idempotency_key_missing' | 'retry_too_soon' | 'idempotency_key_reused' | 'ucp_agent_missing' | 'ucp_agent_unsupported' | 'product_id_for_variant';

export interface Note {
  code: NoteCode;
  message: string;
}

export interface Exchange {
  /** Increasing across the process: `?since=<id>` follows from the last one seen. */
  id: number;
  at: string;
  transport: InspectorTransport;
  method: string;
  path: string;
  /** UCP operation(s): `search_catalog`, `create_cart`, …; MCP batches list each call. */
  operation: string;
  status: number;
  duration_ms: number;
  /** The platform profile the agent named (UCP-Agent or MCP meta), else null. */
  agent: string | null;
  /**
   * The UCP version the exchange was answered in (the `ucp.version` of the answer: negotiated from the
   * agent's profile, 2026-04-08 when it named none); null when nothing was answered in one (a refusal
   * before negotiation, `version_unsupported`). An MCP batch answered in several lists them, comma-separated.
   */
  version: string | null;
  idempotency_key: string | null;
  request: { headers: Record<string, string>; body: string | null; truncated: boolean };
  response: { headers: Record<string, string>; body: string | null; truncated: boolean };
  notes: Note[];
}
