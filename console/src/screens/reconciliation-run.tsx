import { useCallback, useEffect, useState } from 'react';
import { Box, Button, Dialog, DialogActions, DialogContent, DialogTitle, MenuItem, TextField, Typography } from '@mui/material';
import { Title, useNotify } from 'react-admin';
import { useParams } from 'react-router-dom';
import { api, ApiError } from '../api';
import { can } from '../authProvider';
import { ApiProblem, Grid, Money, Time, useSession } from '../ui';
import { KINDS, type Item, type Run } from './reconciliation';

/** Resolve one break with a note: the dialog says what resolving does, then records the note (the ledger is not changed). */
const ResolveButton = ({ runId, item, done }: { runId: string; item: Item; done: () => void }) => {
  const [open, setOpen] = useState(false);
  const [note, setNote] = useState('');
  const notify = useNotify();
  const resolve = async () => {
    try {
      await api('POST', `/finance/reconciliations/${encodeURIComponent(runId)}/items/${item.itemNo}/resolve`, { note });
      notify(`Item ${item.itemNo} resolved`, { type: 'success' });
      setOpen(false);
      done();
    } catch (e) {
      notify(e instanceof ApiError ? `${e.body.code}: ${e.body.message}` : String(e), { type: 'error' });
    }
  };
  return (
    <>
      <Button size="small" variant="outlined" onClick={() => setOpen(true)}>
        Resolve item {item.itemNo}
      </Button>
      <Dialog open={open} onClose={() => setOpen(false)} aria-labelledby={`resolve-${item.itemNo}`}>
        <DialogTitle id={`resolve-${item.itemNo}`}>Resolve item {item.itemNo}</DialogTitle>
        <DialogContent>
          <Typography sx={{ mb: 2 }}>
            The break ({KINDS[item.kind]}) is marked resolved with your note and your name, once; the audit log records it. The ledger is
            not changed.
          </Typography>
          <TextField label="Note" value={note} onChange={(e) => setNote(e.target.value)} multiline minRows={2} fullWidth autoFocus />
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setOpen(false)}>Cancel</Button>
          <Button variant="contained" disabled={note.trim() === ''} onClick={() => void resolve()}>
            Confirm
          </Button>
        </DialogActions>
      </Dialog>
    </>
  );
};

/** One run: its totals per currency, direction and kind, and its items of a kind, each break resolvable with a note. */
export const ReconciliationRun = () => {
  const { id = '' } = useParams();
  const me = useSession();
  const [run, setRun] = useState<Run | undefined>();
  const [kind, setKind] = useState('breaks');
  const [items, setItems] = useState<{ total: number; items: Item[] } | undefined>();
  const [error, setError] = useState<unknown>();
  const load = useCallback(() => {
    const path = `/finance/reconciliations/${encodeURIComponent(id)}`;
    api<Run>('GET', path).then(
      (a) => setRun(a.json),
      (e: unknown) => setError(e),
    );
    api<{ total: number; items: Item[] }>('GET', `${path}/items?kind=${kind}&limit=200`).then(
      (a) => setItems(a.json),
      (e: unknown) => setError(e),
    );
  }, [id, kind]);
  useEffect(load, [load]);
  const manage = can(me, 'reconciliation.manage');
  return (
    <Box sx={{ p: 2 }}>
      <Title title="Reconciliation run" />
      <Typography variant="h5" component="h1">
        Reconciliation run {run?.fileName ?? id}
      </Typography>
      <ApiProblem error={error} />
      {run ? (
        <>
          <Typography sx={{ my: 1 }}>
            Provider {run.providerId}, business time <Time at={run.from} /> to <Time at={run.to} />; {run.lines} lines; {run.breaks} breaks,{' '}
            {run.unresolvedBreaks} unresolved. Uploaded <Time at={run.uploadedAt} /> by {run.uploadedBy.username || `#${run.uploadedBy.id}`}
            . Tolerance:{' '}
            {run.tolerances.length === 0 ? 'none (exact)' : run.tolerances.map((t) => `${t.tolerance} ${t.currencyId}`).join(', ')}.
          </Typography>
          <Typography sx={{ my: 1, wordBreak: 'break-all' }}>SHA-256 {run.sha256}</Typography>
          <Grid
            name="Totals per currency"
            head={['Currency', 'Direction', 'Kind', 'Items', 'Statement', 'Ledger']}
            empty="No items."
            rows={run.totals.map((t) => [
              t.currencyId,
              t.direction,
              KINDS[t.kind] ?? t.kind,
              t.items,
              <Money key="s" amount={t.statementAmount} currency={t.currencyId} />,
              <Money key="l" amount={t.ledgerAmount} currency={t.currencyId} />,
            ])}
          />
        </>
      ) : null}
      <TextField select label="Items shown" value={kind} onChange={(e) => setKind(e.target.value)} size="small" sx={{ minWidth: 240 }}>
        {Object.entries(KINDS).map(([k, label]) => (
          <MenuItem key={k} value={k}>
            {label}
          </MenuItem>
        ))}
      </TextField>
      {items ? (
        <Grid
          name={`Items: ${KINDS[kind]} (${items.total})`}
          head={['Item', 'Kind', 'Line', 'Reference', 'Statement', 'Ledger', 'Difference', 'Statuses', 'Detail', 'Resolution']}
          empty="No items of this kind."
          rows={items.items.map((i) => [
            i.itemNo,
            KINDS[i.kind] ?? i.kind,
            i.statement?.line ?? '—',
            i.statement?.reference ?? i.ledger?.ids.join(', ') ?? '—',
            i.statement ? <Money key="s" amount={i.statement.amount} currency={i.statement.currencyId} /> : '—',
            i.ledger ? <Money key="l" amount={i.ledger.amount} currency={i.ledger.currencyId} /> : '—',
            i.difference ?? '—',
            `${i.statement?.status ?? '—'} / ${i.ledger?.status ?? '—'}`,
            i.detail ?? '',
            i.resolution ? (
              `${i.resolution.note} (${i.resolution.resolvedBy.username || i.resolution.resolvedBy.id})`
            ) : i.kind !== 'matched' && manage && run ? (
              <ResolveButton key="r" runId={run.id} item={i} done={load} />
            ) : (
              ''
            ),
          ])}
        />
      ) : null}
    </Box>
  );
};
