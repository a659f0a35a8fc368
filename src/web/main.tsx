// Tributary's web interface: session handling, the application frame (navigation, user menu) and the
// routes to the screens. Everything goes through the public /api/v1 API.
import { StrictMode, useCallback, useEffect, useState } from 'react';
import { Navigate, Outlet, type RouteObject, ScrollRestoration, useParams } from 'react-router';
import { RouterProvider } from 'react-router/dom';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { describeError, type SessionInfo, setCsrfToken, setUnauthorizedHandler, call } from './api.ts';
import { AssetPage } from './pages/asset.tsx';
import { CoveragePage } from './pages/coverage.tsx';
import { ExceptionsPage } from './pages/exceptions.tsx';
import { FindingPage } from './pages/finding.tsx';
import { HostPage } from './pages/host.tsx';
import { InventoryPage, MODEL_VIEWS } from './pages/inventory.tsx';
import { LoginPage } from './pages/login.tsx';
import { OverviewPage } from './pages/overview.tsx';
import { PluginHostsPage, PluginsPage } from './pages/plugins.tsx';
import { RemediationHostsPage, RemediationsPage } from './pages/remediations.tsx';
import { isDetailModel, RecordDetailPage } from './pages/record-detail.tsx';
import { RunPage, RunsPage } from './pages/runs.tsx';
import { NewSourcePage, SourcePage } from './pages/source.tsx';
import { SourcesPage } from './pages/sources.tsx';
import { TokensPage } from './pages/tokens.tsx';
import { AlertsPage } from './pages/alerts.tsx';
import { FeedsPage } from './pages/feeds.tsx';
import { ExportsPage } from './pages/exports.tsx';
import { TrendsPage } from './pages/trends.tsx';
import { createAppRouter, Link, useLocation } from './router.tsx';
import { Spinner } from './ui.tsx';
import './style.css';

/** Anonymous: `leftOut` when the user logged out (the login page then forgets where they were). */
type SessionState = { status: 'loading' } | { status: 'anonymous'; notice?: string; leftOut?: boolean } | { status: 'in'; session: SessionInfo };

function App() {
  const [state, setState] = useState<SessionState>({ status: 'loading' });
  const loc = useLocation();

  useEffect(() => {
    call('GET /api/v1/auth/session', {}).then(
      (s) => {
        setCsrfToken(s.csrfToken);
        setState({ status: 'in', session: s });
      },
      () => setState({ status: 'anonymous' }),
    );
  }, []);

  useEffect(() => {
    setUnauthorizedHandler(() => {
      setCsrfToken(null);
      setState({ status: 'anonymous', notice: 'Your session has ended. Please log in again.' });
    });
    return () => setUnauthorizedHandler(null);
  }, []);

  const onLogin = useCallback((s: SessionInfo) => {
    setCsrfToken(s.csrfToken);
    setState({ status: 'in', session: s });
  }, []);

  const onLogout = useCallback(async () => {
    try {
      await call('POST /api/v1/auth/logout', {});
    } catch {
      // The session is gone either way.
    }
    setCsrfToken(null);
    setState({ status: 'anonymous', notice: 'You have logged out.', leftOut: true });
  }, []);

  if (state.status === 'loading') return <Spinner label="Starting Tributary…" />;
  if (state.status === 'anonymous') {
    if (loc.path !== '/login') {
      const here = location.pathname + location.search;
      return <Navigate to={`/login${here !== '/' && !state.leftOut ? `?next=${encodeURIComponent(here)}` : ''}`} replace />;
    }
    return <LoginPage onLogin={onLogin} notice={state.notice} />;
  }
  if (loc.path === '/login') {
    // Logged in on the login page: on to the page that sent the user there (only a path of this site).
    const next = loc.query.get('next');
    return <Navigate to={next?.startsWith('/') && !next.startsWith('//') ? next : '/'} replace />;
  }
  return (
    <Frame username={state.session.user.username} onLogout={onLogout} path={loc.path}>
      <Outlet />
      <ScrollRestoration />
    </Frame>
  );
}

const NAV: { href: string; label: string; group?: string }[] = [
  { href: '/', label: 'Overview' },
  { href: '/sources', label: 'Sources', group: 'Data Sources Settings' },
  { href: '/runs', label: 'Runs', group: 'Data Sources Settings' },
  ...MODEL_VIEWS.map((m) => ({ href: `/inventory/${m.model}`, label: m.title, group: 'Inventory' })),
  { href: '/reports/remediations', label: 'Top remediations', group: 'Reports' },
  { href: '/reports/plugins', label: 'Vulnerabilities by plugin', group: 'Reports' },
  { href: '/reports/coverage', label: 'Coverage', group: 'Reports' },
  { href: '/reports/trends', label: 'Trends', group: 'Reports' },
  { href: '/reports/exceptions', label: 'Risk exceptions', group: 'Reports' },
  { href: '/settings/tokens', label: 'API tokens', group: 'Settings' },
  { href: '/settings/feeds', label: 'Feeds', group: 'Settings' },
  { href: '/settings/alerts', label: 'Alerts', group: 'Settings' },
  { href: '/settings/exports', label: 'Scheduled exports', group: 'Settings' },
];

