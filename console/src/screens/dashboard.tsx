import { useEffect, useState } from 'react';
import { Box, Card, CardContent, MenuItem, TextField, Typography } from '@mui/material';
import { Title } from 'react-admin';
import { api, query } from '../api';
import { can } from '../authProvider';
import { maxDecimal, permille } from '../decimal';
import { ApiProblem, Money, UserLink, useSession } from '../ui';

type Bucket = { period: string; amount: string; count: number };
type Range = 'HOURLY' | 'DAILY' | 'WEEKLY' | 'MONTHLY';

/**
 * What each chart shows: the last `periods` UTC periods up to the current one, every one of them (the API answers the empty
 * ones as 0), named by `label`. The API's buckets start at UTC boundaries, so the chart says UTC rather than convert them.
 */
const RANGES: Readonly<Record<Range, { periods: number; unit: string; label: (iso: string) => string }>> = {
  HOURLY: { periods: 24, unit: 'Hours', label: (iso) => `${iso.slice(0, 10)} ${iso.slice(11, 16)}` },
  DAILY: { periods: 30, unit: 'Days', label: (iso) => iso.slice(0, 10) },
  WEEKLY: { periods: 12, unit: 'Weeks from Monday', label: (iso) => iso.slice(0, 10) },
  MONTHLY: { periods: 12, unit: 'Months', label: (iso) => iso.slice(0, 7) },
};

/** [from, to) covering the last `periods` periods of `range`, the current one included, in UTC. */
const rangeOf = (range: Range, now: Date): { from: string; to: string } => {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  const d = now.getUTCDate();
  const n = RANGES[range].periods;
  const day = (offset: number) => new Date(Date.UTC(y, m, d + offset));
  switch (range) {
    case 'HOURLY':
      return {
        from: new Date(Date.UTC(y, m, d, now.getUTCHours() - (n - 1))).toISOString(),
        to: new Date(Date.UTC(y, m, d, now.getUTCHours() + 1)).toISOString(),
      };
    case 'DAILY':
      return { from: day(-(n - 1)).toISOString(), to: day(1).toISOString() };
    case 'WEEKLY': {
      const monday = (now.getUTCDay() + 6) % 7;
      return { from: day(-monday - 7 * (n - 1)).toISOString(), to: day(7 - monday).toISOString() };
    }
    case 'MONTHLY':
      return { from: new Date(Date.UTC(y, m - (n - 1), 1)).toISOString(), to: new Date(Date.UTC(y, m + 1, 1)).toISOString() };
  }
};

const Chart = ({ title, type, range }: { title: string; type: 'DEPOSIT' | 'WITHDRAW'; range: Range }) => {
  const [rows, setRows] = useState<Bucket[] | undefined>();
  const [error, setError] = useState<unknown>();
  const shape = RANGES[range];
  useEffect(() => {
    // Every bucket of the range in one page (at most 30), then in time order; never the top buckets by amount.
    const params = { transactionType: type, dataRange: range, ...rangeOf(range, new Date()), take: 30, page: 1 };
    api<{ data: Bucket[] }>('GET', `/user/stats/transactions${query(params)}`).then(
      (a) => setRows([...a.json.data].sort((x, y) => x.period.localeCompare(y.period))),
      setError,
    );
  }, [type, range]);
  // Bar widths from exact bigint ratios; the figure beside each bar is the API's string.
  const max = maxDecimal(rows?.map((r) => r.amount) ?? []);
  return (
    <Card sx={{ flex: 1, minWidth: 320 }}>
      <CardContent>
        <Typography variant="h6" component="h2">
          {title} (USD, completed)
        </Typography>
        <Typography variant="body2">
          {shape.unit} in UTC, the last {shape.periods}
        </Typography>
        <ApiProblem error={error} />
        <Box component="ul" sx={{ listStyle: 'none', p: 0 }} aria-label={`${title} per period`}>
          {rows?.map((r) => (
            <li key={r.period} style={{ display: 'grid', gridTemplateColumns: '9em 1fr 12em', alignItems: 'center', gap: 8 }}>
              <span>{shape.label(r.period)}</span>
              <span
                aria-hidden
                style={{
                  background: type === 'DEPOSIT' ? '#2e7d32' : '#c62828',
                  height: 12,
                  width: r.count === 0 ? 0 : `${Math.max(1, permille(r.amount, max)) / 10}%`,
                }}
              />
              <span>
                <Money amount={r.amount} currency="USD" /> ({r.count})
              </span>
            </li>
          ))}
        </Box>
      </CardContent>
    </Card>
  );
};

