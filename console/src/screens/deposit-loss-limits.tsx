import { useEffect, useState } from 'react';
import { Box, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import { SelectInput, TextInput, type RaRecord } from 'react-admin';
import { api } from '../api';
import { Allowed, ApiProblem, CommandForm, Money, Time } from '../ui';

type Limit = {
  kind: 'deposit' | 'loss';
  window: '24h' | '7d' | '30d';
  limit: string | null;
  pending: { limit: string | null; effectiveAt: string } | null;
  updatedAt: string | null;
};
const KINDS = [
  { id: 'deposit', name: 'Deposit limit' },
  { id: 'loss', name: 'Loss limit' },
];
const WINDOWS = [
  { id: '24h', name: '24 hours' },
  { id: '7d', name: '7 days' },
  { id: '30d', name: '30 days' },
];
const nameOf = (list: { id: string; name: string }[], id: string) => list.find((x) => x.id === id)?.name ?? id;

/**
 * A player's deposit and loss limits (docs/compliance.md): each one in force, and a raise or removal still waiting out
 * its 24 hours with the time it applies. Setting a lower one applies at once; an empty limit asks for its removal.
 */
export const DepositLossLimits = ({ user, settle }: { user: RaRecord; settle: () => void }) => {
  const [got, setGot] = useState<{ data?: { limits: Limit[] }; error?: unknown }>({});
  const [tick, setTick] = useState(0);
  useEffect(() => {
    api<{ limits: Limit[] }>('GET', `/user-limits/deposit-loss-limits/${String(user.id)}`).then(
      (a) => setGot({ data: a.json }),
      (error: unknown) => setGot({ error }),
    );
  }, [user.id, tick]);
  const done = () => {
    setTick((t) => t + 1);
    settle();
  };
  return (
    <Box component="section" sx={{ my: 2 }}>
      <Typography variant="h6" component="h2">
        Deposit and loss limits
      </Typography>
      <ApiProblem error={got.error} />
      {got.data ? (
        <Table size="small" aria-label="Deposit and loss limits">
          <TableHead>
            <TableRow>
              <TableCell>Limit</TableCell>
              <TableCell>Window</TableCell>
              <TableCell>In force</TableCell>
              <TableCell>Pending</TableCell>
              <TableCell>Updated</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {got.data.limits.map((l) => (
              <TableRow key={`${l.kind}-${l.window}`} data-limit={`${l.kind}-${l.window}`}>
                <TableCell component="th" scope="row">
                  {nameOf(KINDS, l.kind)}
                </TableCell>
                <TableCell>{nameOf(WINDOWS, l.window)}</TableCell>
                <TableCell>{l.limit === null ? 'None' : <Money amount={l.limit} currency="USD" />}</TableCell>
                <TableCell>
                  {l.pending ? (
                    <>
                      {l.pending.limit === null ? 'Removal' : <Money amount={l.pending.limit} currency="USD" />} from{' '}
                      <Time at={l.pending.effectiveAt} />
                    </>
                  ) : (
                    '—'
                  )}
                </TableCell>
                <TableCell>{l.updatedAt ? <Time at={l.updatedAt} /> : '—'}</TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      ) : null}
      <Allowed permission="user-limit.edit">
        <CommandForm
          title="Deposit or loss limit"
          label="Set limit"
          onDone={done}
          defaultValues={{ kind: 'loss', window: '24h' }}
          confirm={(v) =>
            v.limit
              ? `Set the ${nameOf(WINDOWS, String(v.window))} ${String(v.kind)} limit of ${String(user.username)} to ${String(v.limit)} USD?`
              : `Remove the ${nameOf(WINDOWS, String(v.window))} ${String(v.kind)} limit of ${String(user.username)} (after 24 hours)?`
          }
          submit={(v) =>
            api('POST', '/user-limits/deposit-loss-limits', {
              userId: user.id,
              kind: v.kind,
              window: v.window,
              limit: v.limit ? String(v.limit) : null,
            })
          }
        >
          <SelectInput source="kind" label="Limit" choices={KINDS} />
          <SelectInput source="window" label="Window" choices={WINDOWS} />
          <TextInput source="limit" label="Limit (USD, empty to remove)" />
        </CommandForm>
      </Allowed>
    </Box>
  );
};
