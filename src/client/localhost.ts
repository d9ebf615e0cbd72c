/**
 * `*.localhost` from Node (issue 30, point 2). RFC 6761 §6.3 lets a client treat every name under
 * `localhost.` as loopback itself, and browsers do; Node's resolver (getaddrinfo without
 * systemd-resolved) does not, so `fetch('http://demo.localhost:8080')` fails in a plain Node
 * process. The agent client sends such URLs through an undici `Agent` whose `connect.lookup` answers
 * 127.0.0.1: the URL, and so the Host header the server routes shops by, stay as given.
 *
 * Node only: the undici import is dynamic and made only for a `*.localhost` URL in a process with
 * `process.versions.node`; in a browser (which resolves these names itself) nothing changes. This
 * module is not part of host.js (only `./ucp-client.ts` imports it).
 */

/** `localhost`, `demo.localhost`, `a.b.localhost.` (RFC 6761 §6.3). */
const LOCALHOST = /(^|\.)localhost\.?$/i;

export const isLocalhostName = (hostname: string): boolean => LOCALHOST.test(hostname);

const inNode = (): boolean => typeof (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node === 'string';

type Lookup = (hostname: string, options: { family?: number; all?: boolean }, cb: (...args: unknown[]) => void) => void;

/** A dns.lookup for net.connect: every `*.localhost` name is 127.0.0.1 (both call shapes Node uses). */
const loopbackLookup: Lookup = (hostname, options, cb) => {
  if (!isLocalhostName(hostname)) return cb(Object.assign(new Error(`not a *.localhost name: ${hostname}`), { code: 'ENOTFOUND' }));
  if (options?.all) cb(null, [{ address: '127.0.0.1', family: 4 }]);
  else cb(null, '127.0.0.1', 4);
};

let loopback: Promise<typeof fetch> | undefined;

/** undici's fetch over an Agent that connects `*.localhost` to loopback; loaded on first use. */
function loopbackFetch(): Promise<typeof fetch> {
  return (loopback ??= import('undici').then(({ Agent, fetch: undiciFetch }) => {
    const dispatcher = new Agent({ connect: { lookup: loopbackLookup as never } });
    return ((input: RequestInfo | URL, init?: RequestInit) => undiciFetch(input as never, { ...(init as object), dispatcher } as never)) as unknown as typeof fetch;
  }));
}

const urlOf = (input: RequestInfo | URL): URL | undefined => {
  try {
    return new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
  } catch {
    return undefined;
  }
};

/**
 * `base` for every URL, except `*.localhost` ones in Node, which go through the loopback agent.
 * Plain `localhost` is left to the system resolver (it knows that name, and may answer ::1).
 */
export function localhostAwareFetch(base: typeof fetch): typeof fetch {
  if (!inNode()) return base;
  return async (input, init) => {
    const host = urlOf(input)?.hostname ?? '';
    if (host.toLowerCase() === 'localhost' || !isLocalhostName(host)) return base(input, init);
    return (await loopbackFetch())(input, init);
  };
}

/**
 * The global fetch, reaching `*.localhost` from Node: for a `fetch` of your own given to
 * `createUcpClient` (logging, fault headers) that should still reach sandbox shops.
 */
export const localhostFetch: typeof fetch = localhostAwareFetch((input, init) => fetch(input, init));
