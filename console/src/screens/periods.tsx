import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { Box, Button, Link, Table, TableBody, TableCell, TableRow, Typography } from '@mui/material';
import { Title } from 'react-admin';
import { useNavigate, useParams } from 'react-router-dom';
import { api } from '../api';
import { can } from '../authProvider';
import { ApiProblem, CommandButton, Grid, Money, Time, useSession } from '../ui';
import { ClosePreview } from './finance';

type ClosedSummary = { period: string; start: string; end: string; closedAt: string; closedBy: number; sealed: boolean };
type PeriodsView = { timeZone: string; unit: 'month' | 'day'; nextToClose: string | null; closed: ClosedSummary[] };
type Report = {
  period: string;
  previous: string | null;
  timeZone: string;
  unit: 'month' | 'day';
  start: string;
  end: string;
  position: string;
  closedAt: string;
  closedBy: number;
  accounts: number;
  trialBalance: { currencyId: string; total: string }[];
  liability: { currencyId: string; playerBalances: string; withdrawalsHeld: string; openBetStakes: string; total: string }[];
  movements: { kind: string; currencyId: string; players: string; house: string; legs: number }[];
  lateItems: {
    eventId: string;
    type: string;
    streamId: string;
    revision: number;
    businessPeriod: string;
    businessAt: string;
    recordedAt: string;
  }[];
};
type ClosedPeriod = { period: string; report: Report; sha256: string | null; sealed: boolean; writtenAt: string; balances: number };
type BalancesPage = {
  period: string;
  total: number;
  page: number;
  limit: number;
  balances: { account: string; currencyId: string; balance: string }[];
};

/** The admin who closed, by id, linking to their user page. */
const AdminLink = ({ id }: { id: number }) => <Link href={`#/users/${id}/show`}>admin #{id}</Link>;

const closeMeaning = (period: string) => (
  <>
    <Typography component="span" sx={{ display: 'block', mb: 1 }}>
      Close the books for {period}? Its closing report and closing balances are written once and sealed.
    </Typography>
    <Typography component="span" sx={{ display: 'block', mb: 1 }}>
      Nothing posts into {period} afterwards: a money event that arrives later with a business time in {period} is booked in the next open
      period, keeps its date, and is listed there as a late item.
    </Typography>
    <Typography component="span" sx={{ display: 'block' }}>
      A closed period never reopens.
    </Typography>
    <ClosePreview period={period} />
  </>
);

/** The books' periods: the calendar, the closed periods and the next one to close (a SuperAdmin closes it, after confirming). */
export const PeriodsPage = () => {
  const me = useSession();
  const navigate = useNavigate();
  const [view, setView] = useState<PeriodsView | undefined>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    api<PeriodsView>('GET', '/ledger/periods').then(
      (a) => setView(a.json),
      (e: unknown) => setError(e),
    );
  }, []);
  return (
    <Box sx={{ p: 2 }}>
      <Title title="Periods" />
      <Typography variant="h5" component="h1">
        Periods
      </Typography>
      <ApiProblem error={error} />
      {view ? (
        <>
          <Typography sx={{ my: 1 }}>
            The books close by calendar {view.unit}, in the time zone <strong>{view.timeZone}</strong>; a period&apos;s bounds are business
            time. Closes go in order, each once.
          </Typography>
          <Box component="section" aria-label="Next period to close" sx={{ my: 2 }}>
            <Typography variant="h6" component="h2">
              Next period to close
            </Typography>
            {view.nextToClose ? (
              <Box sx={{ display: 'flex', alignItems: 'center', gap: 2 }}>
                <Typography>{view.nextToClose}</Typography>
                {can(me, 'superadmin') ? (
                  <CommandButton
                    label={`Close ${view.nextToClose}`}
                    color="error"
                    confirm={closeMeaning(view.nextToClose)}
                    run={() => api('POST', `/ledger/periods/${encodeURIComponent(view.nextToClose!)}/close`)}
                    done={() => navigate(`/periods/${view.nextToClose}`)}
                  />
                ) : null}
              </Box>
            ) : (
              <Typography>Nothing is booked in an open period yet.</Typography>
            )}
          </Box>
          <Grid
            name="Closed periods"
            head={['Period', 'Start', 'End', 'Closed at', 'Closed by', 'Seal', 'Report']}
            empty="No period is closed yet."
            rows={[...view.closed].reverse().map((c) => [
              c.period,
              <Time key="s" at={c.start} />,
              <Time key="e" at={c.end} />,
              <Time key="c" at={c.closedAt} />,
              <AdminLink key="a" id={c.closedBy} />,
              c.sealed ? 'Sealed' : 'Not sealed',
              <Link key="r" href={`#/periods/${c.period}`}>
                Report of {c.period}
              </Link>,
            ])}
          />
        </>
      ) : null}
    </Box>
  );
};

const PAGE = 25;

