/**
 * What the entry hands a lazily loaded view chunk (src/views/lazy.ts): Preact's `h`/`Fragment`,
 * the money formatter and the widget's words. Chunks never import the entry (a page that loaded the
 * hashed twin would get a second Preact), so each chunk exports `make(kit)`.
 */
import { h, Fragment } from 'preact';
import { money } from '../state/store.ts';
import { messageText, own, retryable, t } from './i18n.ts';

export const kit = { h, Fragment, money, t, own, messageText, retryable };
export type Kit = typeof kit;
