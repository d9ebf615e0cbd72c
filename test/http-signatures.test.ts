import { describe, expect, it } from 'vitest';
import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import * as jose from 'jose';
import { checkContentDigest, contentDigest, errorStatus, jwksResolver, sign, signatureBase, verify, type HttpMessage } from '../server/core/access/http-signatures.ts';

// RFC 9421 Appendix B.1.3 test-key-ecc-p256.
const RFC_P256 = `-----BEGIN EC PRIVATE KEY-----
MHcCAQEEIFKbhfNZfpDsW43+0+JjUr9K+bTeuxopu653+hBaXGA7oAoGCCqGSM49
AwEHoUQDQgAEqIVYZVLCrPZHGHjP17CTW0/+D9Lfw0EkjqF7xB4FivAxzic30tMM
4GF+hR6Dxh71Z50VGGdldkkDXZCnTNnoXQ==
-----END EC PRIVATE KEY-----`;
const rfcPriv = createPrivateKey(RFC_P256);
const rfcPub = createPublicKey(rfcPriv);

// RFC 9421 Appendix B.2.4: a response signed with ecdsa-p256-sha256.
const b24: HttpMessage = {
  status: 200,
  headers: {
    Date: 'Tue, 20 Apr 2021 02:07:56 GMT',
    'Content-Type': 'application/json',
    'Content-Digest': 'sha-512=:mEWXIS7MaLRuGgxOBdODa3xqM1XdEvxoYhvlCFJ41QJgJc4GTsPp29l5oGX69wWdXymyU0rjJuahq4l5aGgfLQ==:',
    'Content-Length': '23',
    'Signature-Input': 'sig-b24=("@status" "content-type" "content-digest" "content-length");created=1618884473;keyid="test-key-ecc-p256"',
    Signature: 'sig-b24=:wNmSUAhwb5LxtOtOpNa6W5xj067m5hFrj0XQ4fvpaCLx0NKocgPquLgyahnzDnDAUy5eCdlYUEkLIj+32oiasw==:',
  },
};
const B24_BODY = '{"message": "good dog"}';

describe('Content-Digest (RFC 9530)', () => {
  it('matches the RFC 9530 examples', () => {
    // RFC 9530 §2 / B.1: {"hello": "world"}
    expect(contentDigest('{"hello": "world"}')).toBe('sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:');
    expect(contentDigest(B24_BODY, 'sha-512')).toBe(b24.headers['Content-Digest' as never]);
    expect(contentDigest(new Uint8Array(Buffer.from('{"hello": "world"}')))).toBe(contentDigest('{"hello": "world"}'));
  });

  it('checks every supported algorithm, ignores unknown ones, rejects missing/mismatched', () => {
    const body = '{"a":1}';
    expect(checkContentDigest(body, contentDigest(body)).ok).toBe(true);
    expect(checkContentDigest(body, `md5=:AAAA:, ${contentDigest(body)}`).ok).toBe(true);
    expect(checkContentDigest(body, `${contentDigest(body)}, ${contentDigest('x', 'sha-512')}`).ok).toBe(false);
    expect(checkContentDigest('{"a":2}', contentDigest(body))).toMatchObject({ ok: false, code: 'digest_mismatch' });
    expect(checkContentDigest(body, undefined)).toMatchObject({ ok: false, code: 'digest_mismatch' });
    expect(checkContentDigest(body, 'md5=:AAAA:')).toMatchObject({ ok: false, code: 'digest_mismatch' });
    expect(checkContentDigest(body, 'not a dictionary ((')).toMatchObject({ ok: false, code: 'digest_mismatch' });
  });
});

