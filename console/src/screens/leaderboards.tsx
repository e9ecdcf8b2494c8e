import { useEffect, useState } from 'react';
import { Box, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import {
  BooleanField,
  BooleanInput,
  Datagrid,
  FunctionField,
  SelectInput,
  Show,
  TextField,
  TextInput,
  useListContext,
  useRecordContext,
  type RaRecord,
} from 'react-admin';
import { api, idempotencyKey, query, RawJson } from '../api';
import { can } from '../authProvider';
import { choices, CURRENCIES } from '../permissions';
import { useSettle } from '../refresh';
import { ApiProblem, CommandForm, ConsoleList, Money, pickedUser, TimeField, UserInput, UserLink, useSession } from '../ui';

export const LeaderboardList = () => (
  <ConsoleList
    filters={[
      <SelectInput key="s" source="status" choices={choices(['NOT_STARTED', 'ACTIVE', 'ENDED', 'SETTLEMENT', 'FINISHED'])} alwaysOn />,
    ]}
    sort={{ field: 'createdAt', order: 'DESC' }}
    exporter={false}
    title="Leaderboards"
  >
    <Datagrid rowClick="show" bulkActionButtons={false}>
      <TextField source="id" sortable={false} />
      <TextField source="name" sortable={false} />
      <TextField source="type" sortable={false} />
      <TextField source="status" sortable={false} />
      <TimeField source="startDate" sortable={false} />
      <TimeField source="endDate" sortable={false} />
    </Datagrid>
  </ConsoleList>
);

/** A leaderboard user as the API answers it: `usdAmount` is the USD wagered in the race. */
type Entry = {
  userId: number;
  user?: { username?: string };
  position?: number;
  usdAmount?: string;
  usdPrize?: string;
  prizeGivenAt?: string | null;
} & Record<string, unknown>;

const Standings = () => {
  const board = useRecordContext();
  const me = useSession();
  const [rows, setRows] = useState<Entry[]>([]);
  const [error, setError] = useState<unknown>();
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (!board) return;
    api<{ data: Entry[] }>('GET', `/leaderboards/${encodeURIComponent(String(board.id))}/users${query({ page: 1, take: 30 })}`).then(
      (a) => setRows(a.json.data),
      setError,
    );
  }, [board, tick]);
  if (!board) return null;
  return (
    <Box sx={{ p: 2 }}>
      <Typography variant="h5" component="h1">
        {String(board.name ?? board.id)} ({String(board.status)})
      </Typography>
      <ApiProblem error={error} />
      <Table size="small" aria-label="Standings">
        <TableHead>
          <TableRow>
            <TableCell>#</TableCell>
            <TableCell>User</TableCell>
            <TableCell>Wagered</TableCell>
            <TableCell>Prize</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {rows.map((r) => (
            <TableRow key={r.userId}>
              <TableCell>{r.position ?? ''}</TableCell>
              <TableCell>
                <UserLink id={r.userId} user={r.user} />
              </TableCell>
              <TableCell>
                <Money amount={r.usdAmount} currency="USD" />
              </TableCell>
              <TableCell>
                <Money amount={r.usdPrize} currency="USD" />
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
      {can(me, 'leaderboard.give-prize') ? (
        <CommandForm
          title="Give prize"
          label="Give prize"
          onDone={() => setTick((t) => t + 1)}
          defaultValues={{ currency: 'USDT' }}
          confirm={(v) => (
            <>
              Pay {v.usdAmount ? <Money exact amount={String(v.usdAmount)} currency="USD" /> : 'the full prize'} in {String(v.currency)} to{' '}
              {pickedUser(v.userId)}?
            </>
          )}
          submit={(v) =>
            api(
              'POST',
              '/leaderboards/give-prize',
              {
                leaderboardId: board.id,
                userId: Number(v.userId),
                currency: v.currency,
                ...(v.usdAmount ? { usdAmount: v.usdAmount } : { fullUsdAmount: true }),
              },
              { 'idempotency-key': idempotencyKey() },
            )
          }
        >
          <UserInput source="userId" label="Player (name, e-mail or id)" />
          <SelectInput source="currency" choices={choices(CURRENCIES)} />
          <TextInput source="usdAmount" label="USD amount (empty: the full prize)" />
        </CommandForm>
      ) : null}
    </Box>
  );
};

export const LeaderboardShow = () => (
  <Show component="div" actions={false} title="Leaderboard">
    <Standings />
  </Show>
);

/** A schedule as the API answers it: what its leaderboards are made of sits under `config`. */
type ScheduleConfig = { type?: string; name?: string; description?: string; prizes?: { position: number; usdPrize: number }[] };
const configOf = (record: RaRecord): ScheduleConfig => (record.config as ScheduleConfig | undefined) ?? {};

const ScheduleEdit = ({ record }: { record: RaRecord }) => {
  const { refetch } = useListContext();
  const settle = useSettle(refetch);
  const config = configOf(record);
  return (
    <CommandForm
      title={`Edit ${String(record.id)}`}
      label="Save schedule"
      onDone={settle}
      defaultValues={{
        enabled: record.enabled,
        name: config.name,
        description: config.description,
        prizes: JSON.stringify(config.prizes ?? []),
      }}
      confirm={(v) => (
        <>
          Save the prizes {String(v.prizes)} and state {v.enabled ? 'enabled' : 'disabled'}?
        </>
      )}
      submit={(v) => {
        // Prizes are JSON numbers in the API; the admin's text goes out as typed, so no decimal is rounded on the way.
        const fields = `"enabled":${v.enabled ? 'true' : 'false'},"name":${JSON.stringify(v.name ?? '')}`;
        const body = `{${fields},"description":${JSON.stringify(v.description ?? '')},"prizes":${String(v.prizes || '[]')}}`;
        return api('POST', `/leaderboards/schedule/${encodeURIComponent(String(record.id))}`, new RawJson(body));
      }}
    >
      <BooleanInput source="enabled" />
      <TextInput source="name" />
      <TextInput source="description" fullWidth />
      <TextInput source="prizes" label='Prizes, e.g. [{"position":1,"usdPrize":100}]' fullWidth multiline />
    </CommandForm>
  );
};

const ScheduleRow = () => {
  const record = useRecordContext();
  const me = useSession();
  return record && can(me, 'leaderboard.edit') ? <ScheduleEdit record={record} /> : null;
};

export const ScheduleList = () => (
  <ConsoleList pagination={false} exporter={false} title="Leaderboard schedules">
    <Datagrid bulkActionButtons={false} expand={<ScheduleRow />} rowClick="expand">
      <TextField source="id" sortable={false} />
      <FunctionField label="Type" render={(r: RaRecord) => configOf(r).type ?? ''} />
      <FunctionField label="Name" render={(r: RaRecord) => configOf(r).name ?? ''} />
      <BooleanField source="enabled" sortable={false} />
      <FunctionField
        label="Prizes"
        render={(r: RaRecord) =>
          (configOf(r).prizes ?? []).map((p) => (
            <div key={p.position}>
              #{p.position}: <Money amount={String(p.usdPrize)} currency="USD" />
            </div>
          ))
        }
      />
    </Datagrid>
  </ConsoleList>
);
