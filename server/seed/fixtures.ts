/**
 * The demo shop's scenario fixtures in a few words, for the start banner and the MCP server's
 * `instructions` on development servers (docs/sandbox.md has the full list). They name the demo
 * data's own codes and variant ids: test/sandbox-fixtures.test.ts holds each claim to the running
 * demo shop, so a change to server/seed/data/demo.json that breaks one fails there.
 */
export const DEMO_SHOP_ID = 'shop_demo';

export const DEMO_FIXTURES =
  'Discount codes: WELCOME10 (10% off), SAVE5 ($5 off), BIGSPENDER ($20 off from a $150 subtotal), SUMMER2024 (expired). ' +
  'Variants: var_tee_m_navy (plenty in stock), var_journal_black (2 on hand: more is capped with a warning), ' +
  'var_merino_s_navy (out of stock), var_lantern (pre-order), var_lamp (backorder), ' +
  'var_flask_steel (requires customizations engraving and gift_box).';
