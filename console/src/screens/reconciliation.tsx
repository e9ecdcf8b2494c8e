import { useEffect, useState } from 'react';
import { Box, Button, Link, TextField, Typography } from '@mui/material';
import { Title } from 'react-admin';
import { useNavigate } from 'react-router-dom';
import { api, ApiError } from '../api';
import { can } from '../authProvider';
import { adminTimeZone } from '../format';
import { ApiProblem, Grid, Time, useSession } from '../ui';

export type Total = { currencyId: string; direction: string; kind: string; items: number; statementAmount: string; ledgerAmount: string };
export type Run = {
  id: string;
  providerId: string;
  from: string;
  to: string;
  fileName: string | null;
  sha256: string;
  lines: number;
  tolerances: { currencyId: string; tolerance: string }[];
  totals: Total[];
  breaks: number;
  unresolvedBreaks: number;
  uploadedBy: { id: number; username: string };
  uploadedAt: string;
};
export type Item = {
  itemNo: number;
  kind: string;
  direction: string;
  statement: { line: number; reference: string | null; currencyId: string | null; amount: string | null; status: string | null } | null;
  ledger: { ids: string[]; currencyId: string | null; amount: string | null; status: string | null } | null;
  difference: string | null;
  detail: string | null;
  resolution: { note: string; resolvedBy: { id: number; username: string }; resolvedAt: string } | null;
};
export const KINDS: Record<string, string> = {
  breaks: 'Every break',
  amount_mismatch: 'Amount mismatch',
  status_mismatch: 'Status mismatch',
  missing_in_ledger: 'Missing in the ledger',
  missing_in_statement: 'Missing in the statement',
  matched: 'Matched',
};

/** `datetime-local` input value (the admin's zone) as an instant. */
const instant = (local: string): string => new Date(local).toISOString();

/** Upload a statement: the file as it is (text/csv), provider and range (business time, in the admin's zone) in the query. */
const UploadForm = () => {
  const navigate = useNavigate();
  const [file, setFile] = useState<File | null>(null);
  const [provider, setProvider] = useState('TEST');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const upload = async () => {
    if (!file || !from || !to) return;
    setBusy(true);
    setError(undefined);
    try {
      const q = new URLSearchParams({ provider, from: instant(from), to: instant(to), fileName: file.name });
      const answer = await api<Run>('POST', `/finance/reconciliations?${q}`, file, { 'content-type': 'text/csv' });
      navigate(`/reconciliation/${answer.json.id}`);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const problems = error instanceof ApiError ? (error.body.details ?? []) : [];
  return (
    <Box
      component="section"
      aria-label="Upload a statement"
      sx={{ my: 2, display: 'flex', flexDirection: 'column', gap: 2, maxWidth: 560 }}
    >
      <Typography variant="h6" component="h2">
        Upload a statement
      </Typography>
      <Typography>
        Times are in your time zone, <strong>{adminTimeZone()}</strong>: the range is business time, from (inclusive) to (exclusive).
      </Typography>
      <label htmlFor="statement-file">Statement file (CSV)</label>
      <input id="statement-file" type="file" accept=".csv,text/csv" onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
      <TextField label="Provider" value={provider} onChange={(e) => setProvider(e.target.value)} size="small" />
      <TextField
        label={`From (${adminTimeZone()})`}
        type="datetime-local"
        value={from}
        onChange={(e) => setFrom(e.target.value)}
        size="small"
        slotProps={{ inputLabel: { shrink: true }, htmlInput: { step: 1 } }}
      />
      <TextField
        label={`To (${adminTimeZone()})`}
        type="datetime-local"
        value={to}
        onChange={(e) => setTo(e.target.value)}
        size="small"
        slotProps={{ inputLabel: { shrink: true }, htmlInput: { step: 1 } }}
      />
      <Box>
        <Button variant="contained" disabled={busy || !file || !from || !to || !provider} onClick={() => void upload()}>
          Reconcile
        </Button>
      </Box>
      <ApiProblem error={error} />
      {problems.length > 1 ? (
        <ul aria-label="Problems in the statement">
          {problems.map((p) => (
            <li key={`${p.field}-${p.message}`}>
              {p.field}: {p.message}
            </li>
          ))}
        </ul>
      ) : null}
    </Box>
  );
};

/** Reconciliation with payment providers: upload a statement (reconciliation.manage), the runs (reconciliation.view). */
export const ReconciliationPage = () => {
  const me = useSession();
  const [runs, setRuns] = useState<Run[] | undefined>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    api<{ runs: Run[] }>('GET', '/finance/reconciliations?limit=50').then(
      (a) => setRuns(a.json.runs),
      (e: unknown) => setError(e),
    );
  }, []);
  return (
    <Box sx={{ p: 2 }}>
      <Title title="Reconciliation" />
      <Typography variant="h5" component="h1">
        Reconciliation
      </Typography>
      {can(me, 'reconciliation.manage') ? <UploadForm /> : null}
      <ApiProblem error={error} />
      {runs ? (
        <Grid
          name="Runs"
          head={['Uploaded', 'Provider', 'From', 'To', 'Lines', 'Breaks', 'Unresolved', 'Run']}
          empty="No statement is reconciled yet."
          rows={runs.map((r) => [
            <Time key="u" at={r.uploadedAt} />,
            r.providerId,
            <Time key="f" at={r.from} />,
            <Time key="t" at={r.to} />,
            r.lines,
            r.breaks,
            r.unresolvedBreaks,
            <Link key="l" href={`#/reconciliation/${r.id}`}>
              Open {r.fileName ?? r.id}
            </Link>,
          ])}
        />
      ) : null}
    </Box>
  );
};