const PendingCount = () => {
  const [total, setTotal] = useState<number | undefined>();
  useEffect(() => {
    const load = () =>
      api<{ total: number }>(
        'GET',
        `/withdraw${query({ status: 'PENDING', page: 1, take: 1, sortBy: 'CREATED_AT', sortOrder: 'asc' })}`,
      ).then(
        (a) => setTotal(a.json.total),
        () => undefined,
      );
    void load();
    const timer = setInterval(() => void load(), 5000);
    return () => clearInterval(timer);
  }, []);
  return (
    <Card>
      <CardContent>
        <Typography variant="h6" component="h2">
          Pending withdrawals
        </Typography>
        <Typography variant="h3" component="p" data-testid="pending-count">
          {total ?? '…'}
        </Typography>
      </CardContent>
    </Card>
  );
};

type BigWin = {
  id: string;
  userId: number;
  user?: { username?: string };
  payout: string;
  currencyId: string;
  usdPayout: string;
  multiplier: string;
  createdAt: string;
};

const BigWins = () => {
  const [rows, setRows] = useState<BigWin[]>([]);
  useEffect(() => {
    api<{ data: BigWin[] }>('POST', '/bets', {
      page: 1,
      take: 10,
      sortBy: 'USD_PAYOUT',
      sortOrder: 'desc',
      where: { status: 'SETTLED', createdAt: { gte: new Date(Date.now() - 7 * 86_400_000).toISOString() } },
    }).then(
      (a) => setRows(a.json.data),
      () => undefined,
    );
  }, []);
  return (
    <Card>
      <CardContent>
        <Typography variant="h6" component="h2">
          Recent big wins (7 days)
        </Typography>
        <ul>
          {rows.map((r) => (
            <li key={r.id}>
              <UserLink id={r.userId} user={r.user} />: <Money amount={r.payout} currency={r.currencyId} /> (
              <Money amount={r.usdPayout} currency="USD" />, ×{r.multiplier})
            </li>
          ))}
        </ul>
      </CardContent>
    </Card>
  );
};

export const Dashboard = () => {
  const me = useSession();
  const [range, setRange] = useState<Range>('DAILY');
  return (
    <Box sx={{ p: 2, display: 'flex', flexDirection: 'column', gap: 2 }}>
      <Title title="Dashboard" />
      <Typography variant="h5" component="h1">
        Dashboard
      </Typography>
      <Box sx={{ display: 'flex', gap: 2, flexWrap: 'wrap' }}>
        {can(me, 'withdrawals.view') ? <PendingCount /> : null}
        {can(me, 'user.bets.view') ? <BigWins /> : null}
      </Box>
      {can(me, 'transaction.view') ? (
        <>
          <TextField
            select
            size="small"
            label="Period"
            value={range}
            onChange={(e) => setRange(e.target.value as Range)}
            sx={{ width: 200 }}
          >
            {['HOURLY', 'DAILY', 'WEEKLY', 'MONTHLY'].map((r) => (
              <MenuItem key={r} value={r}>
                {r}
              </MenuItem>
            ))}
          </TextField>
          <Box sx={{ display: 'flex', gap: 2, flexWrap: 'wrap' }}>
            <Chart title="Deposits" type="DEPOSIT" range={range} />
            <Chart title="Withdrawals" type="WITHDRAW" range={range} />
          </Box>
        </>
      ) : null}
    </Box>
  );
};
