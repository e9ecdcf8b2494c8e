import { useState } from 'react';
import Check from '@mui/icons-material/Check';
import ContentCopy from '@mui/icons-material/ContentCopy';
import { Box, Chip, IconButton, Stack, Table, TableBody, TableCell, TableRow, Typography } from '@mui/material';
import { useGetOne, useRecordContext, type RaRecord } from 'react-admin';
import { can } from '../authProvider';
import { Money, Time, useSession } from '../ui';
import { kycInWords, kycShort, type KycRecord } from './kyc';

/** A long id or address shortened to its ends, whole on hover, with a button that copies it whole. */
export const Short = ({ value, label }: { value: string | null | undefined; label: string }) => {
  const [copied, setCopied] = useState(false);
  if (!value) return <>—</>;
  const shown = value.length > 14 ? `${value.slice(0, 6)}…${value.slice(-4)}` : value;
  return (
    <Box component="span" sx={{ display: 'inline-flex', alignItems: 'center', whiteSpace: 'nowrap' }}>
      <span title={value} style={{ fontFamily: 'monospace' }}>
        {shown}
      </span>
      <IconButton
        size="small"
        aria-label={`Copy ${label}`}
        title={copied ? 'Copied' : `Copy ${label}`}
        onClick={(e) => {
          e.stopPropagation();
          void navigator.clipboard?.writeText(value).then(() => setCopied(true));
        }}
      >
        {copied ? <Check sx={{ fontSize: 14 }} /> : <ContentCopy sx={{ fontSize: 14 }} />}
      </IconButton>
    </Box>
  );
};

/** Whole days since an instant, as people say it ("today", "1 day", "3 days"). */
const ageOf = (iso: string | undefined): string => {
  if (!iso) return '—';
  const days = Math.floor((Date.now() - Date.parse(iso)) / 86_400_000);
  return days <= 0 ? 'today' : days === 1 ? '1 day' : `${days} days`;
};

type Player = RaRecord & {
  createdAt?: string;
  kyc?: KycRecord;
  usdBalance?: { total?: string };
  statsUsd?: { totalDeposits?: string; totalWithdraws?: string };
};

const flagsOf = (p: Player): string[] =>
  [
    p.isBanned ? 'banned' : '',
    p.canUseChat === false ? 'muted' : '',
    p.isTest ? 'test account' : '',
    p.isStaff ? 'staff' : '',
    p.isBot ? 'bot' : '',
    p.mfaEnabled ? '' : 'no two-factor',
  ].filter(Boolean);

/** The player behind a withdrawal (GET /user/{id}, cached per player for the page): what an approval decision needs. */
const usePlayer = (userId: unknown) => {
  const me = useSession();
  const allowed = can(me, 'user.view');
  const { data } = useGetOne<Player>('users', { id: userId as number }, { enabled: allowed && userId !== undefined, staleTime: 30_000 });
  return allowed ? data : undefined;
};

/** One line in the row: balance, deposited and withdrawn to date (USD), KYC, account age, flags. */
export const PlayerContextCell = (_props: { label?: string }) => {
  const record = useRecordContext();
  const player = usePlayer(record?.userId);
  if (!player) return <>—</>;
  const flags = flagsOf(player);
  return (
    <Box sx={{ fontSize: 13, lineHeight: 1.5, whiteSpace: 'nowrap' }}>
      <div>
        Balance <Money amount={player.usdBalance?.total} currency="USD" />
      </div>
      <div>
        In <Money amount={player.statsUsd?.totalDeposits} currency="USD" /> · out{' '}
        <Money amount={player.statsUsd?.totalWithdraws} currency="USD" />
      </div>
      <div>
        KYC {kycShort(player.kyc)} · {ageOf(player.createdAt)}
        {flags.length ? ` · ${flags.join(', ')}` : ''}
      </div>
    </Box>
  );
};

/** The expansion's player card: the same facts labelled, balances per currency, flags as chips. */
export const PlayerContextCard = ({ userId }: { userId: unknown }) => {
  const player = usePlayer(userId);
  if (!player) return null;
  const balances = (player.usdBalance as { currencies?: { currencyId: string; balance: string }[] } | undefined)?.currencies ?? [];
  const rows: [string, React.ReactNode][] = [
    ['Balance (USD)', <Money amount={player.usdBalance?.total} currency="USD" />],
    [
      'Balances',
      balances
        .map((b) => <Money key={b.currencyId} amount={b.balance} currency={b.currencyId} />)
        .reduce<React.ReactNode[]>((all, m, i) => (i ? [...all, ', ', m] : [m]), []),
    ],
    ['Deposited to date', <Money amount={player.statsUsd?.totalDeposits} currency="USD" />],
    ['Withdrawn to date', <Money amount={player.statsUsd?.totalWithdraws} currency="USD" />],
    ['KYC level', kycInWords(player.kyc)],
    [
      'Account age',
      <>
        {ageOf(player.createdAt)} (since <Time at={player.createdAt} />)
      </>,
    ],
  ];
  return (
    <Box component="section" aria-label="Player" sx={{ m: 1 }}>
      <Typography variant="subtitle1" component="h3">
        Player
      </Typography>
      <Stack direction="row" spacing={1} sx={{ my: 0.5 }}>
        {flagsOf(player).map((f) => (
          <Chip key={f} size="small" label={f} />
        ))}
      </Stack>
      <Table size="small" aria-label="Player context">
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
    </Box>
  );
};
