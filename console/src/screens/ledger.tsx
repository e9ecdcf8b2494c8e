import { useState } from 'react';
import { Box, Button, MenuItem, Table, TableBody, TableCell, TableHead, TableRow, TextField, Typography } from '@mui/material';
import { Title } from 'react-admin';
import { api, ApiError, query } from '../api';
import { can } from '../authProvider';
import { adminTimeZone } from '../format';
import { ApiProblem, findUser, Money, Time, USER_FIELD_LABEL, useSession } from '../ui';

type Balances = { userId: number; at: string | null; position: string | null; balances: { currencyId: string; amount: string }[] };
type Movement = {
  id: string;
  type: string;
  currencyId: string;
  amount: string;
  beforeBalance: string;
  afterBalance: string;
  createdAt: string;
};

/**
 * A user's balances at any point in time (the event replay behind /accounting/balances) and the movements up to it.
 * Both read business time (effectiveAt), so the balances and the movements below them count the same events; the
 * optional "as known at" cuts both at a recording time, for audits.
 */
const PointInTime = () => {
  const me = useSession();
  const [userText, setUserText] = useState('');
  const [who, setWho] = useState<{ id: number; name: string } | undefined>();
  const [notFound, setNotFound] = useState<string | undefined>();
  const [at, setAt] = useState('');
  const [knownAt, setKnownAt] = useState('');
  const [result, setResult] = useState<Balances | undefined>();
  const [moves, setMoves] = useState<Movement[]>([]);
  const [error, setError] = useState<unknown>();
  const load = async () => {
    setError(undefined);
    setNotFound(undefined);
    try {
      // An empty field goes to the API as it is, which names the missing userId.
      const typed = userText.trim();
      const user = typed ? await findUser(typed) : undefined;
      if (typed && !user) {
        setResult(undefined);
        setMoves([]);
        setNotFound(`No single user matches ${typed}`);
        return;
      }
      const userId = user?.id;
      setWho(user);
      const point = at ? (at.includes('/') ? at : new Date(at).toISOString()) : undefined;
      const known = knownAt ? new Date(knownAt).toISOString() : undefined;
      setResult((await api<Balances>('GET', `/accounting/balances${query({ userId, at: point, knownAt: known })}`)).json);
      if (can(me, 'superadmin')) {
        const where = {
          userId,
          ...(point && !point.includes('/') ? { effectiveAt: { lte: point } } : {}),
          ...(known ? { createdAt: { lte: known } } : {}),
        };
        setMoves(
          (await api<{ data: Movement[] }>('POST', '/accounting/transactions', { page: 1, take: 20, sortOrder: 'desc', where })).json.data,
        );
      }
    } catch (e) {
      setError(e);
    }
  };
  const fieldError = (f: string) => (error instanceof ApiError ? error.body.details?.find((d) => d.field.endsWith(f))?.message : undefined);
  const userError = notFound ?? fieldError('userId');
  return (
    <Box component="section" sx={{ my: 2 }}>
      <Typography variant="h6" component="h2">
        Balances at a point in time
      </Typography>
      <Box
        component="form"
        sx={{ display: 'flex', gap: 1, my: 1 }}
        onSubmit={(e) => {
          e.preventDefault();
          void load();
        }}
      >
        <TextField
          size="small"
          label={USER_FIELD_LABEL}
          value={userText}
          onChange={(e) => setUserText(e.target.value)}
          sx={{ width: 260 }}
          error={Boolean(userError)}
          helperText={userError ?? ' '}
        />
        <TextField
          size="small"
          label="As of, business time (ISO time or position, empty = now)"
          value={at}
          onChange={(e) => setAt(e.target.value.trim())}
          sx={{ width: 380 }}
          error={Boolean(fieldError('.at'))}
          helperText={fieldError('.at') ?? ' '}
        />
        <TextField
          size="small"
          label="As known at, recording time (optional)"
          value={knownAt}
          onChange={(e) => setKnownAt(e.target.value.trim())}
          sx={{ width: 300 }}
          error={Boolean(fieldError('knownAt'))}
          helperText={fieldError('knownAt') ?? ' '}
        />
        <Button type="submit" variant="contained" sx={{ alignSelf: 'flex-start' }}>
          Replay
        </Button>
      </Box>
      {error && !(error instanceof ApiError && error.body.details?.length) ? <ApiProblem error={error} /> : null}
      {result ? (
        <>
          <Typography>
            {who?.id === result.userId ? `${who.name} (#${result.userId})` : `User #${result.userId}`} as of {result.at ?? (at || 'now')}
            {result.at && !result.at.includes('/') ? ' (business time)' : ''}
            {knownAt ? `, as known at ${new Date(knownAt).toISOString()} (recording time)` : ''} (position {result.position ?? '—'})
          </Typography>
          {result.balances.length === 0 ? <Typography>No balances as of this point.</Typography> : null}
          <Table size="small" aria-label="Balances at the point">
            <TableBody>
              {result.balances.map((b) => (
                <TableRow key={b.currencyId}>
                  <TableCell>{b.currencyId}</TableCell>
                  <TableCell>
                    <Money amount={b.amount} currency={b.currencyId} />
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </>
      ) : null}
      {moves.length ? (
        <Table size="small" aria-label="Movements up to the point">
          <TableHead>
            <TableRow>
              <TableCell>Recorded at</TableCell>
              <TableCell>Type</TableCell>
              <TableCell>Amount</TableCell>
              <TableCell>After</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {moves.map((m) => (
              <TableRow key={m.id}>
                <TableCell>
                  <Time at={m.createdAt} />
                </TableCell>
                <TableCell>{m.type}</TableCell>
                <TableCell>
                  <Money amount={m.amount} currency={m.currencyId} />
                </TableCell>
                <TableCell>
                  <Money amount={m.afterBalance} currency={m.currencyId} />
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      ) : null}
    </Box>
  );
};

type Manifest = { kind: string; format: string; from: string; to: string; rows: number; bytes: number; sha256: string };
/** Record ends: line ends outside double quotes for CSV (a quoted field may hold one); NDJSON escapes them, so every one counts. */
const records = (bytes: Uint8Array, csv: boolean): number => {
  let quoted = false;
  let count = 0;
  bytes.forEach((b, i) => {
    if (b === 0x22 && csv) quoted = !quoted;
    else if (b === 0x0a && !quoted) count += 1;
    else if (i === bytes.length - 1) count += 1;
  });
  return count;
};
const KINDS = ['transactions', 'deposits', 'withdrawals', 'bets', 'tips'];

/** The export streamed to a file; rows, bytes and SHA-256 computed from the bytes received (browsers do not expose trailers). */
const Exports = () => {
  const [kind, setKind] = useState('transactions');
  const [format, setFormat] = useState('csv');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [manifest, setManifest] = useState<Manifest | undefined>();
  const [error, setError] = useState<unknown>();
  const run = async () => {
    setError(undefined);
    // Whole days in the admin's zone, sent as instants: from inclusive, to exclusive (the day after the last one).
    const range = {
      ...(from ? { from: new Date(`${from}T00:00:00`).toISOString() } : {}),
      ...(to ? { to: new Date(new Date(`${to}T00:00:00`).getTime() + 86_400_000).toISOString() } : {}),
    };
    const res = await fetch(`/accounting/export${query({ kind, format, ...range })}`, { credentials: 'same-origin' });
    if (!res.ok) {
      setError(
        new ApiError(res.status, await res.json().catch(() => ({ statusCode: res.status, code: 'HTTP_ERROR', message: res.statusText }))),
      );
      return;
    }
    const bytes = new Uint8Array(await res.arrayBuffer());
    const digest = Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', bytes)), (b) => b.toString(16).padStart(2, '0')).join(
      '',
    );
    setManifest({
      kind,
      format,
      from: from || 'the first movement',
      to: to || 'now',
      rows: format === 'csv' ? Math.max(0, records(bytes, true) - 1) : records(bytes, false),
      bytes: bytes.length,
      sha256: digest,
    });
    const a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([bytes]));
    a.download = `${kind}.${format}`;
    a.click();
  };
  return (
    <Box component="section" sx={{ my: 2 }}>
      <Typography variant="h6" component="h2">
        Exports
      </Typography>
      <Box sx={{ display: 'flex', gap: 1, my: 1 }}>
        <TextField select size="small" label="Kind" value={kind} onChange={(e) => setKind(e.target.value)} sx={{ width: 180 }}>
          {KINDS.map((k) => (
            <MenuItem key={k} value={k}>
              {k}
            </MenuItem>
          ))}
        </TextField>
        <TextField select size="small" label="Format" value={format} onChange={(e) => setFormat(e.target.value)} sx={{ width: 120 }}>
          {['csv', 'ndjson'].map((k) => (
            <MenuItem key={k} value={k}>
              {k}
            </MenuItem>
          ))}
        </TextField>
        <TextField
          size="small"
          type="date"
          label="From day"
          value={from}
          slotProps={{ inputLabel: { shrink: true } }}
          onChange={(e) => setFrom(e.target.value)}
        />
        <TextField
          size="small"
          type="date"
          label="To day (inclusive)"
          value={to}
          slotProps={{ inputLabel: { shrink: true } }}
          onChange={(e) => setTo(e.target.value)}
        />
        <Button variant="contained" onClick={() => void run()}>
          Export
        </Button>
      </Box>
      <Typography variant="body2">Business time (effectiveAt), whole days in {adminTimeZone()}.</Typography>
      <ApiProblem error={error} />
      {manifest ? (
        <Box component="dl" aria-label="Export manifest" sx={{ display: 'grid', gridTemplateColumns: 'max-content 1fr', gap: 0.5 }}>
          <dt>Export</dt>
          <dd>
            {manifest.kind}, {manifest.format.toUpperCase()}, business days {manifest.from} to {manifest.to}
          </dd>
          <dt>Rows</dt>
          <dd>{manifest.rows.toLocaleString('en-US')}</dd>
          <dt>Size</dt>
          <dd>{manifest.bytes.toLocaleString('en-US')} bytes</dd>
          <dt>SHA-256</dt>
          <dd style={{ fontFamily: 'monospace', overflowWrap: 'anywhere' }}>{manifest.sha256}</dd>
        </Box>
      ) : null}
    </Box>
  );
};

export const LedgerPage = () => {
  const me = useSession();
  return (
    <Box sx={{ p: 2 }}>
      <Title title="Ledger" />
      <Typography variant="h5" component="h1">
        Ledger
      </Typography>
      {can(me, 'balance.view') ? <PointInTime /> : null}
      {can(me, 'transaction.view') ? <Exports /> : null}
    </Box>
  );
};