describe('RFC 9421 B.2.4 (ecdsa-p256-sha256 response)', () => {
  it('rebuilds the published signature base', () => {
    expect(signatureBase(['@status', 'content-type', 'content-digest', 'content-length'], { created: 1618884473, keyid: 'test-key-ecc-p256' }, b24)).toBe(
      [
        '"@status": 200',
        '"content-type": application/json',
        '"content-digest": sha-512=:mEWXIS7MaLRuGgxOBdODa3xqM1XdEvxoYhvlCFJ41QJgJc4GTsPp29l5oGX69wWdXymyU0rjJuahq4l5aGgfLQ==:',
        '"content-length": 23',
        '"@signature-params": ("@status" "content-type" "content-digest" "content-length");created=1618884473;keyid="test-key-ecc-p256"',
      ].join('\n'),
    );
  });

  it('verifies the published signature with the published key (KeyObject and JWK)', async () => {
    const now = 1618884473;
    const r = await verify({ message: b24, resolveKey: () => rfcPub, body: B24_BODY, now });
    expect(r).toMatchObject({ ok: true, label: 'sig-b24', keyid: 'test-key-ecc-p256', alg: 'ES256' });
    const jwk = { ...rfcPub.export({ format: 'jwk' }), kid: 'test-key-ecc-p256' };
    expect((await verify({ message: b24, resolveKey: jwksResolver([jwk]), now })).ok).toBe(true);
  });

  it('fails once the message is altered', async () => {
    const now = 1618884473;
    const altered = { ...b24, status: 201 };
    expect(await verify({ message: altered, resolveKey: () => rfcPub, now })).toMatchObject({ ok: false, code: 'signature_invalid' });
    expect(await verify({ message: b24, resolveKey: () => rfcPub, body: '{"message": "bad dog"}', now })).toMatchObject({ ok: false, code: 'digest_mismatch' });
    expect(await verify({ message: b24, resolveKey: () => rfcPub })).toMatchObject({ ok: false, code: 'signature_invalid' }); // created is years old
  });
});

