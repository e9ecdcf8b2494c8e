import { useEffect, useState } from 'react';
import { Box, Button, MenuItem, TextField, Typography } from '@mui/material';
import { Confirm, Title, useGetOne } from 'react-admin';
import { api, ApiError, query } from '../api';
import { can } from '../authProvider';
import { ApiProblem, Time, UserLink, useSession } from '../ui';
import { CONFIG_CODES, SECTION_SCHEMAS, type ConfigCode } from '../../../src/domain/site-config/site-config.sections';
import { CURRENCY_IDS } from '../../../src/domain/money/currency';

type Kind = 'flag' | 'int' | 'decimal' | 'email';
type Field = readonly [key: string, label: string, kind: Kind, hint?: string];
const FRACTION = 'a fraction below 1, e.g. 0.02 for 2 %';
/** Each section's fields in plain words; the schema (src/domain/site-config) checks them here and again on the server. */
const FIELDS: Readonly<Record<ConfigCode, readonly Field[]>> = {
  COMMON: [
    ['maintenanceMode', 'Maintenance mode', 'flag'],
    ['supportEmail', 'Support e-mail', 'email'],
  ],
  BATTLES: [
    ['enabled', 'Battles on', 'flag'],
    ['minPlayers', 'Fewest players (2 to 4)', 'int'],
    ['maxPlayers', 'Most players (2 to 4)', 'int'],
    ['houseEdge', 'House edge', 'decimal', FRACTION],
  ],
  AFFILIATES: [
    ['enabled', 'Affiliates on', 'flag'],
    ['minClaimUsdAmount', 'Smallest claim (USD)', 'decimal'],
    ['defaultCommission', 'Default commission', 'decimal', FRACTION],
  ],
  WITHDRAWALS: [
    ['enabled', 'Withdrawals on', 'flag'],
    ['manualApprovalAboveUsd', 'Manual approval above (USD)', 'decimal'],
    ['dailyLimitUsd', 'Daily limit per player (USD)', 'decimal'],
  ],
};
const RATE = 'rate:';

/** The form's values -> the section's JSON: a blank field is left out (a PUT replaces the whole section). */
const configOf = (code: ConfigCode, values: Record<string, string>): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  for (const [key, , kind] of FIELDS[code]) {
    const v = values[key]?.trim() ?? '';
    if (v === '') continue;
    out[key] = kind === 'flag' ? v === 'on' : kind === 'int' ? Number(v) : v;
  }
  if (code === 'COMMON') {
    const rates = Object.fromEntries(
      CURRENCY_IDS.map((c) => [c, values[`${RATE}${c}`]?.trim() ?? ''] as const).filter(([, v]) => v !== ''),
    );
    if (Object.keys(rates).length) out.rates = rates;
  }
  return out;
};

/** The stored section -> the form's values, the inverse of configOf. */
const valuesOf = (code: ConfigCode, config: Record<string, unknown>): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [key, , kind] of FIELDS[code]) {
    const v = config[key];
    if (v === undefined || v === null) continue;
    out[key] = kind === 'flag' ? (v === true ? 'on' : 'off') : String(v as string | number);
  }
  const rates = code === 'COMMON' ? (config.rates as Record<string, unknown> | undefined) : undefined;
  for (const [c, v] of Object.entries(rates ?? {})) out[`${RATE}${c}`] = String(v as string);
  return out;
};

/** GET /config and PUT /config answer this; a section never saved has no revision. */
type Stored = { config: Record<string, unknown>; revision: number | null; updatedByUserId: number | null; updatedAt: string | null };

/** The schema's problems by form field (`rates.BTC` -> `rate:BTC`). */
const problemsOf = (code: ConfigCode, config: Record<string, unknown>): Record<string, string> => {
  const parsed = SECTION_SCHEMAS[code].safeParse(config);
  if (parsed.success) return {};
  const out: Record<string, string> = {};
  // The first problem of each field: a value that is not a decimal at all fails the scale check too.
  for (const i of parsed.error.issues) {
    const key = i.path[0] === 'rates' ? `${RATE}${String(i.path[1])}` : String(i.path[0] ?? '');
    out[key] ??= i.message;
  }
  return out;
};

