/** The protocol version host.js speaks (src/wire/version.ts: zod-free, so the bundle does not pull zod). */
export { UCP_VERSION } from '../wire/version.ts';
