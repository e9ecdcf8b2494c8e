import { useEffect, useState, type ReactNode } from 'react';
import {
  Box,
  Button,
  Chip,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  TextField as MuiTextField,
  Typography,
} from '@mui/material';
import {
  BooleanField,
  BooleanInput,
  Datagrid,
  DateTimeInput,
  FunctionField,
  NumberField,
  NumberInput,
  SelectInput,
  TextField,
  TextInput,
  Confirm,
  useListContext,
  useNotify,
  useRedirect,
  type RaRecord,
} from 'react-admin';
import { api, idempotencyKey } from '../api';
import { can } from '../authProvider';
import { formatTime } from '../format';
import { choices, CURRENCIES, PERMISSIONS } from '../permissions';
import { EraseAction } from './erasure';
import { Allowed, ApiProblem, CommandButton, CommandForm, ConsoleList, Money, Time, TimeField, useSession } from '../ui';

const userFilters = [
  <TextInput key="q" source="q" label="Search name, e-mail or id" alwaysOn />,
  <SelectInput
    key="b"
    source="isBanned"
    choices={[
      { id: 'true', name: 'Banned' },
      { id: 'false', name: 'Not banned' },
    ]}
  />,
  <SelectInput key="r" source="role" choices={choices(['User', 'Admin', 'SuperAdmin'])} />,
  <NumberInput key="v" source="vipLevel" label="VIP level" />,
  <DateTimeInput key="f" source="from" label="Created from" />,
  <DateTimeInput key="t" source="to" label="Created before" />,
];

/** Open a user by id: what an admin with `user.view` (not SuperAdmin, so no list) searches with. */
const FindById = () => {
  const [id, setId] = useState('');
  const redirect = useRedirect();
  return (
    <Box
      component="form"
      sx={{ display: 'flex', gap: 1, p: 2 }}
      onSubmit={(e) => {
        e.preventDefault();
        if (/^\d+$/.test(id)) redirect('show', 'users', id);
      }}
    >
      <MuiTextField size="small" label="User id" value={id} onChange={(e) => setId(e.target.value.trim())} />
      <Button type="submit" variant="contained">
        Open
      </Button>
    </Box>
  );
};

/** Before a search there is nothing to find yet: say what to type, not that nothing was found. */
const SearchPrompt = () => {
  const { filterValues } = useListContext();
  return (
    <Typography sx={{ p: 2 }}>
      {filterValues.q ? `No user matches "${String(filterValues.q)}".` : 'Type part of a name or e-mail, or an id, to find a user.'}
    </Typography>
  );
};

/** Admins with user.view only: GET /user/search by part of the name or e-mail, or the id. */
const UserSearch = () => (
  <ConsoleList
    resource="user-search"
    filters={[<TextInput key="q" source="q" label="Search name, e-mail or id" alwaysOn />]}
    title="Users"
    sort={{ field: 'id', order: 'DESC' }}
  >
    <Datagrid rowClick={(id) => `/users/${String(id)}/show`} bulkActionButtons={false} empty={<SearchPrompt />}>
      <NumberField source="id" sortable={false} />
      <TextField source="username" sortable={false} />
      <TextField source="email" sortable={false} />
      <BooleanField source="isBanned" label="Banned" sortable={false} />
      <TimeField source="createdAt" label="Created" sortable={false} />
    </Datagrid>
  </ConsoleList>
);

/** Every sort and filter of GET /user/all (SuperAdmin); admins with user.view search (GET /user/search). */
export const UserList = () => {
  const me = useSession();
  if (!can(me, 'superadmin'))
    return (
      <>
        <FindById />
        <UserSearch />
      </>
    );
  return (
    <>
      <FindById />
      <ConsoleList filters={userFilters} sort={{ field: 'id', order: 'DESC' }} exporter={false} title="Users">
        <Datagrid rowClick="show" bulkActionButtons={false}>
          <NumberField source="id" />
          <TextField source="username" />
          <TextField source="email" />
          <NumberField source="vipLevel" label="VIP" />
          <FunctionField
            label="Balance (USD)"
            sortBy="balance"
            render={(r: RaRecord) => <Money amount={(r.usdBalance as { total?: string })?.total} currency="USD" />}
          />
          <FunctionField
            label="Wagered (USD)"
            sortBy="totalWagered"
            render={(r: RaRecord) => <Money amount={(r.statsUsd as { totalWagered?: string })?.totalWagered} currency="USD" />}
          />
          <BooleanField source="isBanned" label="Banned" />
          <TimeField source="lastLoginAt" label="Last sign-in" />
          <TimeField source="createdAt" label="Created" />
        </Datagrid>
      </ConsoleList>
    </>
  );
};