/** A closed period's closing balances, a page at a time. */
const ClosingBalances = ({ period, total }: { period: string; total: number }) => {
  const [page, setPage] = useState(1);
  const [rows, setRows] = useState<BalancesPage | undefined>();
  const [error, setError] = useState<unknown>();
  const load = useCallback(
    (p: number) =>
      api<BalancesPage>('GET', `/ledger/periods/${encodeURIComponent(period)}/balances?page=${p}&limit=${PAGE}`).then(
        (a) => {
          setRows(a.json);
          setPage(p);
        },
        (e: unknown) => setError(e),
      ),
    [period],
  );
  useEffect(() => {
    void load(1);
  }, [load]);
  const count = rows?.total ?? total;
  const first = count === 0 ? 0 : (page - 1) * PAGE + 1;
  const last = Math.min(page * PAGE, count);
  return (
    <>
      <ApiProblem error={error} />
      <Grid
        name="Closing balances"
        head={['Account', 'Currency', 'Closing balance']}
        empty="No closing balance."
        rows={(rows?.balances ?? []).map((b) => [b.account, b.currencyId, <Money key="m" amount={b.balance} currency={b.currencyId} />])}
      />
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 2 }}>
        <Typography>
          {first}-{last} of {count}
        </Typography>
        <Button size="small" disabled={page <= 1} onClick={() => void load(page - 1)}>
          Previous page
        </Button>
        <Button size="small" disabled={last >= count} onClick={() => void load(page + 1)}>
          Next page
        </Button>
      </Box>
    </>
  );
};

/** The sealed closing report of a period: trial balance, liability, movements by kind, late items, digest and seal. */
export const PeriodReport = () => {
  const { period = '' } = useParams();
  const [closed, setClosed] = useState<ClosedPeriod | undefined>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    api<ClosedPeriod>('GET', `/ledger/periods/${encodeURIComponent(period)}/report`).then(
      (a) => setClosed(a.json),
      (e: unknown) => setError(e),
    );
  }, [period]);
  const r = closed?.report;
  return (
    <Box sx={{ p: 2 }}>
      <Title title={`Period ${period}`} />
      <Typography variant="h5" component="h1">
        Closing report of {period}
      </Typography>
      <Link href="#/periods">All periods</Link>
      <ApiProblem error={error} />
      {closed && r ? (
        <>
          <Table size="small" aria-label="Close and seal" sx={{ maxWidth: 1100, my: 2 }}>
            <TableBody>
              {(
                [
                  ['Period', `${r.period} (${r.unit} in ${r.timeZone})`],
                  ['Business time from', <Time key="s" at={r.start} />],
                  ['Business time to (exclusive)', <Time key="e" at={r.end} />],
                  ['Closed at', <Time key="c" at={r.closedAt} />],
                  ['Closed by', <AdminLink key="a" id={r.closedBy} />],
                  ['Position of the close', r.position],
                  ['Previous period', r.previous ?? 'none'],
                  ['Accounts', String(r.accounts)],
                  ['SHA-256', <code key="d">{closed.sha256 ?? 'not yet written'}</code>],
                  ['Seal', closed.sealed ? 'Sealed (HMAC with the ledger seal key)' : 'Not sealed (no seal key configured)'],
                ] as [string, ReactNode][]
              ).map(([k, v]) => (
                <TableRow key={k}>
                  <TableCell component="th" scope="row">
                    {k}
                  </TableCell>
                  <TableCell>{v}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
          <Grid
            name="Trial balance"
            head={['Currency', 'Sum of every account']}
            empty="No account holds anything."
            rows={r.trialBalance.map((t) => [t.currencyId, <Money key="t" amount={t.total} currency={t.currencyId} />])}
          />
          <Grid
            name="Player-funds liability"
            head={['Currency', 'Player balances', 'Withdrawals held', 'Stakes of open bets', 'Total']}
            empty="No player funds."
            rows={r.liability.map((l) => [
              l.currencyId,
              <Money key="p" amount={l.playerBalances} currency={l.currencyId} />,
              <Money key="w" amount={l.withdrawalsHeld} currency={l.currencyId} />,
              <Money key="o" amount={l.openBetStakes} currency={l.currencyId} />,
              <Money key="t" amount={l.total} currency={l.currencyId} />,
            ])}
          />
          <Grid
            name="Movements by kind"
            head={['Kind', 'Currency', 'Players', 'House', 'Legs']}
            empty="No movement in this period."
            rows={r.movements.map((m) => [
              m.kind,
              m.currencyId,
              <Money key="p" amount={m.players} currency={m.currencyId} />,
              <Money key="h" amount={m.house} currency={m.currencyId} />,
              String(m.legs),
            ])}
          />
          <Grid
            name="Late items"
            head={['Event', 'Type', 'Stream', 'Dated in', 'Business time', 'Recorded at']}
            empty="No late item: nothing dated in a closed period was booked here."
            rows={r.lateItems.map((l) => [
              l.eventId,
              l.type,
              `${l.streamId} #${l.revision}`,
              l.businessPeriod,
              <Time key="b" at={l.businessAt} />,
              <Time key="r" at={l.recordedAt} />,
            ])}
          />
          <ClosingBalances period={period} total={closed.balances} />
        </>
      ) : null}
    </Box>
  );
};
