/**
 * An https front for the test server, so clients that insist on https (the @shopify/ucp-cli only
 * allows plain http for the literal loopback names localhost/127.0.0.1/::1, never for
 * `demo.localhost`) can reach a storefront by its own name.
 *
 * - A throwaway self-signed certificate for `localhost` and the storefront names is made with the openssl
 *   CLI; clients trust it through NODE_EXTRA_CA_CERTS (child processes only).
 * - The front terminates TLS and forwards every request unchanged (same Host header) to the plain
 *   http test server with `X-Forwarded-Proto: https`; start that server with `trustProxy: true`
 *   so it builds https origins (discovery endpoints become `https://demo.localhost:<tls port>/…`).
 * - `*.localhost` resolution in the client comes from ./localhost-dns.mjs (`--import`).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';

export interface TlsFront {
  port: number;
  /** PEM file of the self-signed certificate (point NODE_EXTRA_CA_CERTS at it). */
  certFile: string;
  dir: string;
  close(): Promise<void>;
}

/** Node refuses `*.localhost` wildcards (too few labels), so each storefront name is listed. */
export function makeLocalhostCert(dir: string, hosts: string[]): { keyFile: string; certFile: string } {
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  const conf = join(dir, 'openssl.cnf');
  writeFileSync(
    conf,
    [
      '[req]', 'distinguished_name = dn', 'x509_extensions = v3', 'prompt = no',
      '[dn]', 'CN = localhost',
      '[v3]', 'basicConstraints = critical, CA:TRUE', 'keyUsage = critical, digitalSignature, keyCertSign',
      'extendedKeyUsage = serverAuth', `subjectAltName = ${['localhost', ...hosts].map((h) => `DNS:${h}`).join(', ')}, IP:127.0.0.1`,
    ].join('\n'),
  );
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-keyout', keyFile, '-out', certFile, '-config', conf], { stdio: 'pipe' });
  return { keyFile, certFile };
}

export async function startTlsFront(backendPort: number, hosts = ['demo.localhost', 'other.localhost']): Promise<TlsFront> {
  const dir = mkdtempSync(join(tmpdir(), 'tls-localhost-'));
  const { keyFile, certFile } = makeLocalhostCert(dir, hosts);
  const server: Server = createServer({ key: readFileSync(keyFile), cert: readFileSync(certFile) }, (req, res) => {
    const upstream = httpRequest(
      { host: '127.0.0.1', port: backendPort, method: req.method, path: req.url, headers: { ...req.headers, 'x-forwarded-proto': 'https' } },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    certFile,
    dir,
    async close() {
      server.closeAllConnections?.();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
