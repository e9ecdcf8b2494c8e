import { useState } from 'react';
import { Box, Button, Chip, TextField as MuiTextField, Typography } from '@mui/material';
import { Confirm, useListContext, useNotify, useRecordContext, type RaRecord } from 'react-admin';
import { api, ApiError } from '../api';
import { can } from '../authProvider';
import { useSettle } from '../refresh';
import { Money, useSession } from '../ui';

/** A deposit's hold: HELD (past the deposit limit, not playable), then RELEASED or RETURNED by an admin. */
export const HoldMark = () => {
  const record = useRecordContext();
  const hold = record?.hold as string | null | undefined;
  if (!hold) return null;
  return <Chip size="small" label={hold} color={hold === 'HELD' ? 'error' : 'default'} variant="outlined" />;
};

type Decision = 'release' | 'return';
const WORDS = {
  release: { label: 'Release', color: 'success', done: "Released: the deposit is in the player's balance" },
  return: { label: 'Return', color: 'error', done: 'Returned: the deposit goes back to its payer' },
} as const;

/** Release or return one held deposit: the confirmation shows the exact amount, currency and player and asks for the reason. */
const DecisionButton = ({ record, decision, done }: { record: RaRecord; decision: Decision; done: () => void }) => {
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | undefined>();
  const notify = useNotify();
  const words = WORDS[decision];
  const player = (record.user as { username?: string } | null)?.username ?? `user #${String(record.userId)}`;
  const send = async () => {
    try {
      await api('POST', `/deposit/${encodeURIComponent(String(record.id))}/${decision}`, { reason });
      setOpen(false);
      notify(words.done, { type: 'success' });
      done();
    } catch (e) {
      const field = e instanceof ApiError ? e.body.details?.find((d) => d.field.endsWith('reason')) : undefined;
      setError(field ? field.message : e instanceof ApiError ? `${e.body.code}: ${e.body.message}` : String(e));
    }
  };
  const amount = <Money exact amount={record.amount as string} currency={record.currencyId as string} />;
  return (
    <>
      <Button size="small" variant="outlined" color={words.color} onClick={() => setOpen(true)}>
        {words.label}
      </Button>
      <Confirm
        isOpen={open}
        title={`${words.label} held deposit ${String(record.id)}`}
        confirm={words.label}
        onConfirm={() => void send()}
        onClose={() => setOpen(false)}
        content={
          <Box>
            <Typography>
              {decision === 'release' ? (
                <>
                  Credit {amount} ({String(record.currencyId)}) to {player}&apos;s playable balance. The deposit limit is not checked again.
                </>
              ) : (
                <>
                  Return {amount} ({String(record.currencyId)}) deposited by {player} to its payer. The player&apos;s balance does not
                  change.
                </>
              )}
            </Typography>
            <MuiTextField
              label="Reason"
              value={reason}
              onChange={(e) => setReason(e.target.value)}
              fullWidth
              margin="normal"
              required
              error={Boolean(error)}
              helperText={error ?? ' '}
              slotProps={{ htmlInput: { 'aria-label': `${words.label} reason` } }}
            />
          </Box>
        }
      />
    </>
  );
};

/** Release and Return on a HELD deposit, for who holds `user-limit.edit` (the permission the routes require). */
export const HeldDepositActions = () => {
  const record = useRecordContext();
  const me = useSession();
  const { refetch } = useListContext();
  const settle = useSettle(refetch);
  if (!record || record.hold !== 'HELD' || !can(me, 'user-limit.edit')) return null;
  return (
    <Box sx={{ display: 'flex', gap: 1 }} onClick={(e) => e.stopPropagation()}>
      <DecisionButton record={record} decision="release" done={settle} />
      <DecisionButton record={record} decision="return" done={settle} />
    </Box>
  );
};
