/**
 * fetch for development: names under `.localhost` resolve to the loopback address (RFC 6761 §6.3),
 * which Node's resolver (getaddrinfo without systemd-resolved) does not do by itself. Without this
 * the server could not fetch the demo agent's profile, `http://agent.localhost:PORT/.well-known/ucp`,
 * that the start banner tells agent builders to name. Every other name goes to the real resolver.
 * Never used in production, where profile fetches go through public-fetch.ts.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { Agent, fetch as undiciFetch } from 'undici';

const LOCALHOST_NAME = /(^|\.)localhost\.?$/i;

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

export function localhostLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  if (!LOCALHOST_NAME.test(hostname)) {
    dnsLookup(hostname, options, callback as never);
    return;
  }
  const family = options.family === 6 ? 6 : 4;
  const address = family === 6 ? '::1' : '127.0.0.1';
  process.nextTick(() => (options.all ? callback(null, [{ address, family }]) : callback(null, address, family)));
}

const agent = new Agent({ connect: { lookup: localhostLookup as never } });

export const localFetch: typeof globalThis.fetch = async (input, init) =>
  (await undiciFetch(input instanceof Request ? input.url : String(input), { ...(init as object), dispatcher: agent } as never)) as unknown as Response;