function Frame({ username, onLogout, path, children }: { username: string; onLogout: () => void; path: string; children: React.ReactNode }) {
  const [menuOpen, setMenuOpen] = useState(false);
  // biome-ignore lint/correctness/useExhaustiveDependencies: close the menu whenever the page changes
  useEffect(() => setMenuOpen(false), [path]);
  const isCurrent = (href: string) => (href === '/' ? path === '/' : path === href || path.startsWith(href + '/'));
  const groups: { name: string | undefined; items: typeof NAV }[] = [];
  for (const item of NAV) {
    const last = groups[groups.length - 1];
    if (last && last.name === item.group) last.items.push(item);
    else groups.push({ name: item.group, items: [item] });
  }
  return (
    <div className="frame">
      <a href="#main" className="skip">
        Skip to content
      </a>
      <header className="topbar">
        <button type="button" className="menu-toggle" aria-expanded={menuOpen} aria-controls="sidenav" onClick={() => setMenuOpen((o) => !o)}>
          Menu
        </button>
        <Link href="/" className="brand">
          <span className="brand-mark" aria-hidden="true">
            ≋
          </span>{' '}
          Tributary
        </Link>
        <div className="user">
          <span className="muted">
            Signed in as <strong>{username}</strong>
          </span>
          <button type="button" onClick={onLogout}>
            Log out
          </button>
        </div>
      </header>
      <div className="body">
        <nav id="sidenav" className={`sidenav${menuOpen ? ' open' : ''}`} aria-label="Main">
          {groups.map((g) => (
            <div key={g.name ?? 'top'} className="nav-group">
              {g.name && <div className="nav-heading">{g.name}</div>}
              <ul>
                {g.items.map((i) => (
                  <li key={i.href}>
                    <Link href={i.href} aria-current={isCurrent(i.href) ? 'page' : undefined}>
                      {i.label}
                    </Link>
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </nav>
        <main id="main" tabIndex={-1}>
          {children}
        </main>
      </div>
    </div>
  );
}

const SOURCE_TABS = ['configure', 'files', 'runs'] as const;
const isSourceTab = (t: string | undefined): t is (typeof SOURCE_TABS)[number] => SOURCE_TABS.some((x) => x === t);

const ROUTES: [string, (p: Record<string, string>) => React.ReactNode | null][] = [
  ['/', () => <OverviewPage />],
  ['/sources', () => <SourcesPage />],
  ['/sources/new/:type', (p) => <NewSourcePage type={p.type} />],
  ['/sources/:name', (p) => <SourcePage name={p.name} tab="configure" />],
  ['/sources/:name/:tab', (p) => (isSourceTab(p.tab) ? <SourcePage name={p.name} tab={p.tab} /> : null)],
  ['/runs', () => <RunsPage />],
  ['/runs/:id', (p) => <RunPage id={p.id} />],
  ['/inventory/hosts/:id', (p) => <HostPage id={p.id} />],
  ['/inventory/assets/:id', (p) => <AssetPage id={p.id} />],
  ['/inventory/vulnerabilities/:id', (p) => <FindingPage id={p.id} />],
  ['/inventory/:model/:id', (p) => (isDetailModel(p.model) ? <RecordDetailPage key={`${p.model}/${p.id}`} model={p.model} id={p.id} /> : null)],
  ['/settings/tokens', () => <TokensPage />],
  ['/settings/feeds', () => <FeedsPage />],
  ['/settings/alerts', () => <AlertsPage />],
  ['/settings/exports', () => <ExportsPage />],
  ['/reports/coverage', () => <CoveragePage />],
  ['/reports/trends', () => <TrendsPage />],
  ['/reports/exceptions', () => <ExceptionsPage />],
  ['/reports/plugins', () => <PluginsPage />],
  ['/reports/remediations', () => <RemediationsPage />],
  ['/reports/remediations/fix', () => <RemediationFixPage />],
  ['/reports/plugins/:source/:pluginId', (p) => <PluginHostsPage source={p.source} pluginId={p.pluginId} />],
  ['/inventory/:model', (p) => (MODEL_VIEWS.some((v) => v.model === p.model) ? <InventoryPage key={p.model} model={p.model} /> : null)],
];

/** A route's page, or "not found" when its parameters name nothing (an unknown model or tab). */
function RoutePage({ render }: { render: (p: Record<string, string>) => React.ReactNode | null }) {
  // The route's pattern names its parameters, so each is there.
  const params = Object.fromEntries(Object.entries(useParams()).filter((e): e is [string, string] => e[1] !== undefined));
  return render(params) ?? <NotFound />;
}

/** The hosts of one fix (its key in the query: a fix's key has spaces and colons). */
function RemediationFixPage() {
  const { query } = useLocation();
  const key = query.get('key');
  return key ? <RemediationHostsPage fixKey={key} /> : <NotFound />;
}

function NotFound() {
  const { path } = useLocation();
  return (
    <div>
      <h1>Page not found</h1>
      <p>
        There is nothing at <code>{path}</code>. <Link href="/">Go to the overview</Link>.
      </p>
    </div>
  );
}

const router = createAppRouter([
  {
    path: '/',
    element: <App />,
    children: [
      ...ROUTES.map(
        ([path, render]): RouteObject =>
          path === '/' ? { index: true, element: <RoutePage render={render} /> } : { path, element: <RoutePage render={render} /> },
      ),
      // The login page is drawn by App itself (it gates every route on the session).
      { path: 'login', element: null },
      { path: '*', element: <NotFound /> },
    ],
  },
]);

window.addEventListener('unhandledrejection', (e) => {
  console.error('unhandled', describeError(e.reason));
});

// Answers stay fresh for a second (components mounting together share one request) and are not
// retried: the API's own error says what is wrong, and a retry would only delay it.
const queryClient = new QueryClient({ defaultOptions: { queries: { staleTime: 1000, retry: false, refetchOnWindowFocus: false } } });

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </StrictMode>,
  );
} else {
  document.body.textContent = 'Tributary: the page is missing its root element.';
}
