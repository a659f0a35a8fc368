// Client-side routing on React Router (a data router, so navigation also works from event handlers
// outside components): the current path and query, navigation, query-string updates, and links.
import { type AnchorHTMLAttributes, useMemo } from 'react';
import { createBrowserRouter, Link as RouterLink, useLocation as useRouterLocation, type RouteObject } from 'react-router';

let router: ReturnType<typeof createBrowserRouter> | null = null;

/** The application's router over its route table (main.tsx); navigate() goes through it. */
export function createAppRouter(routes: RouteObject[]): ReturnType<typeof createBrowserRouter> {
  router = createBrowserRouter(routes);
  return router;
}

export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  if (to === location.pathname + location.search) return;
  // A replaced entry (a filter typed, a page of a list) keeps the scroll position; a new page starts at
  // the top. Such a change renders at once (flushSync), not as a transition: the controls that write the
  // query read their value back from it, and a checkbox must not flick back until the route catches up.
  const replace = opts.replace === true;
  void router?.navigate(to, { replace, preventScrollReset: replace, flushSync: replace });
}

export interface Location {
  path: string;
  query: URLSearchParams;
}

export function useLocation(): Location {
  const { pathname, search } = useRouterLocation();
  return useMemo(() => ({ path: pathname.replace(/\/+$/, '') || '/', query: new URLSearchParams(search) }), [pathname, search]);
}

/** Replaces query parameters of the current URL (null removes one) without a new history entry. */
export function setQuery(changes: Record<string, string | null>): void {
  const q = new URLSearchParams(location.search);
  for (const [k, v] of Object.entries(changes)) {
    if (v === null || v === '') q.delete(k);
    else q.set(k, v);
  }
  const s = q.toString();
  navigate(location.pathname + (s ? `?${s}` : ''), { replace: true });
}

/** A link that navigates in the page (middle-click, ctrl-click and keyboard behave as on any link). */
export function Link(props: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const { href, ...rest } = props;
  return <RouterLink to={href} {...rest} />;
}