export const Section = ({ title, children }: { title: string; children: ReactNode }) => (
  <Box component="section" sx={{ my: 2 }}>
    <Typography variant="h6" component="h2">
      {title}
    </Typography>
    {children}
  </Box>
);

/** A small GET beside the record (stats, limits, keys, registration): its answer or the API's refusal. */
export const useFetched = <T,>(path: string | undefined, deps: unknown[] = []) => {
  const [state, setState] = useState<{ data?: T; error?: unknown }>({});
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (!path) return;
    api<T>('GET', path).then(
      (a) => setState({ data: a.json }),
      (error: unknown) => setState({ error }),
    );
  }, [path, tick, ...deps]);
  return { ...state, reload: () => setTick((t) => t + 1) };
};

const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;
const DECIMAL = /^-?\d+(\.\d+)?$/;
/** A record's fields: instants in the admin's zone, and with `currency` (USD stats) decimal strings as money, exact on hover. */
export const KeyValues = ({ value, currency }: { value: Record<string, unknown> | undefined; currency?: string }) => (
  <Table size="small">
    <TableBody>
      {Object.entries(value ?? {}).map(([k, v]) => (
        <TableRow key={k}>
          <TableCell component="th" scope="row">
            {k}
          </TableCell>
          <TableCell>
            {v === null || v === undefined ? (
              '—'
            ) : typeof v === 'string' && INSTANT.test(v) ? (
              <Time at={v} />
            ) : typeof v === 'string' && currency && DECIMAL.test(v) ? (
              <Money amount={v} currency={currency} />
            ) : typeof v === 'object' ? (
              JSON.stringify(v)
            ) : (
              String(v)
            )}
          </TableCell>
        </TableRow>
      ))}
    </TableBody>
  </Table>
);

export const Balances = ({ user }: { user: RaRecord }) => {
  const b = user.usdBalance as { total: string; currencies: { currencyId: string; balance: string; usdBalance: string }[] } | undefined;
  return (
    <Table size="small" aria-label="Balances">
      <TableHead>
        <TableRow>
          <TableCell>Currency</TableCell>
          <TableCell>Balance</TableCell>
          <TableCell>USD value</TableCell>
        </TableRow>
      </TableHead>
      <TableBody>
        {(b?.currencies ?? []).map((c) => (
          <TableRow key={c.currencyId} data-currency={c.currencyId}>
            <TableCell>{c.currencyId}</TableCell>
            <TableCell className="balance">
              <Money amount={c.balance} currency={c.currencyId} />
            </TableCell>
            <TableCell>
              <Money amount={c.usdBalance} currency="USD" />
            </TableCell>
          </TableRow>
        ))}
        <TableRow>
          <TableCell>
            <b>Total</b>
          </TableCell>
          <TableCell />
          <TableCell>
            <Money amount={b?.total} currency="USD" />
          </TableCell>
        </TableRow>
      </TableBody>
    </Table>
  );
};

export const UserActions = ({ user, settle }: { user: RaRecord; settle: () => void }) => {
  const me = useSession();
  const [banReason, setBanReason] = useState('');
  return (
    <Stack direction="row" spacing={1} sx={{ my: 1, flexWrap: 'wrap', alignItems: 'center' }}>
      {!user.isBanned && can(me, 'user.ban') ? (
        <>
          <MuiTextField size="small" label="Ban reason" value={banReason} onChange={(e) => setBanReason(e.target.value)} />
          <CommandButton
            label="Ban"
            color="error"
            disabled={!banReason.trim()}
            done={settle}
            confirm={<>Ban {String(user.username)} and end every session?</>}
            run={() => api('PATCH', `/user/${String(user.id)}/ban`, { banReason })}
          />
        </>
      ) : null}
      {user.isBanned && can(me, 'superadmin') ? (
        <CommandButton
          label="Unban"
          done={settle}
          confirm={<>Unban {String(user.username)}?</>}
          run={() => api('PATCH', `/user/${String(user.id)}/unban`)}
        />
      ) : null}
      {can(me, 'user.edit') ? (
        <CommandButton
          label="Reset avatar"
          done={settle}
          confirm="Reset the avatar to the default?"
          run={() => api('PATCH', `/user/${String(user.id)}/avatar/reset`)}
        />
      ) : null}
      <EraseAction user={user} done={settle} />
    </Stack>
  );
};

