// Where signing in leads: back to the page the session ended on (carried in the sign-in route as ?next=/usage, so a
// reload of the sign-in page keeps it), else the dashboard.

const HOME = '/dashboard';

/** The sign-in route that leads back to `from` (a signed-in page's path) once signed in; plain for the home page. */
export function signInPath(from: string): string {
  return from === HOME || from === '/' ? '/sign-in' : `/sign-in?${new URLSearchParams({ next: from }).toString()}`;
}

/**
 * The page to open after signing in: `next` when it is a path, and not a signed-out page (back to the sign-in form,
 * or to a spent password link), else the dashboard. A path no page has just shows "not found": it is only a hash.
 */
export function returnPath(next: string | null): string {
  if (next === null || !next.startsWith('/') || next.startsWith('/sign-in') || next.startsWith('/password/')) return HOME;
  return next;
}
