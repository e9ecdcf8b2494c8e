import { useState, type ReactNode } from 'react';
import { Alert, Box, Button, Link as MuiLink, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import { Link as RouterLink } from 'react-router-dom';
import {
  AutocompleteInput,
  Confirm,
  ReferenceInput,
  TextInput,
  Form,
  List,
  Pagination,
  SaveButton,
  useListContext,
  useNotify,
  usePermissions,
  useRecordContext,
  type FieldProps,
  type ListProps,
  type RaRecord,
} from 'react-admin';
import { ApiError } from './api';
import { dataProvider, resolveUser } from './dataProvider';
import { formatMoney, formatTime } from './format';
import { can, type Session } from './authProvider';

/**
 * Money as people read it (`1,234.57 USD`: console/src/format.ts), formatted from the API's decimal string, never through a
 * JavaScript number; the exact value as the API sent it is the title, shown on hover. `exact`: the digits themselves, for a
 * confirmation, which shows exactly what will be sent.
 */
export const Money = ({
  amount,
  currency,
  exact: whole = false,
}: {
  amount: string | null | undefined;
  currency?: string | null | undefined;
  exact?: boolean;
}) => {
  const { text, exact } = formatMoney(amount, currency);
  return (
    <span className="money" title={exact}>
      {whole ? exact : text}
    </span>
  );
};

/** An instant in the admin's time zone with the zone shown; the exact instant as the API sent it on hover. */
export const Time = ({ at }: { at: string | null | undefined }) => (at ? <span title={at}>{formatTime(at)}</span> : <>—</>);

/** A record's time field (`source`), as `Time`: react-admin's DateField shows neither the zone nor seconds. */
export const TimeField = ({ source }: FieldProps & { source: string }) => {
  const record = useRecordContext();
  if (!record) return null;
  return <Time at={record[source] as string | null | undefined} />;
};

/** A record's money field (`source`) with the currency field (`currencySource`, or a fixed `currency` such as USD). */
export const MoneyField = ({
  source,
  currencySource = 'currencyId',
  currency,
}: FieldProps & { source: string; currencySource?: string; currency?: string }) => {
  const record = useRecordContext();
  if (!record) return null;
  return <Money amount={record[source] as string} currency={currency ?? (record[currencySource] as string)} />;
};

export const useSession = (): Session | undefined => usePermissions<Session>().permissions;

/** Renders children only for an admin who holds `permission` (or, for 'superadmin', the role). */
export const Allowed = ({ permission, children, fallback = null }: { permission: string; children: ReactNode; fallback?: ReactNode }) =>
  can(useSession(), permission) ? <>{children}</> : <>{fallback}</>;

/** What a screen shows when the API refused it (403 and others), with the API's own code and message. */
export const ApiProblem = ({ error }: { error: unknown }) => {
  if (!error) return null;
  const e = error instanceof ApiError ? error : undefined;
  return (
    <Alert severity={e?.status === 403 ? 'warning' : 'error'} role="alert" sx={{ m: 2 }}>
      {e ? `${e.body.code}: ${e.body.message}` : String((error as Error).message ?? error)}
    </Alert>
  );
};

/** `{field: 'body.amount'}` details -> `{amount: message}` for the form, so each error shows next to its field. */
export const fieldErrors = (error: unknown): Record<string, string> | undefined => {
  if (!(error instanceof ApiError) || !error.body.details?.length) return undefined;
  return Object.fromEntries(error.body.details.map((d) => [d.field.replace(/^(body|query|params)\./, ''), d.message]));
};

export type Command = Readonly<{
  label: string;
  /** Shown in the confirmation dialog before a destructive or money action; unset: runs at once. */
  confirm?: ReactNode;
  run: () => Promise<unknown>;
  done?: (answer: unknown) => void;
  color?: 'primary' | 'error' | 'warning' | 'success';
  disabled?: boolean;
}>;

/** A button for one command: confirmation first when asked, then the API's answer or its error as a notification. */
export const CommandButton = ({ label, confirm, run, done, color = 'primary', disabled }: Command) => {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const notify = useNotify();
  const go = async () => {
    setOpen(false);
    setBusy(true);
    try {
      const answer = await run();
      notify(`${label}: done`, { type: 'success' });
      done?.(answer);
    } catch (error) {
      notify(error instanceof ApiError ? `${error.body.code}: ${error.body.message}` : String(error), { type: 'error' });
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <Button
        size="small"
        variant="outlined"
        color={color}
        disabled={busy || disabled}
        onClick={() => (confirm ? setOpen(true) : void go())}
      >
        {label}
      </Button>
      {confirm ? (
        <Confirm
          isOpen={open}
          title={label}
          content={confirm}
          onConfirm={() => void go()}
          onClose={() => setOpen(false)}
          confirm="Confirm"
        />
      ) : null}
    </>
  );
};

/** A small command form: the API's field errors land beside their fields; money forms confirm first, showing exactly what is sent. */
export const CommandForm = ({
  title,
  children,
  submit,
  confirm,
  onDone,
  defaultValues,
  label = 'Send',
}: {
  title: string;
  children: ReactNode;
  submit: (values: Record<string, unknown>) => Promise<unknown>;
  confirm?: (values: Record<string, unknown>) => ReactNode;
  onDone?: (answer: unknown) => void;
  defaultValues?: Record<string, unknown>;
  label?: string;
}) => {
  const notify = useNotify();
  const [pending, setPending] = useState<{ values: Record<string, unknown>; resolve: (v: unknown) => void } | undefined>();
  const send = async (values: Record<string, unknown>) => {
    try {
      const answer = await submit(values);
      notify(`${title}: done`, { type: 'success' });
      onDone?.(answer);
      return undefined;
    } catch (error) {
      const fields = fieldErrors(error);
      notify(error instanceof ApiError ? `${error.body.code}: ${error.body.message}` : String(error), { type: 'error' });
      return fields;
    }
  };
  const onSubmit = (values: Record<string, unknown>) => {
    if (!confirm) return send(values);
    return new Promise((resolve) => setPending({ values, resolve })).then((ok) => (ok ? send(values) : undefined));
  };
  return (
    <Box component="section" aria-label={title} sx={{ border: 1, borderColor: 'divider', borderRadius: 1, p: 2, my: 1, maxWidth: 560 }}>
      <Typography variant="h6" component="h2">
        {title}
      </Typography>
      {/* record: the form's own values only, never the page's record (a user's `notes: []` would become the tip's notes). */}
      <Form onSubmit={onSubmit} record={defaultValues ?? {}} noValidate>
        {children}
        <SaveButton label={label} alwaysEnable icon={<span />} />
      </Form>
      {pending && confirm ? (
        <Confirm
          isOpen
          title={title}
          content={confirm(pending.values)}
          confirm="Confirm"
          onConfirm={() => {
            pending.resolve(true);
            setPending(undefined);
          }}
          onClose={() => {
            pending.resolve(false);
            setPending(undefined);
          }}
        />
      ) : null}
    </Box>
  );
};

const ListProblem = () => <ApiProblem error={useListContext().error} />;

/** Rows per page of every list unless it says otherwise (the API pages by 20 at most: the data provider joins pages). */
export const ROWS_PER_PAGE = 25;

/** The pager, only over rows the API answered: a refused list has no page and no count to show. */
const ConsolePagination = () => {
  const { error, isPending } = useListContext();
  if (error || isPending) return null;
  return <Pagination rowsPerPageOptions={[10, ROWS_PER_PAGE, 50, 100]} />;
};

/** react-admin's List with the API's refusal (a 403 on a typed URL) shown in place of the rows; filters stay when empty. */
export const ConsoleList = (props: ListProps) => (
  <List exporter={false} empty={false} error={<ListProblem />} perPage={ROWS_PER_PAGE} pagination={<ConsolePagination />} {...props} />
);

/** A person by name (username, else e-mail, else `#id`), linked to their page; the id on hover. */
export const UserLink = ({
  id,
  user,
}: {
  id: number | string | null | undefined;
  user?: { username?: string | null; email?: string | null } | null | undefined;
}) => {
  if (id === null || id === undefined) return <>—</>;
  const name = user?.username || user?.email || `#${String(id)}`;
  return (
    <MuiLink component={RouterLink} to={`/users/${String(id)}/show`} title={`#${String(id)}`} onClick={(e) => e.stopPropagation()}>
      {name}
    </MuiLink>
  );
};

/** A list's person column: the id field and, beside it in the record, the user object or the username field. */
export const UserColumn = ({
  idSource,
  userSource,
  nameSource,
}: Partial<FieldProps> & { idSource: string; userSource?: string; nameSource?: string }) => {
  const record = useRecordContext();
  if (!record) return null;
  const user = userSource
    ? (record[userSource] as { username?: string | null; email?: string | null } | null)
    : nameSource
      ? { username: record[nameSource] as string | null }
      : undefined;
  // `sender.id`: a path into the record.
  const id = idSource.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | null | undefined)?.[k], record);
  return <UserLink id={id as number | null} user={user} />;
};