describe('sign / verify round trip', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const body = JSON.stringify({ type: 'order.created', data: { id: 'ord_1' } });
  const request = (): HttpMessage => ({
    method: 'POST',
    url: 'https://platform.example:8443/hooks/orders?x=1',
    headers: {
      'Content-Type': 'application/json',
      'Content-Digest': contentDigest(body),
      'UCP-Agent': 'profile="https://shop.example/.well-known/ucp"',
      'Webhook-Id': '0b9bb9a4-6a8e-4c77-9a5a-0f1f5d9a4f0e',
      'Webhook-Timestamp': '1700000000',
    },
  });
  const components = ['@method', '@authority', '@path', '@query', 'content-digest', 'content-type', 'webhook-id', 'webhook-timestamp', 'ucp-agent'];
  const signed = () => {
    const m = request();
    Object.assign(m.headers, sign({ keyid: 'k1', privateKey, components, created: 1700000000, message: m }));
    return m;
  };
  const opts = { resolveKey: jwksResolver([{ ...publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'ES256', use: 'sig' }]), body, now: 1700000100 };

  it('emits the UCP header shapes: sig1, created, keyid, 64-byte raw r||s', () => {
    const m = signed();
    const h = m.headers as Record<string, string>;
    expect(h['Signature-Input']).toBe(`sig1=(${components.map((c) => `"${c}"`).join(' ')});created=1700000000;keyid="k1"`);
    const sig = /^sig1=:([A-Za-z0-9+/=]+):$/.exec(h.Signature)![1];
    expect(Buffer.from(sig, 'base64')).toHaveLength(64);
  });

  it('verifies, and the base covers the derived components as RFC 9421 defines them', async () => {
    const m = signed();
    expect(await verify({ ...opts, message: m, requiredComponents: ['@method', '@authority', '@path'] })).toMatchObject({ ok: true, keyid: 'k1', components });
    const base = signatureBase(components, { created: 1700000000, keyid: 'k1' }, m);
    expect(base).toContain('"@method": POST\n"@authority": platform.example:8443\n"@path": /hooks/orders\n"@query": ?x=1\n');
    // Header lookup is case-insensitive; a Headers object works the same as a record.
    expect((await verify({ ...opts, message: { ...m, headers: new Headers(m.headers as Record<string, string>) } })).ok).toBe(true);
  });

  it('is independently verifiable with WebCrypto via jose (known-answer for our base + encoding)', async () => {
    const m = signed();
    const h = m.headers as Record<string, string>;
    const base = signatureBase(components, { created: 1700000000, keyid: 'k1' }, m);
    const sig = Buffer.from(/^sig1=:(.+):$/.exec(h.Signature)![1], 'base64');
    const key = await jose.importJWK({ ...publicKey.export({ format: 'jwk' }), alg: 'ES256' }, 'ES256');
    const ok = await crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, key as CryptoKey, sig, new TextEncoder().encode(base));
    expect(ok).toBe(true);
    // And a signature made by WebCrypto over our base verifies with our verify().
    const { privateKey: wcPriv, publicKey: wcPub } = await jose.generateKeyPair('ES256', { extractable: true });
    const m2 = request();
    const params = '("@method" "@authority" "@path" "content-digest");created=1700000000;keyid="wc"';
    const base2 = signatureBase(['@method', '@authority', '@path', 'content-digest'], { created: 1700000000, keyid: 'wc' }, m2);
    expect(base2.endsWith(`"@signature-params": ${params}`)).toBe(true);
    const raw = Buffer.from(await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, wcPriv as CryptoKey, new TextEncoder().encode(base2)));
    Object.assign(m2.headers, { 'Signature-Input': `sig1=${params}`, Signature: `sig1=:${raw.toString('base64')}:` });
    const jwk = { ...(await jose.exportJWK(wcPub)), kid: 'wc' };
    expect(await verify({ ...opts, message: m2, resolveKey: jwksResolver([jwk]) })).toMatchObject({ ok: true, keyid: 'wc' });
  });

  it('tampering with the body, a covered header, the path or the signature fails', async () => {
    const cases: Array<[string, (m: HttpMessage) => void, string, string?]> = [
      ['body', () => {}, 'digest_mismatch', '{"type":"order.created","data":{"id":"ord_2"}}'],
      ['digest header + body', (m) => ((m.headers as Record<string, string>)['Content-Digest'] = contentDigest('{}')), 'signature_invalid', '{}'],
      ['webhook-id', (m) => ((m.headers as Record<string, string>)['Webhook-Id'] = 'other'), 'signature_invalid'],
      ['ucp-agent', (m) => ((m.headers as Record<string, string>)['UCP-Agent'] = 'profile="https://evil.example/.well-known/ucp"'), 'signature_invalid'],
      ['path', (m) => (m.url = 'https://platform.example:8443/hooks/other?x=1'), 'signature_invalid'],
      ['authority', (m) => (m.url = 'https://platform.example/hooks/orders?x=1'), 'signature_invalid'],
      ['covered header removed', (m) => delete (m.headers as Record<string, string>)['Webhook-Timestamp'], 'signature_invalid'],
      ['signature bytes', (m) => ((m.headers as Record<string, string>).Signature = `sig1=:${Buffer.alloc(64, 1).toString('base64')}:`), 'signature_invalid'],
      ['DER signature', (m) => ((m.headers as Record<string, string>).Signature = `sig1=:${Buffer.alloc(71, 1).toString('base64')}:`), 'signature_invalid'],
      ['unknown key', (m) => ((m.headers as Record<string, string>)['Signature-Input'] = (m.headers as Record<string, string>)['Signature-Input'].replace('k1', 'k2')), 'key_not_found'],
      ['alg mismatch', (m) => ((m.headers as Record<string, string>)['Signature-Input'] += ';alg="rsa-pss-sha512"'), 'algorithm_unsupported'],
      ['no signature', (m) => delete (m.headers as Record<string, string>).Signature, 'signature_missing'],
      ['wrong label', (m) => ((m.headers as Record<string, string>).Signature = (m.headers as Record<string, string>).Signature.replace('sig1', 'sig2')), 'signature_missing'],
      ['garbage input', (m) => ((m.headers as Record<string, string>)['Signature-Input'] = 'sig1=((('), 'signature_invalid'],
    ];
    for (const [name, mutate, code, otherBody] of cases) {
      const m = signed();
      mutate(m);
      const r = await verify({ ...opts, message: m, body: otherBody ?? body });
      expect(r, name).toMatchObject({ ok: false, code });
    }
    expect(await verify({ ...opts, message: signed(), now: 1700000000 + 301 })).toMatchObject({ ok: false, code: 'signature_invalid' });
    expect(await verify({ ...opts, message: signed(), requiredComponents: ['idempotency-key'] })).toMatchObject({ ok: false, code: 'signature_invalid' });
  });

  it('rejects keys it does not support and maps codes to HTTP/JSON-RPC', async () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'jwk' });
    expect(await verify({ ...opts, message: signed(), resolveKey: () => ({ ...rsa, kid: 'k1' }) })).toMatchObject({ ok: false, code: 'algorithm_unsupported' });
    expect(errorStatus('digest_mismatch')).toEqual({ http: 400, jsonrpc: -32600 });
    expect(errorStatus('key_not_found')).toEqual({ http: 401, jsonrpc: -32000 });
  });
});
