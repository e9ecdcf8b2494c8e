import { useEffect, useState } from 'react';
import { Box, Card, CardContent, MenuItem, TextField, Typography } from '@mui/material';
import { Title } from 'react-admin';
import { api, query } from '../api';
import { can } from '../authProvider';
import { maxDecimal, permille } from '../decimal';
import { ApiProblem, Money, useSession } from '../ui';

type Bucket = { period: string; amount: string; count: number };

const Chart = ({ title, type, range }: { title: string; type: 'DEPOSIT' | 'WITHDRAW'; range: string }) => {
  const [rows, setRows] = useState<Bucket[] | undefined>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    const params = { transactionType: type, dataRange: range, take: 30, page: 1, sortBy: 'amount', sortOrder: 'desc' };
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
        <ApiProblem error={error} />
        {rows?.length === 0 ? <Typography>Nothing completed yet.</Typography> : null}
        <Box component="ul" sx={{ listStyle: 'none', p: 0 }} aria-label={`${title} per period`}>
          {rows?.map((r) => (
            <li key={r.period} style={{ display: 'grid', gridTemplateColumns: '9em 1fr 12em', alignItems: 'center', gap: 8 }}>
              <span>{r.period.slice(0, 16).replace('T', ' ')}</span>
              <span
                aria-hidden
                style={{
                  background: type === 'DEPOSIT' ? '#2e7d32' : '#c62828',
                  height: 12,
                  width: `${Math.max(1, permille(r.amount, max)) / 10}%`,
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
              {r.user?.username}: <Money amount={r.payout} currency={r.currencyId} /> (<Money amount={r.usdPayout} currency="USD" />, ×
              {r.multiplier})
            </li>
          ))}
        </ul>
      </CardContent>
    </Card>
  );
};

export const Dashboard = () => {
  const me = useSession();
  const [range, setRange] = useState('DAILY');
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
          <TextField select size="small" label="Period" value={range} onChange={(e) => setRange(e.target.value)} sx={{ width: 200 }}>
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
