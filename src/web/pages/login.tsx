// Login: username and password; errors in words (wrong password, too many attempts, server down).
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { ApiError, describeError, type SessionInfo, call } from '../api.ts';
import { Alert, usePageTitle } from '../ui.tsx';

export function LoginPage({ onLogin, notice }: { onLogin: (s: SessionInfo) => void; notice?: string }) {
  const [username, setUsername] = useState('admin');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const passwordRef = useRef<HTMLInputElement>(null);

  usePageTitle('Log in');
  useEffect(() => {
    passwordRef.current?.focus();
  }, []);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!username.trim() || !password) {
      setError('Enter your username and password.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      onLogin(await call('POST /api/v1/auth/login', { body: { username: username.trim(), password } }));
    } catch (err) {
      if (err instanceof ApiError && err.code === 'invalid_credentials') setError('Wrong username or password.');
      else if (err instanceof ApiError && err.status === 429)
        setError(`Too many failed attempts. ${err.message.replace(/^too many failed logins; /, 'Please ')}.`);
      else setError(describeError(err));
      setPassword('');
      passwordRef.current?.focus();
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="login-page">
      <main className="login-card">
        <div className="login-brand">
          <span className="brand-mark" aria-hidden="true">
            ≋
          </span>{' '}
          Tributary
        </div>
        <h1>Log in</h1>
        <p className="muted">Your vulnerability scanners and service desk in one inventory.</p>
        {notice && !error && <Alert tone="info">{notice}</Alert>}
        {error && <Alert tone="error">{error}</Alert>}
        <form onSubmit={submit} noValidate>
          <div className="field">
            <label htmlFor="login-username">Username</label>
            <input id="login-username" name="username" autoComplete="username" value={username} onChange={(e) => setUsername(e.target.value)} required />
          </div>
          <div className="field">
            <label htmlFor="login-password">Password</label>
            <input
              id="login-password"
              name="password"
              type="password"
              autoComplete="current-password"
              ref={passwordRef}
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              required
            />
            <p className="help">
              The first start creates the user <code>admin</code>; its password is in <code>TRIBUTARY_ADMIN_PASSWORD</code> or in the file{' '}
              <code>admin-password</code> in the data directory.
            </p>
          </div>
          <button type="submit" className="primary wide" disabled={busy}>
            {busy ? 'Logging in…' : 'Log in'}
          </button>
        </form>
      </main>
    </div>
  );
}
