/** The protocol version host.js speaks (= src/wire/common.ts UCP_VERSION, kept here so the bundle does not pull zod). */
export const UCP_VERSION = '2026-04-08';