const FLAGS = [
  'isStaff',
  'isVideoCreator',
  'isTest',
  'isStreamer',
  'canUseChat',
  'isPrivate',
  'isStreamerMode',
  'isEmailNotificationsEnabled',
] as const;

export const ProfileForm = ({ user, settle }: { user: RaRecord; settle: () => void }) => (
  <CommandForm
    title="Profile"
    label="Save profile"
    onDone={settle}
    defaultValues={{
      username: user.username,
      customMinAffiliateLevel: user.customMinAffiliateLevel,
      ...Object.fromEntries(FLAGS.map((f) => [f, user[f]])),
    }}
    submit={(v) => {
      const changes: Record<string, unknown> = {};
      for (const k of ['username', 'customMinAffiliateLevel', ...FLAGS]) if (v[k] !== user[k] && v[k] !== undefined) changes[k] = v[k];
      if (v.gamePlatformTradeLink) changes.gamePlatformTradeLink = v.gamePlatformTradeLink;
      return api('PATCH', `/user/${String(user.id)}`, changes);
    }}
  >
    <TextInput source="username" />
    <NumberInput source="customMinAffiliateLevel" label="Custom min. affiliate level" />
    <TextInput source="gamePlatformTradeLink" label="Steam trade link" fullWidth />
    <Box sx={{ display: 'grid', gridTemplateColumns: 'repeat(2, 1fr)' }}>
      {FLAGS.map((f) => (
        <BooleanInput key={f} source={f} />
      ))}
    </Box>
  </CommandForm>
);

/** A granted permission; its delete icon revokes it after a confirmation. */
const RevocableChip = ({ user, permission, done }: { user: RaRecord; permission: string; done: () => void }) => {
  const [open, setOpen] = useState(false);
  const notify = useNotify();
  const revoke = () => {
    setOpen(false);
    api('DELETE', `/user/${String(user.id)}/permissions/${permission}`).then(done, (e: unknown) =>
      notify(String((e as Error).message), { type: 'error' }),
    );
  };
  return (
    <>
      <Chip label={permission} onDelete={() => setOpen(true)} />
      <Confirm
        isOpen={open}
        title="Revoke permission"
        content={`Revoke ${permission} from ${String(user.username)}?`}
        confirm="Revoke"
        onConfirm={revoke}
        onClose={() => setOpen(false)}
      />
    </>
  );
};

export const RolesAndPermissions = ({ user, settle }: { user: RaRecord; settle: () => void }) => {
  const me = useSession();
  const roles = ((user.roles as { role: string }[] | undefined) ?? []).map((r) => r.role);
  const perms = (user.permissions as string[] | undefined) ?? [];
  // A heading only over something: the roles and permissions held, or a form to change them.
  if (roles.length === 0 && perms.length === 0 && !can(me, 'user.edit') && !can(me, 'superadmin')) return null;
  return (
    <Section title="Roles and permissions">
      <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap', mb: 1 }}>
        {roles.map((r) => (
          <Chip key={r} label={r} color="primary" />
        ))}
        {perms.map((p) =>
          can(me, 'user.edit') ? <RevocableChip key={p} user={user} permission={p} done={settle} /> : <Chip key={p} label={p} />,
        )}
      </Stack>
      <Allowed permission="user.edit">
        <CommandForm
          title="Grant a permission"
          label="Grant"
          onDone={settle}
          submit={(v) => api('PUT', `/user/${String(user.id)}/permissions`, { permissions: v.permissions })}
        >
          <SelectInput source="permissions" label="Permission" choices={choices(PERMISSIONS.filter((p) => !perms.includes(p)))} />
        </CommandForm>
      </Allowed>
      <Allowed permission="superadmin">
        <CommandForm
          title="Role"
          label="Set role"
          onDone={settle}
          confirm={(v) => `Set the role of ${String(user.username)} to ${String(v.roles)}?`}
          submit={(v) => api('PUT', `/user/${String(user.id)}/roles`, { roles: v.roles })}
        >
          <SelectInput source="roles" label="Role" choices={choices(['User', 'Admin', 'SuperAdmin'])} />
        </CommandForm>
      </Allowed>
    </Section>
  );
};

