// Links to stored things that a request's content may carry (`<scheme>://<id>`): one feature keeps the things and
// says who may use them, another takes the links in its requests. Core holds the contract between the two, so that
// neither imports the other (features never do).

import { slot, type Slot } from '../slot.js';

/** Who is asking: the calling key and its account. */
export interface LinkOwner {
  readonly keyId: string;
  readonly account: string | null;
}

/** A linked thing the owner may use, and the channel whose upstream holds it (a request using it runs there). */
export interface LinkedItem {
  readonly id: string;
  readonly channel: string;
}

export interface ContentLinks {
  /** The links' scheme, without `://`. */
  readonly scheme: string;
  /**
   * Each of `ids` as `owner` may use it, in order. Throws the GatewayError the caller sees for the first it may not
   * use: one that does not exist and one of another key's are answered alike.
   */
  resolve(ids: readonly string[], owner: LinkOwner, signal?: AbortSignal): Promise<readonly LinkedItem[]>;
}

/** Where the feature that keeps linked things puts its ContentLinks (`services.findFeature(CONTENT_LINKS)`). */
export const CONTENT_LINKS: Slot<ContentLinks> = slot('content links');