/** Site configuration (SuperAdmin): one form per section, checked before it is sent, replacing the section after a confirmation. */
export const ConfigPage = () => {
  const me = useSession();
  const [code, setCode] = useState<ConfigCode>('COMMON');
  const [values, setValues] = useState<Record<string, string>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>();
  const [saved, setSaved] = useState<string | undefined>();
  const [asking, setAsking] = useState(false);
  const [stored, setStored] = useState<Stored | undefined>();
  const superadmin = can(me, 'superadmin');
  const savedBy = stored?.updatedByUserId ?? undefined;
  const { data: admin } = useGetOne<{ id: number; username: string | null; email: string | null }>(
    'users',
    { id: savedBy ?? 0 },
    { enabled: savedBy !== undefined },
  );
  // The chosen section's current values fill the form; a save then starts from them, not from blanks.
  useEffect(() => {
    if (!superadmin) return;
    let current = true;
    setStored(undefined);
    setValues({});
    api<Stored>('GET', `/config${query({ code })}`).then(
      (a) => {
        if (!current) return;
        setStored(a.json);
        setValues(valuesOf(code, a.json.config));
      },
      (e: unknown) => current && setError(e),
    );
    return () => {
      current = false;
    };
  }, [code, superadmin]);
  if (!superadmin) return <ApiProblem error={new ApiError(403, { statusCode: 403, code: 'FORBIDDEN', message: 'SuperAdmin only' })} />;
  const config = configOf(code, values);
  const check = () => {
    const problems = problemsOf(code, config);
    setErrors(problems);
    setSaved(undefined);
    if (Object.keys(problems).length === 0) setAsking(true);
  };
  const save = async () => {
    setError(undefined);
    try {
      const answer = await api<Stored>('PUT', `/config${query({ code })}`, { code: {}, config });
      setStored(answer.json);
      setSaved(`Saved ${code}: revision ${answer.json.revision}`);
    } catch (e) {
      const details = e instanceof ApiError ? e.body.details : undefined;
      if (details?.length)
        setErrors(
          Object.fromEntries(details.map((d) => [d.field.replace(/^body\.config\.(rates\.)?/, (_m, r) => (r ? RATE : '')), d.message])),
        );
      setError(e);
    }
  };
  const input = (key: string, label: string, kind: Kind, hint?: string) =>
    kind === 'flag' ? (
      <TextField
        key={key}
        select
        size="small"
        label={label}
        value={values[key] ?? ''}
        onChange={(e) => setValues({ ...values, [key]: e.target.value })}
        error={Boolean(errors[key])}
        helperText={errors[key] ?? 'Not set: left out of the section'}
      >
        <MenuItem value="">Not set</MenuItem>
        <MenuItem value="on">On</MenuItem>
        <MenuItem value="off">Off</MenuItem>
      </TextField>
    ) : (
      <TextField
        key={key}
        size="small"
        label={label}
        value={values[key] ?? ''}
        onChange={(e) => setValues({ ...values, [key]: e.target.value })}
        error={Boolean(errors[key])}
        helperText={errors[key] ?? hint ?? 'Blank: left out of the section'}
        slotProps={{ htmlInput: { inputMode: kind === 'email' ? 'email' : 'decimal' } }}
      />
    );
  return (
    <Box sx={{ p: 2, maxWidth: 900 }}>
      <Title title="Site configuration" />
      <Typography variant="h5" component="h1">
        Site configuration
      </Typography>
      <TextField
        select
        size="small"
        label="Section"
        value={code}
        onChange={(e) => {
          setCode(e.target.value as ConfigCode);
          setErrors({});
          setSaved(undefined);
          setError(undefined);
        }}
        sx={{ my: 1, width: 220 }}
      >
        {CONFIG_CODES.map((s) => (
          <MenuItem key={s} value={s}>
            {s}
          </MenuItem>
        ))}
      </TextField>
      {stored ? (
        <Typography variant="body2">
          {stored.revision === null ? (
            <>{code} has never been saved: nothing is stored for it yet.</>
          ) : (
            <>
              {code} as stored: revision {stored.revision}, saved <Time at={stored.updatedAt} /> by{' '}
              <UserLink id={stored.updatedByUserId} user={admin} />
            </>
          )}
        </Typography>
      ) : (
        <Typography variant="body2">Loading {code}…</Typography>
      )}
      <Box
        component="section"
        aria-label={`${code} section`}
        sx={{ display: 'grid', gridTemplateColumns: { md: '1fr 1fr' }, gap: 2, my: 1 }}
      >
        {FIELDS[code].map(([key, label, kind, hint]) => input(key, label, kind, hint))}
        {code === 'COMMON'
          ? CURRENCY_IDS.map((c) => input(`${RATE}${c}`, `USD per 1 ${c}`, 'decimal', 'Blank: the rate stays as it is'))
          : null}
      </Box>
      <Button variant="contained" sx={{ my: 1 }} onClick={check} disabled={!stored}>
        Save section
      </Button>
      <Confirm
        isOpen={asking}
        title={`Replace ${code}`}
        content={`Replace the whole ${code} section with ${JSON.stringify(config)}?`}
        confirm="Replace"
        onConfirm={() => {
          setAsking(false);
          void save();
        }}
        onClose={() => setAsking(false)}
      />
      {saved ? <Typography role="status">{saved}</Typography> : null}
      {Object.keys(errors).length ? null : <ApiProblem error={error} />}
    </Box>
  );
};
