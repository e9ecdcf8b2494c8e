import { useEffect, useState, type FormEvent } from 'react';
import { Alert, Box, Button, Card, CardContent, TextField, Typography } from '@mui/material';
import { useLogin } from 'react-admin';
import { ApiError } from './api';
import { consoleConfig, MfaRequired, type ConsoleConfig } from './authProvider';

const message = (error: unknown): string =>
  error instanceof ApiError ? `${error.body.code}: ${error.body.message}` : (error as Error).message;

/** Sign-in: e-mail and password (with the environment's captcha rule), then the TOTP code when MFA is on. */
export const LoginPage = () => {
  const login = useLogin();
  const [config, setConfig] = useState<ConsoleConfig | undefined>();
  const [mfaToken, setMfaToken] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    consoleConfig().then(setConfig, () => setConfig({ captcha: { mode: 'token' } }));
  }, []);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(undefined);
    try {
      if (mfaToken) await login({ mfaToken, code: String(form.get('code') ?? '').trim() });
      else
        await login({
          email: String(form.get('email') ?? ''),
          password: String(form.get('password') ?? ''),
          captchaToken: String(form.get('captcha') ?? '') || undefined,
        });
    } catch (e) {
      if (e instanceof MfaRequired) setMfaToken(e.mfaToken);
      else setError(message(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Box component="main" sx={{ display: 'flex', justifyContent: 'center', alignItems: 'center', minHeight: '100vh', bgcolor: '#eceff1' }}>
      <Card sx={{ width: 380 }}>
        <CardContent>
          <Typography variant="h5" component="h1" gutterBottom>
            casino-ledger console
          </Typography>
          <form onSubmit={(e) => void submit(e)} noValidate>
            {mfaToken ? (
              <TextField
                name="code"
                label="Authenticator code"
                autoFocus
                fullWidth
                margin="normal"
                required
                slotProps={{ htmlInput: { inputMode: 'numeric', autoComplete: 'one-time-code', maxLength: 6 } }}
              />
            ) : (
              <>
                <TextField name="email" label="E-mail" type="email" autoComplete="username" fullWidth margin="normal" required />
                <TextField
                  name="password"
                  label="Password"
                  type="password"
                  autoComplete="current-password"
                  fullWidth
                  margin="normal"
                  required
                />
                {config?.captcha.mode === 'token' ? (
                  <TextField name="captcha" label="Captcha token" fullWidth margin="normal" required />
                ) : null}
              </>
            )}
            {error ? (
              <Alert severity="error" role="alert" sx={{ my: 1 }}>
                {error}
              </Alert>
            ) : null}
            <Button type="submit" variant="contained" fullWidth disabled={busy} sx={{ mt: 2 }}>
              {mfaToken ? 'Verify code' : 'Sign in'}
            </Button>
          </form>
        </CardContent>
      </Card>
    </Box>
  );
};
