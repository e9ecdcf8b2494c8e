import { useEffect, useState } from 'react';
import { Box, Button, Link, MenuItem, Table, TableBody, TableCell, TableHead, TableRow, TextField, Typography } from '@mui/material';
import { Title } from 'react-admin';
import { useParams } from 'react-router-dom';
import { api, ApiError, query } from '../api';
import { can } from '../authProvider';
import { formatDecimal, formatMoney } from '../format';
import { ApiProblem, useSession } from '../ui';

type Cell = string | number | null;
type Manifest = { rows: number; bytes: number; sha256: string; columns: string[]; formulaGuard: string };
export type FinanceReport = {
  report: string;
  scope: { kind: 'period' | 'range'; period?: string; from?: string; to?: string; closed?: boolean; timeZone: string };
  source: string;
  columns: string[];
  rows: Record<string, Cell>[];
  totals?: Record<string, Cell>[];
  csv: Manifest;
};

type ReportKind = { name: string; label: string; permission: string; stock?: true; groups?: string[] };
const REPORTS: ReportKind[] = [
  { name: 'trial-balance', label: 'Trial balance', permission: 'balance.view', stock: true },
  { name: 'liability', label: 'Player-funds liability', permission: 'balance.view', stock: true },
  { name: 'gaming', label: 'GGR and NGR', permission: 'transaction.view', groups: ['day', 'game', 'provider', 'currency'] },
  { name: 'payments', label: 'Payments', permission: 'deposits.view', groups: ['day', 'provider'] },
  { name: 'adjustments', label: 'Admin adjustments', permission: 'admin-tips.view' },
];

/** Column names as a finance reader says them. */
const LABELS: Record<string, string> = {
  currencyId: 'Currency',
  usdRate: 'USD rate',
  usdBalance: 'Balance (USD)',
  usdGgr: 'GGR (USD)',
  usdNgr: 'NGR (USD)',
  usdAmount: 'Amount (USD)',
  ggr: 'GGR',
  ngr: 'NGR',
  adminTips: 'Admin tips',
  adminDeductions: 'Admin deductions',
  leaderboardPrizes: 'Leaderboard prizes',
  affiliateCommissions: 'Affiliate commissions',
  playerBalances: 'Player balances',
  withdrawalsHeld: 'Withdrawals held',
  openBetStakes: 'Open bet stakes',
  usdPlayerBalances: 'Player balances (USD)',
  usdWithdrawalsHeld: 'Withdrawals held (USD)',
  usdOpenBetStakes: 'Open bet stakes (USD)',
  usdTotal: 'Total owed (USD)',
  depositsHeld: 'Deposits held (over a limit)',
  totalOwed: 'Total owed',
  adminUserId: 'Admin id',
  adminUsername: 'Admin',
  businessAt: 'Business time',
  recordedAt: 'Recorded',
  transactionId: 'Transaction',
};
const label = (c: string): string =>
  LABELS[c] ??
  c.charAt(0).toUpperCase() +
    c
      .slice(1)
      .replace(/([A-Z])/g, ' $1')
      .toLowerCase();
const COUNTS = new Set(['bets', 'count', 'accounts', 'adminUserId']);
const NUMERIC = /^-?\d+(\.\d+)?$/;

/** A cell as people read it: money at its currency's precision (USD to cents) with the exact value on hover. */
const CellText = ({ column, row }: { column: string; row: Record<string, Cell> }) => {
  const v = row[column];
  if (v === null || v === undefined || v === '') return <>—</>;
  const s = String(v);
  if (COUNTS.has(column) || !NUMERIC.test(s)) return <>{s}</>;
  if (column === 'usdRate') return <span title={s}>{formatDecimal(s, 8)}</span>;
  const usd = column.startsWith('usd');
  const { text } = formatMoney(s, usd ? 'USD' : String(row.currencyId ?? ''));
  return <span title={s}>{text.replace(/ [A-Z_]+$/, '')}</span>;
};

