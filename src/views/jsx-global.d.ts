/**
 * The lazily loaded view chunks (customize.tsx, cart-body.tsx) take Preact's `h` as an argument
 * (chunks never import the entry, src/views/lazy.ts), so TypeScript cannot find the JSX types
 * through the factory's name there and falls back to the global `JSX` namespace: this makes that
 * namespace Preact's.
 */
import type { JSX as P } from 'preact';

declare global {
  namespace JSX {
    type Element = P.Element;
    type ElementType = P.ElementType;
    interface ElementClass extends P.ElementClass {}
    interface ElementAttributesProperty extends P.ElementAttributesProperty {}
    interface ElementChildrenAttribute extends P.ElementChildrenAttribute {}
    interface IntrinsicAttributes extends P.IntrinsicAttributes {}
    interface IntrinsicElements extends P.IntrinsicElements {}
    type LibraryManagedAttributes<C, Props> = P.LibraryManagedAttributes<C, Props>;
  }
}
