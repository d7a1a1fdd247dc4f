// An upstream that answers 3xx is not followed: a redirect may lead anywhere (another host, an internal address, a
// plain-http origin), and following it would send the channel's key along or let the upstream pick whom the gateway
// calls. Every HTTP client of the gateway's (the relay's calls, and the features' own upstream calls,
// model discovery) refuses one here, as a failure of that upstream. The Location is never repeated: its query may
// carry a signature or a token.

/**
 * A redirect: 3xx but 304 Not Modified, which answers a conditional GET the client itself sent (its If-None-Match is
 * forwarded) and carries no Location.
 */
export function isRedirect(status: number): boolean {
  return status >= 300 && status < 400 && status !== 304;
}

/** Why the answer was refused, naming `who` answered (the upstream, a feature's named upstream). */
export function redirectRefused(who: string, status: number): string {
  return `${who} answered HTTP ${status}, a redirect, which the gateway does not follow (check the channel's URL)`;
}