export const MoneyActions = ({ user, settle }: { user: RaRecord; settle: () => void }) => {
  const me = useSession();
  const currencies = choices(CURRENCIES);
  // The section holds only forms: without any of their permissions it has nothing to show.
  if (!['admin-tips.tip', 'admin-tips.deduct-balance', 'superadmin'].some((p) => can(me, p))) return null;
  const balanceOf = (c: unknown) =>
    (user.usdBalance as { currencies: { currencyId: string; balance: string }[] } | undefined)?.currencies.find((x) => x.currencyId === c)
      ?.balance ?? '0';
  return (
    <Section title="Money">
      <Allowed permission="admin-tips.tip">
        <CommandForm
          title="Send a tip"
          label="Send tip"
          onDone={settle}
          defaultValues={{ currencyId: 'DBC', notes: '' }}
          confirm={(v) => (
            <>
              Tip <Money exact amount={String(v.amount)} currency={String(v.currencyId)} /> to {String(user.username)}?
            </>
          )}
          submit={(v) =>
            api(
              'POST',
              '/admin-tips',
              { recipientUserId: user.id, amount: v.amount, currencyId: v.currencyId, notes: v.notes ?? '' },
              { 'idempotency-key': idempotencyKey() },
            )
          }
        >
          <TextInput source="amount" label="Amount" />
          <SelectInput source="currencyId" label="Currency" choices={currencies} />
          <TextInput source="notes" label="Notes" />
        </CommandForm>
      </Allowed>
      <Allowed permission="admin-tips.deduct-balance">
        <CommandForm
          title="Deduct"
          label="Deduct"
          onDone={settle}
          defaultValues={{ currencyId: 'DBC', notes: '' }}
          confirm={(v) => (
            <>
              Deduct <Money exact amount={String(v.amount)} currency={String(v.currencyId)} /> from {String(user.username)}?
            </>
          )}
          submit={(v) =>
            api(
              'POST',
              '/admin-tips/deduct-balance',
              { recipientUserId: user.id, amount: v.amount, currencyId: v.currencyId, notes: v.notes ?? '' },
              { 'idempotency-key': idempotencyKey() },
            )
          }
        >
          <TextInput source="amount" label="Amount" />
          <SelectInput source="currencyId" label="Currency" choices={currencies} />
          <TextInput source="notes" label="Notes" />
        </CommandForm>
      </Allowed>
      <Allowed permission="superadmin">
        <CommandForm
          title="Set balance"
          label="Set balance"
          onDone={settle}
          defaultValues={{ currencyId: 'DBC' }}
          confirm={(v) => (
            <>
              Set the {String(v.currencyId)} balance of {String(user.username)}: before{' '}
              <Money exact amount={balanceOf(v.currencyId)} currency={String(v.currencyId)} />, after{' '}
              <Money exact amount={String(v.balance)} currency={String(v.currencyId)} />.
            </>
          )}
          submit={(v) =>
            api(
              'PUT',
              `/user/${String(user.id)}/balance`,
              { balance: v.balance, currencyId: v.currencyId },
              { 'idempotency-key': idempotencyKey() },
            )
          }
        >
          <TextInput source="balance" label="New balance" />
          <SelectInput source="currencyId" label="Currency" choices={currencies} />
        </CommandForm>
      </Allowed>
    </Section>
  );
};

/** A date-time input's local value as the instant it names, in the admin's zone with the zone shown. */
const inAdminZone = (local: unknown): string => {
  const at = new Date(String(local));
  return Number.isNaN(at.getTime()) ? String(local) : formatTime(at.toISOString());
};

type Fetched = { data?: Record<string, unknown>; error?: unknown };
type LimitField = readonly [key: string, label: string, show?: (v: unknown) => ReactNode];
export const EXCLUSION_FIELDS: readonly LimitField[] = [
  ['expiresAt', 'Excluded until', (v) => <Time at={v as string | null} />],
  ['createdAt', 'Set at', (v) => <Time at={v as string | null} />],
  ['updatedAt', 'Updated at', (v) => <Time at={v as string | null} />],
  ['id', 'Record id'],
];
export const BET_LIMIT_FIELDS: readonly LimitField[] = [
  ['betLimit', 'Each bet at most', (v) => <Money amount={v as string | null} currency="USD" />],
  ['createdAt', 'Set at', (v) => <Time at={v as string | null} />],
  ['updatedAt', 'Updated at', (v) => <Time at={v as string | null} />],
  ['id', 'Record id'],
];

