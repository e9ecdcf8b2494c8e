import { useEffect, useState } from 'react';
import { Box, Button, TextField as MuiTextField, Typography } from '@mui/material';
import {
  Confirm,
  Datagrid,
  FunctionField,
  SelectInput,
  TextField,
  useListContext,
  useNotify,
  useRecordContext,
  type RaRecord,
} from 'react-admin';
import { api, ApiError, query } from '../api';
import { can } from '../authProvider';
import { useSettle } from '../refresh';
import { formatTime } from '../format';
import { PlayerContextCard, PlayerContextCell, Short } from './withdrawal-context';
import { CommandButton, ConsoleList, Money, MoneyField, Time, TimeField, UserColumn, userFilter, useSession } from '../ui';

const STATUSES = ['PENDING', 'FAILED', 'CONFIRMED', 'COMPLETE', 'DENIED'].map((id) => ({ id, name: id }));
export const withdrawalFilters = [<SelectInput key="s" source="status" choices={STATUSES} alwaysOn emptyText="Any status" />];

const RejectButton = ({ record, done }: { record: RaRecord; done: () => void }) => {
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | undefined>();
  const notify = useNotify();
  const reject = async () => {
    try {
      await api('POST', '/withdraw/reject', { id: record.id, rejectReason: reason });
      setOpen(false);
      notify("Rejected: the funds are back in the user's wallet", { type: 'success' });
      done();
    } catch (e) {
      const field = e instanceof ApiError ? e.body.details?.find((d) => d.field.endsWith('rejectReason')) : undefined;
      setError(field ? field.message : e instanceof ApiError ? `${e.body.code}: ${e.body.message}` : String(e));
    }
  };
  return (
    <>
      <Button size="small" variant="outlined" color="error" onClick={() => setOpen(true)}>
        Reject
      </Button>
      <Confirm
        isOpen={open}
        title={`Reject withdrawal ${String(record.id)}`}
        confirm="Reject"
        onConfirm={() => void reject()}
        onClose={() => setOpen(false)}
        content={
          <Box>
            <Typography>
              Refund <Money exact amount={record.amount as string} currency={record.currencyId as string} /> to{' '}
              {(record.user as { username?: string })?.username}.
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
              slotProps={{ htmlInput: { 'aria-label': 'Reject reason' } }}
            />
          </Box>
        }
      />
    </>
  );
};

/** Approve / reject / retry, each only for who holds its permission and only in a state where the ledger allows it. */
const Actions = () => {
  const record = useRecordContext();
  const me = useSession();
  const { refetch } = useListContext();
  const settle = useSettle(refetch);
  if (!record) return null;
  const pending = record.status === 'PENDING';
  const failed = record.status === 'FAILED';
  const amount = <Money exact amount={record.amount as string} currency={record.currencyId as string} />;
  return (
    <Box sx={{ display: 'flex', gap: 1 }} onClick={(e) => e.stopPropagation()}>
      {pending && can(me, 'withdrawals.approve') ? (
        <CommandButton
          label="Approve"
          color="success"
          done={settle}
          run={() => api('POST', '/withdraw/approve', { id: record.id })}
          confirm={
            <>
              Approve sending {amount} to {String(record.recipientAddress)}?
            </>
          }
        />
      ) : null}
      {(pending || failed) && can(me, 'withdrawals.reject') ? <RejectButton record={record} done={settle} /> : null}
      {failed && can(me, 'withdrawals.retry') ? (
        <CommandButton
          label="Retry"
          done={settle}
          run={() => api('POST', '/withdraw/retry', { id: record.id })}
          confirm={<>Retry sending {amount}?</>}
        />
      ) : null}
    </Box>
  );
};

type AuditEntry = { id: string; action: string; createdAt: string; admin: { username: string }; details: Record<string, unknown> };