export const USER_FIELD_LABEL = 'User (name, e-mail or id)';

/** The lists' person filter: a name, an e-mail or an id, resolved to the user by the data provider (`byName`). */
export const userFilter = (source = 'user', label = USER_FIELD_LABEL) => <TextInput key={source} source={source} label={label} alwaysOn />;

/**
 * A person typed as a name, an e-mail or an id, found as the lists' person filter finds them (`resolveUser`: the exact name
 * or e-mail, else the only match), with their name for a heading; `#id` when the admin may not read the user.
 */
export const findUser = async (text: string): Promise<{ id: number; name: string } | undefined> => {
  const id = await resolveUser(text);
  if (id === undefined) return undefined;
  const user = await dataProvider
    .getOne<{ id: number; username?: string | null; email?: string | null }>('users', { id })
    .then((r) => r.data)
    .catch(() => undefined);
  return { id, name: user?.username || user?.email || `#${id}` };
};

/** The people picked in command forms, by id: what a confirmation names (who gets the money, not a bare id). */
const picked = new Map<number, string>();
const personOf = (u: RaRecord): string => `${String(u.username ?? u.email ?? '—')} (#${String(u.id)})`;
export const pickedUser = (id: unknown): string => picked.get(Number(id)) ?? `user #${String(id)}`;