export const ReportTable = ({ name, columns, rows }: { name: string; columns: string[]; rows: Record<string, Cell>[] }) =>
  rows.length === 0 ? (
    <Typography>Nothing in this scope.</Typography>
  ) : (
    <Box sx={{ overflowX: 'auto' }}>
      <Table size="small" aria-label={name} sx={{ '& td, & th': { whiteSpace: 'nowrap' }, '& td': { fontVariantNumeric: 'tabular-nums' } }}>
        <TableHead>
          <TableRow>
            {columns.map((c) => (
              <TableCell key={c}>{label(c)}</TableCell>
            ))}
          </TableRow>
        </TableHead>
        <TableBody>
          {rows.map((r, i) => (
            <TableRow key={i}>
              {columns.map((c) => (
                <TableCell key={c} align={COUNTS.has(c) || NUMERIC.test(String(r[c] ?? '')) ? 'right' : 'left'}>
                  <CellText column={c} row={r} />
                </TableCell>
              ))}
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </Box>
  );

/** What a download holds, as a reader checks it: rows, size, columns, SHA-256 (and whether the bytes received match it). */
export const ManifestSummary = ({ manifest, checked }: { manifest: Manifest; checked?: boolean | undefined }) => (
  <Box component="dl" aria-label="Download manifest" sx={{ display: 'grid', gridTemplateColumns: 'max-content 1fr', gap: 0.5, my: 1 }}>
    <dt>Rows</dt>
    <dd>{manifest.rows.toLocaleString('en-US')}</dd>
    <dt>Size</dt>
    <dd>{manifest.bytes.toLocaleString('en-US')} bytes</dd>
    <dt>Columns</dt>
    <dd>{manifest.columns.join(', ')}</dd>
    <dt>SHA-256</dt>
    <dd style={{ fontFamily: 'monospace', overflowWrap: 'anywhere' }}>
      {manifest.sha256}
      {checked === undefined ? null : checked ? ' (the file received matches)' : ' (THE FILE RECEIVED DOES NOT MATCH)'}
    </dd>
    <dt>Spreadsheet safety</dt>
    <dd>{manifest.formulaGuard}</dd>
  </Box>
);

const sha256 = async (bytes: Uint8Array<ArrayBuffer>): Promise<string> =>
  Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', bytes)), (b) => b.toString(16).padStart(2, '0')).join('');

/** Downloads the report's CSV and checks its SHA-256 against the manifest the JSON answer stated. */
const downloadCsv = async (path: string, params: Record<string, unknown>, file: string, expected: string): Promise<boolean> => {
  const res = await fetch(`${path}${query({ ...params, format: 'csv' })}`, { credentials: 'same-origin' });
  if (!res.ok) throw new ApiError(res.status, await res.json());
  const bytes = new Uint8Array(await res.arrayBuffer());
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([bytes], { type: 'text/csv' }));
  a.download = file;
  a.click();
  return (await sha256(bytes)) === expected;
};

/** Period or business-day range, with the ledger's time zone said next to the dates. */
const ScopePicker = ({
  stock,
  timeZone,
  scope,
  onChange,
}: {
  stock: boolean;
  timeZone: string;
  scope: { kind: 'period' | 'range'; period: string; from: string; to: string };
  onChange: (s: { kind: 'period' | 'range'; period: string; from: string; to: string }) => void;
}) => (
  <Box sx={{ display: 'flex', gap: 1, alignItems: 'center', flexWrap: 'wrap' }}>
    {stock ? null : (
      <TextField
        select
        size="small"
        label="Scope"
        value={scope.kind}
        sx={{ width: 160 }}
        onChange={(e) => onChange({ ...scope, kind: e.target.value as 'period' | 'range' })}
      >
        <MenuItem value="period">A period</MenuItem>
        <MenuItem value="range">Business days</MenuItem>
      </TextField>
    )}
    {stock || scope.kind === 'period' ? (
      <TextField
        size="small"
        label="Period (YYYY-MM)"
        value={scope.period}
        sx={{ width: 170 }}
        onChange={(e) => onChange({ ...scope, period: e.target.value })}
      />
    ) : (
      <>
        <TextField
          size="small"
          type="date"
          label="From (inclusive)"
          value={scope.from}
          slotProps={{ inputLabel: { shrink: true } }}
          onChange={(e) => onChange({ ...scope, from: e.target.value })}
        />
        <TextField
          size="small"
          type="date"
          label="To (inclusive)"
          value={scope.to}
          slotProps={{ inputLabel: { shrink: true } }}
          onChange={(e) => onChange({ ...scope, to: e.target.value })}
        />
      </>
    )}
    <Typography variant="body2">Business time, days in {timeZone}</Typography>
  </Box>
);

const thisMonth = (): string => new Date().toISOString().slice(0, 7);
const useTimeZone = (): string => {
  const [zone, setZone] = useState('the ledger time zone');
  useEffect(() => {
    api<{ timeZone: string }>('GET', '/ledger/periods').then(
      (a) => setZone(a.json.timeZone),
      () => undefined,
    );
  }, []);
  return zone;
};

/** Runs one report for a scope and shows it with its totals, its source and its download. */
const ReportRunner = ({
  path,
  name,
  stock,
  groups,
  title,
}: {
  path: string;
  name: string;
  stock: boolean;
  groups?: string[];
  title: string;
}) => {
  const timeZone = useTimeZone();
  const [scope, setScope] = useState({
    kind: 'period' as 'period' | 'range',
    period: thisMonth(),
    from: `${thisMonth()}-01`,
    to: new Date().toISOString().slice(0, 10),
  });
  const [groupBy, setGroupBy] = useState(groups?.[0] ?? '');
  const [report, setReport] = useState<FinanceReport | undefined>();
  const [checked, setChecked] = useState<boolean | undefined>();
  const [error, setError] = useState<unknown>();
  const params = (): Record<string, unknown> => ({
    ...(stock || scope.kind === 'period' ? { period: scope.period } : { from: scope.from, to: scope.to }),
    ...(groupBy ? { groupBy } : {}),
  });
  const run = async () => {
    setError(undefined);
    setChecked(undefined);
    try {
      setReport((await api<FinanceReport>('GET', `${path}${query(params())}`)).json);
    } catch (e) {
      setReport(undefined);
      setError(e);
    }
  };
  const download = async () => {
    if (!report) return;
    try {
      const where = report.scope.kind === 'period' ? report.scope.period : `${report.scope.from}_${report.scope.to}`;
      setChecked(await downloadCsv(path, params(), `${name}-${where}.csv`, report.csv.sha256));
    } catch (e) {
      setError(e);
    }
  };
  return (
    <Box component="section" aria-label={title} sx={{ my: 2 }}>
      <Box sx={{ display: 'flex', gap: 1, alignItems: 'center', flexWrap: 'wrap', my: 1 }}>
        <ScopePicker stock={stock} timeZone={timeZone} scope={scope} onChange={setScope} />
        {groups ? (
          <TextField select size="small" label="Rows per" value={groupBy} sx={{ width: 140 }} onChange={(e) => setGroupBy(e.target.value)}>
            {groups.map((g) => (
              <MenuItem key={g} value={g}>
                {g}
              </MenuItem>
            ))}
          </TextField>
        ) : null}
        <Button variant="contained" onClick={() => void run()}>
          Show
        </Button>
        {report ? (
          <Button variant="outlined" onClick={() => void download()}>
            Download CSV
          </Button>
        ) : null}
      </Box>
      <ApiProblem error={error} />
      {report ? (
        <>
          <Typography sx={{ my: 1 }}>
            {report.scope.kind === 'period'
              ? `Period ${report.scope.period} (${report.scope.closed ? 'closed' : 'open, to date'})`
              : `Business days ${report.scope.from} to ${report.scope.to}`}
            , {report.scope.timeZone}; from the {report.source}.
          </Typography>
          <ReportTable name={title} columns={report.columns} rows={report.rows} />
          {report.totals ? (
            <>
              <Typography variant="h6" component="h3" sx={{ mt: 2 }}>
                Totals
              </Typography>
              <ReportTable name={`${title} totals`} columns={Object.keys(report.totals[0] ?? {})} rows={report.totals} />
            </>
          ) : null}
          <Typography variant="h6" component="h3" sx={{ mt: 2 }}>
            Download
          </Typography>
          <ManifestSummary manifest={report.csv} checked={checked} />
        </>
      ) : null}
    </Box>
  );
};

/** The finance reports an admin may read: pick one, a scope, and read or download it. */
export const FinancePage = () => {
  const me = useSession();
  const allowed = REPORTS.filter((r) => can(me, r.permission));
  const [name, setName] = useState(allowed[0]?.name ?? '');
  const kind = allowed.find((r) => r.name === name);
  return (
    <Box sx={{ p: 2 }}>
      <Title title="Finance reports" />
      <Typography variant="h5" component="h1">
        Finance reports
      </Typography>
      <Typography sx={{ my: 1 }}>
        A closed period&apos;s trial balance and liability are its sealed close; everything else is read from the ledger&apos;s read models.
        See <Link href="#/periods">Periods</Link> to close the books.
      </Typography>
      {allowed.length === 0 ? (
        <Typography>You have no permission for a finance report.</Typography>
      ) : (
        <TextField select size="small" label="Report" value={name} sx={{ width: 260, my: 1 }} onChange={(e) => setName(e.target.value)}>
          {allowed.map((r) => (
            <MenuItem key={r.name} value={r.name}>
              {r.label}
            </MenuItem>
          ))}
        </TextField>
      )}
      {kind ? (
        <ReportRunner
          key={kind.name}
          path={`/finance/reports/${kind.name}`}
          name={kind.name}
          stock={Boolean(kind.stock)}
          title={kind.label}
          {...(kind.groups ? { groups: kind.groups } : {})}
        />
      ) : null}
    </Box>
  );
};

/** A player's account statement: opening balance, every movement by business time, closing balance, per currency. */
export const StatementPage = () => {
  const { userId } = useParams();
  return (
    <Box sx={{ p: 2 }}>
      <Title title="Account statement" />
      <Typography variant="h5" component="h1">
        Account statement of <Link href={`#/users/${userId}/show`}>user #{userId}</Link>
      </Typography>
      <ReportRunner
        path={`/finance/players/${encodeURIComponent(userId ?? '')}/statement`}
        name={`statement-${userId}`}
        stock={false}
        title="Statement"
      />
    </Box>
  );
};

/** Before a close: the period's trial balance and liability to date, as the confirmation shows them. */
export const ClosePreview = ({ period }: { period: string }) => {
  const [trial, setTrial] = useState<FinanceReport | undefined>();
  const [liability, setLiability] = useState<FinanceReport | undefined>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    const p = query({ period });
    api<FinanceReport>('GET', `/finance/reports/trial-balance${p}`).then((a) => setTrial(a.json), setError);
    api<FinanceReport>('GET', `/finance/reports/liability${p}`).then((a) => setLiability(a.json), setError);
  }, [period]);
  return (
    <Box component="span" sx={{ display: 'block', my: 1 }}>
      <ApiProblem error={error} />
      <Typography component="span" sx={{ display: 'block', fontWeight: 'bold' }}>
        Trial balance of {period} to date
      </Typography>
      {trial ? <ReportTable name={`Trial balance of ${period}`} columns={trial.columns} rows={trial.rows} /> : 'Loading…'}
      <Typography component="span" sx={{ display: 'block', fontWeight: 'bold', mt: 1 }}>
        Totals per currency (each must be 0)
      </Typography>
      {trial?.totals ? <ReportTable name={`Totals of ${period}`} columns={['currencyId', 'total']} rows={trial.totals} /> : null}
      <Typography component="span" sx={{ display: 'block', fontWeight: 'bold', mt: 1 }}>
        Player-funds liability
      </Typography>
      {liability ? (
        <ReportTable
          name={`Liability of ${period}`}
          columns={liability.columns.filter((c) => !c.startsWith('usd') || c === 'usdTotal')}
          rows={liability.rows}
        />
      ) : null}
    </Box>
  );
};