/** The admin actions on this withdrawal, from the admin audit log (for admins who may read it). */
const AdminActions = ({ record }: { record: RaRecord }) => {
  const [entries, setEntries] = useState<AuditEntry[] | undefined>();
  useEffect(() => {
    api<{ data: AuditEntry[] }>('GET', `/admin-audit${query({ userId: record.userId, take: 20, page: 1 })}`).then(
      (a) => setEntries(a.json.data.filter((e) => e.details.withdrawalId === record.id)),
      () => setEntries([]),
    );
  }, [record.id, record.userId, record.updatedAt]);
  if (!entries?.length) return null;
  return (
    <Box component="ul" aria-label="Admin actions on this withdrawal" sx={{ m: 1 }}>
      {entries.map((e) => (
        <li key={e.id}>
          <Time at={e.createdAt} />: {e.action} by {e.admin.username}
          {e.details.rejectReason ? ` (${String(e.details.rejectReason)})` : ''}
        </li>
      ))}
    </Box>
  );
};

/** The record in full: every field the API answers, its history from its own timestamps and reasons, and the admin actions on it. */
const Detail = () => {
  const record = useRecordContext();
  const me = useSession();
  if (!record) return null;
  const confirmer = (record.confirmedByUser as { username?: string } | null)?.username ?? record.confirmedByUserId;
  const steps: [string, unknown][] = [
    ['Requested', formatTime(record.createdAt as string)],
    ['Confirmed', record.confirmedAt && `${formatTime(record.confirmedAt as string)} by ${confirmer}`],
    ['Rejected', record.rejectReason],
    ['Failed', record.failedReason],
    ['Last change', `${formatTime(record.updatedAt as string)} (${String(record.status)})`],
  ];
  return (
    <Box>
      <PlayerContextCard userId={record.userId} />
      <Box sx={{ m: 1 }}>
        <Actions />
      </Box>
      {can(me, 'admin-users.view-admin-audit') ? <AdminActions record={record} /> : null}
      <Box component="dl" sx={{ display: 'grid', gridTemplateColumns: 'max-content 1fr', gap: 0.5, m: 1 }}>
        {steps
          .filter(([, v]) => v)
          .map(([k, v]) => [
            <dt key={`${k}t`}>
              <b>{k}</b>
            </dt>,
            <dd key={`${k}d`} style={{ margin: 0 }}>
              {String(v)}
            </dd>,
          ])}
        {Object.entries(record)
          .filter(([, v]) => typeof v !== 'object' || v === null)
          .map(([k, v]) => [
            <dt key={`${k}t`}>{k}</dt>,
            <dd key={`${k}d`} style={{ margin: 0 }}>
              {v === null ? '—' : String(v)}
            </dd>,
          ])}
      </Box>
    </Box>
  );
};

/** The queue: PENDING first, FAILED one click away; refetched every 3 s, since the gateway pushes no withdrawal changes to admins. */
export const WithdrawalGrid = ({ withUser = true }: { withUser?: boolean }) => (
  <Datagrid bulkActionButtons={false} expand={<Detail />} rowClick="expand">
    <FunctionField label="Id" render={(r: RaRecord) => <Short value={String(r.id)} label="withdrawal id" />} />
    {withUser ? <UserColumn label="User" idSource="userId" userSource="user" /> : null}
    {withUser ? <PlayerContextCell label="Player" /> : null}
    <MoneyField source="amount" label="Amount" />
    <MoneyField source="usdAmount" label="USD" currency="USD" sortBy="usdAmount" />
    <TextField source="status" />
    <FunctionField label="To" render={(r: RaRecord) => <Short value={r.recipientAddress as string} label="address" />} />
    <TimeField source="createdAt" label="Requested" />
    <Actions />
  </Datagrid>
);

export const WithdrawalList = () => (
  <ConsoleList
    filters={[...withdrawalFilters, userFilter()]}
    filterDefaultValues={{ status: 'PENDING' }}
    sort={{ field: 'createdAt', order: 'ASC' }}
    queryOptions={{ refetchInterval: 3000 }}
    exporter={false}
    title="Withdrawals"
  >
    <WithdrawalGrid />
  </ConsoleList>
);
