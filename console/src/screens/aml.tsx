import { useCallback, useEffect, useState } from 'react';
import {
  Box,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Link,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  TextField,
  Typography,
} from '@mui/material';
import { Title, useNotify } from 'react-admin';
import { api, ApiError } from '../api';
import { can } from '../authProvider';
import { ApiProblem, CommandButton, Money, Time, useSession } from '../ui';

type Flag = {
  id: string;
  userId: number;
  kind: 'linked-transactions' | 'withdrawal-review';
  linkedUsd: string;
  thresholdUsd: string;
  windowHours: number;
  withdrawalId: string | null;
  status: 'OPEN' | 'CLEARED';
  assigneeUserId: number | null;
  note: string | null;
  raisedAt: string;
  clearedAt: string | null;
  clearedByUserId: number | null;
};
const KIND: Record<Flag['kind'], string> = { 'linked-transactions': 'Linked transactions', 'withdrawal-review': 'Withdrawal held' };

/** Clearing a flag needs a note: the dialog asks for it and sends it; an empty note is refused by the API. */
const ClearFlag = ({ flag, done }: { flag: Flag; done: () => void }) => {
  const [open, setOpen] = useState(false);
  const [note, setNote] = useState('');
  const notify = useNotify();
  const send = async () => {
    try {
      await api('POST', `/aml-flags/${encodeURIComponent(flag.id)}/clear`, { note });
      setOpen(false);
      notify('Clear flag: done', { type: 'success' });
      done();
    } catch (error) {
      notify(error instanceof ApiError ? `${error.body.code}: ${error.body.message}` : String(error), { type: 'error' });
    }
  };
  return (
    <>
      <Button size="small" variant="outlined" onClick={() => setOpen(true)}>
        Clear
      </Button>
      <Dialog open={open} onClose={() => setOpen(false)} aria-labelledby={`clear-${flag.id}`}>
        <DialogTitle id={`clear-${flag.id}`}>Clear the flag of user {flag.userId}</DialogTitle>
        <DialogContent>
          <TextField label="Note" value={note} onChange={(e) => setNote(e.target.value)} multiline minRows={2} fullWidth sx={{ mt: 1 }} />
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setOpen(false)}>Cancel</Button>
          <Button variant="contained" onClick={() => void send()}>
            Clear flag
          </Button>
        </DialogActions>
      </Dialog>
    </>
  );
};

/**
 * AML due-diligence flags (docs/compliance.md), newest first: open ones are assigned and cleared with a note; cleared
 * ones stay listed with their note (flags are never deleted). A withdrawal a flag holds is approvable once it is cleared.
 */
export const AmlPage = () => {
  const me = useSession();
  const [got, setGot] = useState<{ data?: Flag[]; error?: unknown }>({});
  const load = useCallback(() => {
    api<{ data: Flag[] }>('GET', '/aml-flags').then(
      (a) => setGot({ data: a.json.data }),
      (error: unknown) => setGot({ error }),
    );
  }, []);
  useEffect(load, [load]);
  const edit = can(me, 'kyc.edit');
  return (
    <Box sx={{ p: 2 }}>
      <Title title="AML flags" />
      <Typography variant="h5" component="h1">
        AML flags
      </Typography>
      <ApiProblem error={got.error} />
      {got.data && got.data.length === 0 ? <Typography>No flags.</Typography> : null}
      {got.data && got.data.length > 0 ? (
        <Table size="small" aria-label="AML flags">
          <TableHead>
            <TableRow>
              <TableCell>Raised</TableCell>
              <TableCell>User</TableCell>
              <TableCell>Reason</TableCell>
              <TableCell>Amount</TableCell>
              <TableCell>Status</TableCell>
              <TableCell>Assignee</TableCell>
              <TableCell>Note</TableCell>
              {edit ? <TableCell>Actions</TableCell> : null}
            </TableRow>
          </TableHead>
          <TableBody>
            {got.data.map((f) => (
              <TableRow key={f.id} data-flag={f.id}>
                <TableCell>
                  <Time at={f.raisedAt} />
                </TableCell>
                <TableCell>
                  <Link href={`#/users/${f.userId}/show`}>{f.userId}</Link>
                </TableCell>
                <TableCell>
                  {KIND[f.kind]}
                  {f.withdrawalId ? ` (${f.withdrawalId})` : ` (${f.windowHours} h)`}
                </TableCell>
                <TableCell>
                  <Money amount={f.linkedUsd} currency="USD" /> of <Money amount={f.thresholdUsd} currency="USD" />
                </TableCell>
                <TableCell>{f.status === 'OPEN' ? 'Open' : 'Cleared'}</TableCell>
                <TableCell>{f.assigneeUserId ?? '—'}</TableCell>
                <TableCell>{f.note ?? '—'}</TableCell>
                {edit ? (
                  <TableCell>
                    {f.status === 'OPEN' ? (
                      <Box sx={{ display: 'flex', gap: 1 }}>
                        <CommandButton
                          label="Assign to me"
                          run={() => api('POST', `/aml-flags/${encodeURIComponent(f.id)}/assign`, {})}
                          done={load}
                        />
                        <ClearFlag flag={f} done={load} />
                      </Box>
                    ) : null}
                  </TableCell>
                ) : null}
              </TableRow>
            ))}
          </TableBody>
        </Table>
      ) : null}
    </Box>
  );
};
