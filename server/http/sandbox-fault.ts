/**
 * Deterministic faults for testing agents (docs/access.md "Sandbox faults"): in development, a REST
 * or MCP request carrying `UCP-Sandbox-Fault: 429 | 503 | timeout` is answered as the server would
 * answer under that fault, before anything runs (so nothing is written and a retry with the same
 * Idempotency-Key is safe):
 *
 * - `429` → REST 429 `{code: "rate_limited", content}` + `Retry-After: 1`; MCP -32000 with
 *   `data.retry_after: 1`, HTTP 429 + `Retry-After`.
 * - `503` → the same as 503 `service_unavailable`.
 * - `timeout` → the response is held for TIMEOUT_HOLD_MS (past any sensible client timeout), then
 *   answered as 503; a client that gives up first simply never sees it.
 *
 * In production the header is ignored and the response says so in `UCP-Sandbox-Fault-Ignored`.
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from './env.ts';
import { protocolError } from './errors.ts';

export const SANDBOX_FAULT_HEADER = 'UCP-Sandbox-Fault';
export const SANDBOX_FAULT_IGNORED_HEADER = 'UCP-Sandbox-Fault-Ignored';
export const SANDBOX_FAULTS = ['429', '503', 'timeout'] as const;
/** How long `timeout` holds a response. */
export const TIMEOUT_HOLD_MS = 30_000;
const RETRY_AFTER_SECONDS = 1;

type Fault = (typeof SANDBOX_FAULTS)[number];

const FAULTS: Record<Fault, { status: 429 | 503; code: string; content: string }> = {
  '429': { status: 429, code: 'rate_limited', content: `Sandbox fault (UCP-Sandbox-Fault: 429): too many requests; retry after ${RETRY_AFTER_SECONDS} s.` },
  '503': { status: 503, code: 'service_unavailable', content: `Sandbox fault (UCP-Sandbox-Fault: 503): temporarily unavailable; retry after ${RETRY_AFTER_SECONDS} s.` },
  timeout: { status: 503, code: 'service_unavailable', content: `Sandbox fault (UCP-Sandbox-Fault: timeout): held ${TIMEOUT_HOLD_MS / 1000} s, then unavailable; retry after ${RETRY_AFTER_SECONDS} s.` },
};

/** Waits `ms`, or less when the client hangs up. */
function hold(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}

async function rpcId(c: Context): Promise<string | number | null> {
  try {
    const m = JSON.parse(await c.req.text()) as { id?: unknown };
    return typeof m?.id === 'string' || (typeof m?.id === 'number' && Number.isFinite(m.id)) ? m.id : null;
  } catch {
    return null;
  }
}

export function sandboxFault(transport: 'rest' | 'mcp'): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const asked = c.req.header(SANDBOX_FAULT_HEADER);
    if (asked === undefined) return next();
    if (c.get('config').mode === 'production') {
      c.header(SANDBOX_FAULT_IGNORED_HEADER, 'production: sandbox faults apply on development servers only');
      return next();
    }
    const value = asked.trim().toLowerCase() as Fault;
    if (!SANDBOX_FAULTS.includes(value)) {
      const content = `UCP-Sandbox-Fault must be one of ${SANDBOX_FAULTS.join(', ')}; got '${asked.slice(0, 40)}'.`;
      if (transport === 'rest') return protocolError(c, 400, 'invalid_sandbox_fault', content);
      return c.json({ jsonrpc: '2.0', id: await rpcId(c), error: { code: -32600, message: content, data: { code: 'invalid_sandbox_fault', content } } }, 400);
    }
    if (value === 'timeout') await hold(TIMEOUT_HOLD_MS, c.req.raw.signal);
    const f = FAULTS[value];
    const headers = { 'Retry-After': String(RETRY_AFTER_SECONDS) };
    if (transport === 'rest') return protocolError(c, f.status, f.code, f.content, {}, headers);
    for (const [k, v] of Object.entries(headers)) c.header(k, v);
    return c.json({ jsonrpc: '2.0', id: await rpcId(c), error: { code: -32000, message: f.content, data: { code: f.code, content: f.content, retry_after: RETRY_AFTER_SECONDS } } }, f.status);
  };
}