/** One limit record under its own name, each field labelled; `{}` from the API (none in force) says so. */
export const LimitRecord = ({ title, got, fields }: { title: string; got: Fetched; fields: readonly LimitField[] }) => {
  const record = got.data;
  const none = record !== undefined && Object.keys(record).length === 0;
  return (
    <Box sx={{ my: 1 }}>
      <Typography variant="subtitle1" component="h3">
        {title}
      </Typography>
      <ApiProblem error={got.error} />
      {none ? <Typography>None in force.</Typography> : null}
      {record && !none ? (
        <Table size="small" aria-label={title}>
          <TableBody>
            {fields.map(([key, label, show]) => (
              <TableRow key={key}>
                <TableCell component="th" scope="row">
                  {label}
                </TableCell>
                <TableCell>
                  {show ? show(record[key]) : record[key] === null || record[key] === undefined ? '—' : String(record[key])}
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      ) : null}
    </Box>
  );
};

export const Limits = ({ user, settle }: { user: RaRecord; settle: () => void }) => {
  const exclusion = useFetched<Record<string, unknown>>(`/user-limits/user-exclusion/${String(user.id)}`);
  const gambling = useFetched<Record<string, unknown>>(`/user-limits/gambling-limits/${String(user.id)}`);
  const done = () => {
    exclusion.reload();
    gambling.reload();
    settle();
  };
  return (
    <Section title="Limits">
      <LimitRecord title="Self-exclusion" got={exclusion} fields={EXCLUSION_FIELDS} />
      <LimitRecord title="Bet limit" got={gambling} fields={BET_LIMIT_FIELDS} />
      <Allowed permission="user-limit.edit">
        <CommandForm
          title="Self-exclusion"
          label="Exclude"
          onDone={done}
          confirm={(v) => `Exclude ${String(user.username)} until ${inAdminZone(v.excludeUntil)}?`}
          submit={(v) =>
            api('POST', '/user-limits/user-exclusion', { userId: user.id, excludeUntil: new Date(String(v.excludeUntil)).toISOString() })
          }
        >
          <DateTimeInput source="excludeUntil" label="Until" />
        </CommandForm>
        <CommandForm
          title="Bet limit"
          label="Set bet limit"
          onDone={done}
          confirm={(v) => `Limit each bet of ${String(user.username)} to ${String(v.betLimit)} USD?`}
          submit={(v) => api('POST', '/user-limits/gambling-limits', { userId: user.id, betLimit: v.betLimit })}
        >
          <TextInput source="betLimit" label="Bet limit (USD)" />
        </CommandForm>
      </Allowed>
      <Allowed permission="user-limit.delete">
        <CommandButton
          label="Lift self-exclusion"
          color="error"
          done={done}
          confirm="Lift the self-exclusion?"
          run={() => api('DELETE', '/user-limits/user-exclusion', { userId: user.id })}
        />
      </Allowed>
    </Section>
  );
};

export const ApiKeys = ({ user }: { user: RaRecord }) => {
  const keys = useFetched<unknown>(`/api-keys/${String(user.id)}`);
  const [shown, setShown] = useState<string | undefined>();
  return (
    <Section title="API keys">
      <ApiProblem error={keys.error} />
      <KeyValues value={keys.data as Record<string, unknown> | undefined} />
      {shown ? (
        <Typography role="status" sx={{ fontFamily: 'monospace', bgcolor: '#fff8e1', p: 1 }}>
          New key (shown once): {shown}
        </Typography>
      ) : null}
      <Allowed permission="api-key.edit">
        <Stack direction="row" spacing={1}>
          <CommandButton
            label="Create API key"
            confirm="Create an API key? It is shown once."
            run={() => api<Record<string, unknown>>('POST', '/api-keys', { userId: user.id })}
            done={(a) => {
              const json = (a as { json: Record<string, unknown> }).json;
              setShown(String(json.apiKey ?? json.key ?? JSON.stringify(json)));
              keys.reload();
            }}
          />
          <CommandButton
            label="Disable API keys"
            color="error"
            confirm="Disable this user's API keys?"
            run={() => api('DELETE', `/api-keys/${String(user.id)}`)}
            done={keys.reload}
          />
        </Stack>
      </Allowed>
    </Section>
  );
};

export const Extra = ({ title, path }: { title: string; path: string }) => {
  const got = useFetched<Record<string, unknown>>(path);
  return (
    <Section title={title}>
      <ApiProblem error={got.error} />
      <KeyValues value={got.data} />
    </Section>
  );
};
