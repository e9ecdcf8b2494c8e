import { useState, type ReactElement, type ReactNode } from 'react';
import { Box, Chip, Link, Stack, Tab, Table, TableBody, TableCell, TableRow, Tabs, Typography } from '@mui/material';
import { Show, useRecordContext, useShowContext, type RaRecord, type SortPayload } from 'react-admin';
import { can } from '../authProvider';
import { useSettle } from '../refresh';
import { Allowed, ConsoleList, Money, Time, useSession } from '../ui';
import { AuditGrid, auditFilters } from './audit';
import { BetGrid, betFilters, DepositGrid, depositFilters, TipGrid, tipFilters, TransactionGrid, transactionFilters } from './money';
import {
  ApiKeys,
  Balances,
  BET_LIMIT_FIELDS,
  EXCLUSION_FIELDS,
  Extra,
  KeyValues,
  LimitRecord,
  Limits,
  MoneyActions,
  ProfileForm,
  RolesAndPermissions,
  Section,
  useFetched,
  UserActions,
} from './users';
import { WithdrawalGrid, withdrawalFilters } from './withdrawals';
import { DepositLossLimits } from './deposit-loss-limits';
import { KycForm, kycInWords, type KycRecord } from './kyc';

type Figure = readonly [key: string, label: string, kind: 'usd' | 'count' | 'percent' | 'time'];
/** The lifetime figures in plain words (the API's names, such as `ltv` or `ggr`, are on hover); money in USD. */
const LIFETIME: readonly Figure[] = [
  ['totalDeposits', 'Deposited', 'usd'],
  ['totalWithdraws', 'Withdrawn', 'usd'],
  ['ltv', 'Net deposits (deposited − withdrawn)', 'usd'],
  ['totalWagered', 'Wagered', 'usd'],
  ['totalPayouts', 'Won back (payouts)', 'usd'],
  ['ggr', 'Lost to the house (wagered − payouts)', 'usd'],
  ['totalBets', 'Settled bets', 'count'],
  ['avgBet', 'Average bet', 'usd'],
  ['rtp', 'Return to player', 'percent'],
  ['winRate', 'Winning bets', 'percent'],
  ['firstDepositAt', 'First deposit', 'time'],
  ['lastDepositAt', 'Last deposit', 'time'],
  ['lastWageredAt', 'Last bet', 'time'],
];

const show = (kind: Figure[2], v: unknown): ReactNode => {
  if (v === null || v === undefined) return '—';
  if (kind === 'usd') return <Money amount={String(v)} currency="USD" />;
  if (kind === 'time') return <Time at={String(v)} />;
  return kind === 'percent' ? `${String(v)} %` : String(v);
};