/**
 * A command's person, picked by part of a name or e-mail or by id as the admin types (GET /user/search); the form holds
 * the id, and the confirmation names the person through `pickedUser`.
 */
export const UserInput = ({ source, label = 'User (name, e-mail or id)' }: { source: string; label?: string }) => (
  <ReferenceInput source={source} reference="user-search">
    <AutocompleteInput
      label={label}
      filterToQuery={(q: string) => ({ q })}
      optionText={(u: RaRecord) => `${personOf(u)}${u.username && u.email ? ` ${String(u.email)}` : ''}`}
      onChange={(_value, record) => {
        if (record) picked.set(Number(record.id), personOf(record));
      }}
      noOptionsText="Type part of a name or e-mail, or an id"
    />
  </ReferenceInput>
);

/** A table named by its heading, with a row for "none". */
export const Grid = ({ name, head, rows, empty }: { name: string; head: string[]; rows: ReactNode[][]; empty: string }) => (
  <Box component="section" aria-label={name} sx={{ my: 2 }}>
    <Typography variant="h6" component="h2">
      {name}
    </Typography>
    {rows.length === 0 ? (
      <Typography>{empty}</Typography>
    ) : (
      <Box sx={{ overflowX: 'auto' }}>
        <Table size="small" aria-label={name} sx={{ '& td, & th': { whiteSpace: 'nowrap' } }}>
          <TableHead>
            <TableRow>
              {head.map((h) => (
                <TableCell key={h}>{h}</TableCell>
              ))}
            </TableRow>
          </TableHead>
          <TableBody>
            {rows.map((cells, i) => (
              <TableRow key={i}>
                {cells.map((c, j) => (
                  <TableCell key={j}>{c}</TableCell>
                ))}
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </Box>
    )}
  </Box>
);
