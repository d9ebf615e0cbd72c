/**
 * The credentials the UCP REST transport checks (server/http/authenticate.ts; docs/access.md), as
 * OpenAPI security schemes. A signature is two headers sent together, so an operation that takes
 * one requires `signature` and `signatureInput` in the same requirement object.
 */
import { MAX_CLOCK_SKEW_SECONDS } from '../http/authenticate.ts';

export const UCP_SECURITY_SCHEMES = {
  channelKey: {
    type: 'http',
    scheme: 'bearer',
    description:
      '`Authorization: Bearer ucp_sk_…`: a channel API key the merchant issued for your platform profile (merchant API `POST /3.0/channel_keys`). ' +
      'It acts only for that profile, which `UCP-Agent` must name (else 403 `profile_not_trusted`); an unknown or revoked key is 401 `invalid_credentials`. ' +
      'The shop\'s own pages send a storefront token the same way.',
  },
  channelKeyHeader: {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description: 'The same channel API key in `X-API-Key` instead of `Authorization`.',
  },
  signature: {
    type: 'apiKey',
    in: 'header',
    name: 'Signature',
    description:
      'RFC 9421 HTTP message signature, `sig1=:<base64>:` (ES256 or ES384, raw r‖s, not DER), verified with the EC keys in the `signing_keys` of the profile `UCP-Agent` names. ' +
      'Sent with `Signature-Input`.',
  },
  signatureInput: {
    type: 'apiKey',
    in: 'header',
    name: 'Signature-Input',
    description:
      '`sig1=(<components>);created=<unix s>;keyid="<kid>"`. Covered: `@method @authority @path` always, `@query` with a query, `ucp-agent` and `idempotency-key` when sent, ' +
      `\`content-digest content-type\` with a body (send \`Content-Digest: sha-256=:<base64>:\`). \`created\` within ±${MAX_CLOCK_SKEW_SECONDS} s.`,
  },
} as const;
