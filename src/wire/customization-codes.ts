/**
 * The stable codes of customization errors (docs/carts.md): the server raises them
 * (server/core/carts/customizations.ts) and the widget words them in the buyer's language
 * (src/views/customize.tsx, which names them as literals checked against this type, so the entry
 * pays no bytes for the table).
 */
export const CUSTOMIZATION_CODES = {
  notSupported: 'customization_not_supported',
  unknown: 'customization_unknown',
  required: 'customization_required',
  tooLong: 'customization_too_long',
  tooShort: 'customization_too_short',
  invalidOption: 'customization_invalid_option',
  duplicate: 'customization_duplicate',
  tooFew: 'customization_too_few_selections',
  tooMany: 'customization_too_many_selections',
} as const;

export type CustomizationCode = (typeof CUSTOMIZATION_CODES)[keyof typeof CUSTOMIZATION_CODES];