/** One table of the lifetime figures: the record's USD stats, with the full stats' averages and rates for a SuperAdmin. */
const Lifetime = ({ user }: { user: RaRecord }) => {
  const me = useSession();
  const full = useFetched<Record<string, unknown>>(can(me, 'superadmin') ? `/user/${String(user.id)}/full/stats` : undefined);
  const figures = { ...(user.statsUsd as Record<string, unknown> | undefined), ...full.data };
  return (
    <Table size="small" aria-label="Lifetime figures">
      <TableBody>
        {LIFETIME.filter(([key]) => key in figures).map(([key, label, kind]) => (
          <TableRow key={key}>
            <TableCell component="th" scope="row" title={key}>
              {label}
            </TableCell>
            <TableCell>{show(kind, figures[key])}</TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
};

const FLAG_LABELS: readonly (readonly [string, string])[] = [
  ['isStaff', 'Staff'],
  ['isTest', 'Test account'],
  ['isBot', 'Bot'],
  ['isStreamer', 'Streamer'],
  ['isVideoCreator', 'Video creator'],
  ['isPrivate', 'Private profile'],
  ['mfaEnabled', 'Two-factor on'],
  ['emailVerified', 'E-mail verified'],
];

const Flags = ({ user }: { user: RaRecord }) => (
  <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap', my: 1 }} aria-label="Flags" role="list">
    {user.isBanned ? <Chip role="listitem" color="error" label={`Banned: ${String(user.banReason ?? '')}`} /> : null}
    {user.canUseChat === false ? <Chip role="listitem" color="warning" label="Muted in chat" /> : null}
    {FLAG_LABELS.filter(([k]) => user[k] === true).map(([k, label]) => (
      <Chip role="listitem" key={k} label={label} />
    ))}
  </Stack>
);

const Facts = ({ user }: { user: RaRecord }) => {
  const rows: [string, ReactNode][] = [
    ['E-mail', String(user.email ?? '—')],
    ['Country', String(user.country ?? '—')],
    ['VIP level', String(user.vipLevel ?? 0)],
    ['KYC level', kycInWords(user.kyc as KycRecord)],
    ['Registered', <Time at={user.createdAt as string} />],
    ['Last sign-in', <Time at={user.lastLoginAt as string | null} />],
  ];
  return (
    <Table size="small" aria-label="Account">
      <TableBody>
        {rows.map(([k, v]) => (
          <TableRow key={k}>
            <TableCell component="th" scope="row">
              {k}
            </TableCell>
            <TableCell>{v}</TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
};

/** The limits in force, read only (the Limits tab changes them). */
const LimitsInForce = ({ user }: { user: RaRecord }) => {
  const exclusion = useFetched<Record<string, unknown>>(`/user-limits/user-exclusion/${String(user.id)}`);
  const gambling = useFetched<Record<string, unknown>>(`/user-limits/gambling-limits/${String(user.id)}`);
  return (
    <>
      <LimitRecord title="Self-exclusion" got={exclusion} fields={EXCLUSION_FIELDS.slice(0, 2)} />
      <LimitRecord title="Bet limit" got={gambling} fields={BET_LIMIT_FIELDS.slice(0, 2)} />
    </>
  );
};

const Summary = ({ user, settle }: { user: RaRecord; settle: () => void }) => {
  const me = useSession();
  return (
    <>
      <Box sx={{ display: 'grid', gridTemplateColumns: { md: 'minmax(0, 1fr) minmax(0, 1fr)' }, columnGap: 4 }}>
        <Section title="Account">
          <Flags user={user} />
          <Facts user={user} />
          <Allowed permission="kyc.edit">
            <KycForm user={user} settle={settle} />
          </Allowed>
        </Section>
        <Section title="Balances">
          <Balances user={user} />
          <Allowed permission="user.transactions.view">
            <Link href={`#/finance/statement/${String(user.id)}`}>Account statement</Link>
          </Allowed>
        </Section>
        <Section title="Lifetime (USD)">
          <Lifetime user={user} />
        </Section>
        {can(me, 'user-limit.view') ? (
          <Section title="Limits in force">
            <LimitsInForce user={user} />
          </Section>
        ) : null}
      </Box>
      <MoneyActions user={user} settle={settle} />
    </>
  );
};

const NEWEST: SortPayload = { field: 'createdAt', order: 'DESC' };
/** One of the player's lists: the list screen's own filters and columns, always filtered to this player. */
const PlayerList = ({
  resource,
  filter,
  filters,
  children,
}: {
  resource: string;
  filter: Record<string, unknown>;
  filters: ReactElement[];
  children: ReactElement;
}) => (
  <ConsoleList
    resource={resource}
    filter={filter}
    filters={filters}
    sort={NEWEST}
    disableSyncWithLocation
    storeKey={false}
    title={false}
    actions={false}
  >
    {children}
  </ConsoleList>
);

const Notes = ({ user }: { user: RaRecord }) => {
  const notes = (user.notes as { id?: unknown; text?: string; createdAt?: string }[] | undefined) ?? [];
  if (notes.length === 0) return <Typography sx={{ p: 2 }}>No notes on this player: the platform keeps no notes store yet.</Typography>;
  return <KeyValues value={Object.fromEntries(notes.map((n, i) => [String(n.id ?? i + 1), n.text ?? JSON.stringify(n)]))} />;
};

type PlayerTab = Readonly<{ name: string; permission?: string; body: (user: RaRecord, settle: () => void) => ReactNode }>;
const TABS: readonly PlayerTab[] = [
  { name: 'Summary', body: (u, settle) => <Summary user={u} settle={settle} /> },
  {
    name: 'Bets',
    permission: 'user.bets.view',
    body: (u) => (
      <PlayerList resource="bets" filter={{ userId: u.id }} filters={betFilters}>
        <BetGrid withUser={false} />
      </PlayerList>
    ),
  },
  {
    name: 'Deposits',
    permission: 'deposits.view',
    body: (u) => (
      <PlayerList resource="deposits" filter={{ userId: u.id }} filters={depositFilters}>
        <DepositGrid withUser={false} />
      </PlayerList>
    ),
  },
  {
    name: 'Withdrawals',
    permission: 'withdrawals.view',
    body: (u) => (
      <PlayerList resource="withdrawals" filter={{ userId: u.id }} filters={withdrawalFilters}>
        <WithdrawalGrid withUser={false} />
      </PlayerList>
    ),
  },
  {
    name: 'Transactions',
    permission: 'superadmin',
    body: (u) => (
      <PlayerList resource="transactions" filter={{ userId: u.id }} filters={transactionFilters}>
        <TransactionGrid withUser={false} />
      </PlayerList>
    ),
  },
  {
    name: 'Tips',
    permission: 'admin-tips.view',
    body: (u) => (
      <PlayerList resource="admin-tips" filter={{ recipientUserId: u.id }} filters={tipFilters}>
        <TipGrid />
      </PlayerList>
    ),
  },
  { name: 'Notes', body: (u) => <Notes user={u} /> },
  {
    name: 'Limits',
    permission: 'user-limit.view',
    body: (u, settle) => (
      <>
        <Limits user={u} settle={settle} />
        <DepositLossLimits user={u} settle={settle} />
      </>
    ),
  },
  {
    name: 'Audit',
    permission: 'admin-users.view-admin-audit',
    body: (u) => (
      <PlayerList resource="admin-audit" filter={{ userId: u.id }} filters={auditFilters}>
        <AuditGrid />
      </PlayerList>
    ),
  },
  {
    name: 'Settings',
    body: (u, settle) => (
      <>
        <Allowed permission="user.edit">
          <ProfileForm user={u} settle={settle} />
        </Allowed>
        <RolesAndPermissions user={u} settle={settle} />
        <Allowed permission="api-key.view">
          <ApiKeys user={u} />
        </Allowed>
        <Allowed permission="superadmin">
          <Extra title="Registration" path={`/registration-info/${String(u.id)}`} />
        </Allowed>
      </>
    ),
  },
];

/** The player page: who they are at a glance, then each of their lists with its own filters, one tab each. */
const PlayerDetail = () => {
  const user = useRecordContext();
  const { refetch } = useShowContext();
  const settle = useSettle(refetch);
  const me = useSession();
  const [tab, setTab] = useState(0);
  if (!user) return null;
  const tabs = TABS.filter((t) => !t.permission || can(me, t.permission));
  const current = tabs[Math.min(tab, tabs.length - 1)]!;
  return (
    <Box sx={{ p: 2 }}>
      <Typography variant="h5" component="h1">
        {String(user.username ?? user.email)} <small>#{String(user.id)}</small>
      </Typography>
      <UserActions user={user} settle={settle} />
      <Tabs value={tabs.indexOf(current)} onChange={(_e, v: number) => setTab(v)} variant="scrollable" aria-label="Player">
        {tabs.map((t, i) => (
          <Tab key={t.name} label={t.name} id={`player-tab-${i}`} aria-controls={`player-panel-${i}`} />
        ))}
      </Tabs>
      <Box
        role="tabpanel"
        id={`player-panel-${tabs.indexOf(current)}`}
        aria-labelledby={`player-tab-${tabs.indexOf(current)}`}
        sx={{ pt: 1 }}
      >
        {current.body(user, settle)}
      </Box>
    </Box>
  );
};

export const UserShow = () => (
  <Show component="div" actions={false} title="Player">
    <PlayerDetail />
  </Show>
);
