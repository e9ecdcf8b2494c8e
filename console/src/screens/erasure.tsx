import { useState } from 'react';
import {
  Alert,
  Button,
  Checkbox,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  FormControlLabel,
  TextField,
} from '@mui/material';
import { useNotify, type RaRecord } from 'react-admin';
import { api, ApiError } from '../api';
import { can } from '../authProvider';
import { useSession } from '../ui';

/** What the admin types to confirm: names the user, so the wrong page cannot be erased by habit. */
const phraseOf = (id: unknown): string => `ERASE ${String(id)}`;

/**
 * Erase a person (SuperAdmin): POST /user/{id}/erase with a reason, after the typed confirmation. While the retention rule
 * holds the API answers 409 RETENTION_HOLDS; the dialog shows it and lets the SuperAdmin force the erasure (audited).
 */
export const EraseAction = ({ user, done }: { user: RaRecord; done: () => void }) => {
  const me = useSession();
  const notify = useNotify();
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const [force, setForce] = useState(false);
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<ApiError | undefined>();
  if (!can(me, 'superadmin') || user.username === '[erased]') return null;
  const phrase = phraseOf(user.id);
  const ready = reason.trim().length >= 3 && typed === phrase && !busy;
  const close = () => {
    setOpen(false);
    setTyped('');
    setProblem(undefined);
  };
  const erase = async () => {
    setBusy(true);
    setProblem(undefined);
    try {
      await api('POST', `/user/${String(user.id)}/erase`, { reason: reason.trim(), force });
      notify('Personal data erased', { type: 'success' });
      close();
      done();
    } catch (error) {
      if (error instanceof ApiError) setProblem(error);
      else notify(String(error), { type: 'error' });
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <Button size="small" variant="outlined" color="error" onClick={() => setOpen(true)}>
        Erase personal data
      </Button>
      <Dialog open={open} onClose={close} aria-labelledby="erase-title">
        <DialogTitle id="erase-title">Erase personal data of #{String(user.id)}</DialogTitle>
        <DialogContent>
          <DialogContentText>
            The e-mail, username, IP addresses, user agents, country and profile become unreadable for good. Money history and balances
            stay. This cannot be undone.
          </DialogContentText>
          {problem ? (
            <Alert severity="error" role="alert" sx={{ my: 1 }}>
              {problem.body.code}: {problem.body.message}
            </Alert>
          ) : null}
          <TextField
            fullWidth
            margin="dense"
            label="Reason (request reference; no personal data)"
            value={reason}
            onChange={(e) => setReason(e.target.value)}
          />
          <FormControlLabel
            control={<Checkbox checked={force} onChange={(e) => setForce(e.target.checked)} />}
            label="Force: erase although the retention period still holds"
          />
          <TextField
            fullWidth
            margin="dense"
            label={`Type ${phrase} to confirm`}
            value={typed}
            onChange={(e) => setTyped(e.target.value)}
            slotProps={{ htmlInput: { autoComplete: 'off', spellCheck: false } }}
          />
        </DialogContent>
        <DialogActions>
          <Button onClick={close}>Cancel</Button>
          <Button color="error" variant="contained" disabled={!ready} onClick={() => void erase()}>
            Erase
          </Button>
        </DialogActions>
      </Dialog>
    </>
  );
};
