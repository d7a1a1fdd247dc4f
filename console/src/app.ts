// The app shell: reads the session once, routes the hash to a page of the registry (sending whoever is not signed
// in to the sign-in page, which leads back to where they were, and showing "not found" for what this person may not
// open), and owns the banners, with a Retry while the page's data failed to load. A skip link leads past the header
// to the page's heading.

import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { createApi, isSignedOut, sameUser } from './api.js';
import type { Session } from './api-types.js';
import { AppContext, type ConsoleApp, type LoadFailures, type Notify } from './app-context.js';
import { AppHeader } from './components/app-header.js';
import { Banners } from './components/banners.js';
import { html } from './components/html.js';
import type { PageDef } from './page-def.js';
import { PAGES } from './pages/index.js';
import { signInPath } from './return-path.js';
import { matchPath, navigate, useLocation, type HashRoute } from './router.js';

function findPage(path: string): { page: PageDef; params: Record<string, string> } | null {
  for (const page of PAGES) {
    const params = matchPath(page.path, path);
    if (params !== null) return { page, params };
  }
  return null;
}

/** The sign-in route from `path`: back there once signed in, when it is a page (not a mistyped hash). */
function signInFrom(path: string): string {
  return findPage(path) === null ? '/sign-in' : signInPath(path);
}

function messageOf(err: unknown): string {
  return err instanceof Error && err.message !== '' ? err.message : 'Something went wrong.';
}

export function App() {
  const where = useLocation();
  // undefined: not read yet; null: nobody signed in.
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [account, setAccount] = useState('');
  const [banners, setBanners] = useState<{ error: string | null; notice: string | null }>({ error: null, notice: null });
  // Read by the API client's callback, which outlives any one render.
  const current = useRef({ path: where.path, session });
  current.current = { path: where.path, session };
  const carriedNotice = useRef<string | null>(null);
  // The page's failed loads, each with what runs it again (use-load.ts reports them).
  const [failedLoads, setFailedLoads] = useState<ReadonlyMap<object, () => void>>(() => new Map());
  const loads = useMemo<Omit<LoadFailures, 'failed'>>(
    () => ({
      report: (from, retry) =>
        setFailedLoads((was) => {
          if (retry === null && !was.has(from)) return was;
          const next = new Map(was);
          if (retry === null) next.delete(from);
          else next.set(from, retry);
          return next;
        }),
    }),
    [],
  );
  const retryLoads = useCallback((): void => {
    setBanners({ error: null, notice: null });
    for (const retry of failedLoads.values()) retry();
  }, [failedLoads]);

  const notify = useMemo<Notify>(
    () => ({
      error: (err) => !isSignedOut(err) && setBanners({ error: messageOf(err), notice: null }),
      notice: (text) => setBanners({ error: null, notice: text }),
      clear: () => setBanners({ error: null, notice: null }),
    }),
    [],
  );

  const go = useCallback((path: string, notice?: string): void => {
    if (path === current.current.path) {
      if (notice !== undefined) setBanners({ error: null, notice });
      return;
    }
    carriedNotice.current = notice ?? null;
    navigate(path);
  }, []);

  const api = useMemo(
    () =>
      createApi({
        onSignedOut: () => {
          const was = current.current;
          setSession(null);
          if (findPage(was.path)?.page.who !== 'any') go(signInFrom(was.path), was.session ? 'Your session ended: sign in again.' : undefined);
        },
        onSession: (read) => {
          // Someone else signed in (in another tab): the operator's account choice was not theirs.
          if (!sameUser(current.current.session?.user ?? null, read.user)) setAccount('');
          setSession(read);
        },
      }),
    [],
  );

  const loadSession = useCallback(async (): Promise<Session | null> => {
    try {
      const read = await api.get<Session>('/session');
      api.setSession(read);
      setSession(read);
      return read;
    } catch (err) {
      notify.error(err);
      api.setSession(null);
      setSession(null);
      return null;
    }
  }, []);

  const signOut = useCallback(async (): Promise<void> => {
    try {
      await api.del('/session');
    } catch {
      // Signed out here either way: the server ends the session on its own in time.
    }
    api.setSession(null);
    setSession(null);
    setAccount('');
    go('/sign-in', 'Signed out.');
  }, []);

  useEffect(() => void loadSession(), []);

  // A new page starts with clean banners, or with the notice the navigation carried.
  useEffect(() => {
    setBanners({ error: null, notice: carriedNotice.current });
    carriedNotice.current = null;
  }, [where.path]);

  const found = findPage(where.path);
  useEffect(() => {
    document.title = found === null ? 'Gateway console' : `${found.page.title} · Gateway console`;
  }, [found?.page]);
  const needsSignIn = session === null && found?.page.who !== 'any';
  useEffect(() => {
    if (where.path === '/') navigate(session === null ? '/sign-in' : '/dashboard');
    else if (needsSignIn) navigate(signInFrom(where.path));
  }, [where.path, needsSignIn]);

  const app: ConsoleApp = { api, session: session ?? null, loadSession, signOut, account, setAccount, notify, go, loads: { failed: failedLoads.size > 0, report: loads.report } };
  return html`
    <${AppContext.Provider} value=${app}>
      <a class="skip-link" href="#" data-testid="skip-link" onClick=${skipToContent}>Skip to content</a>
      <${AppHeader} pages=${PAGES} user=${session?.user ?? null} currentPath=${where.path} onSignOut=${signOut} />
      <main class="main" id="main">
        <${Banners} error=${banners.error} notice=${banners.notice} onClose=${notify.clear} onRetry=${failedLoads.size > 0 ? retryLoads : undefined} />
        ${body(found, session, where)}
      </main>
      <footer class="footer muted">Times are UTC.</footer>
    <//>
  `;
}

/** The skip link's target is the page's heading (the href would be a hash route: this page keeps its own). */
function skipToContent(e: Event): void {
  e.preventDefault();
  const target = document.querySelector<HTMLElement>('main h1') ?? document.getElementById('main');
  target?.focus();
}

function body(found: ReturnType<typeof findPage>, session: Session | null | undefined, where: HashRoute) {
  if (found === null) return where.path === '/' ? null : notFound();
  const { page, params } = found;
  if (page.who === 'any') return html`<${page.view} key=${where.path} params=${params} query=${where.query} />`;
  if (session === undefined) return html`<p class="muted loading" data-testid="loading">Loading…</p>`;
  if (session === null) return null;
  if (page.who === 'operator' && !session.user.operator) return notFound();
  // Keyed by who as well: after someone else signs in (in another tab), the page starts over with their data.
  const who = `${session.user.name}\n${session.user.account ?? ''}\n${String(session.user.operator)}`;
  return html`<${page.view} key=${`${who}\n${where.path}`} params=${params} query=${where.query} />`;
}

function notFound() {
  return html`
    <section class="page" data-testid="page-not-found" data-ready="true">
      <h1>Not found</h1>
      <p>There is no such page here. <a href="#/dashboard">Go to the dashboard</a>.</p>
    </section>
  `;
}
