import { useCallback, useEffect, useState } from 'react';
import { Box, MenuItem, TextField, Typography } from '@mui/material';
import { Title } from 'react-admin';
import { api } from '../api';
import { ApiProblem, CommandButton, Grid, Money, Time } from '../ui';

type Monitor = { id: string; type: string; thresholdUsd: string | null; windowHours?: number | null; enabled: boolean; createdAt: string };
type Alert = {
  id: string;
  monitorId: string;
  subject: string;
  userId: number | null;
  amountUsd: string | null;
  raisedAt: string;
  delivered: number;
  pending: number;
};
type Webhook = {
  id: string;
  monitorType: string;
  url: string;
  state: 'active' | 'failing' | 'disabled';
  failingSince: string | null;
  disabledAt: string | null;
  createdAt: string;
};

const TYPES: Record<string, string> = {
  'bet-win-over': "A settled bet's win over",
  'withdrawal-over': 'A withdrawal request over',
  'aml-flag': 'An AML flag raised',
  'player-net-loss-over': "A player's net loss in a window over",
};

/** Monitors, their alerts and the webhooks they are delivered to (SuperAdmin; docs/compliance.md, Monitors and alerts). */
export const MonitorsPage = () => {
  const [monitors, setMonitors] = useState<Monitor[]>([]);
  const [alerts, setAlerts] = useState<Alert[]>([]);
  const [webhooks, setWebhooks] = useState<Webhook[]>([]);
  const [error, setError] = useState<unknown>();
  const [type, setType] = useState('bet-win-over');
  const [threshold, setThreshold] = useState('');
  const [windowHours, setWindowHours] = useState('24');
  const [hookType, setHookType] = useState('bet-win-over');
  const [url, setUrl] = useState('');
  const [secret, setSecret] = useState('');
  const load = useCallback(() => {
    Promise.all([
      api<{ data: Monitor[] }>('GET', '/monitors'),
      api<{ data: Alert[] }>('GET', '/monitors/alerts'),
      api<{ data: Webhook[] }>('GET', '/monitors/webhooks'),
    ]).then(([m, a, w]) => {
      setMonitors(m.json.data);
      setAlerts(a.json.data);
      setWebhooks(w.json.data);
    }, setError);
  }, []);
  useEffect(load, [load]);
  const body = {
    type,
    ...(threshold ? { thresholdUsd: threshold } : {}),
    ...(type === 'player-net-loss-over' ? { windowHours: Number(windowHours) } : {}),
  };
  return (
    <Box sx={{ p: 2 }}>
      <Title title="Monitors" />
      <Typography variant="h5" component="h1">
        Monitors
      </Typography>
      <Typography sx={{ my: 1 }}>
        A monitor fires once when its condition becomes true, and again only after it has been false: each alert is listed here and sent,
        signed, to the webhooks of its type.
      </Typography>
      <ApiProblem error={error} />
      <Box component="section" aria-label="New monitor" sx={{ display: 'flex', gap: 1, alignItems: 'center', flexWrap: 'wrap', my: 2 }}>
        <TextField select size="small" label="Condition" value={type} sx={{ width: 300 }} onChange={(e) => setType(e.target.value)}>
          {Object.entries(TYPES).map(([k, v]) => (
            <MenuItem key={k} value={k}>
              {v}
            </MenuItem>
          ))}
        </TextField>
        <TextField size="small" label="Threshold (USD)" value={threshold} onChange={(e) => setThreshold(e.target.value)} />
        {type === 'player-net-loss-over' ? (
          <TextField size="small" label="Window (hours)" value={windowHours} onChange={(e) => setWindowHours(e.target.value)} />
        ) : null}
        <CommandButton
          label="Create monitor"
          confirm={
            <>
              Create a monitor: {TYPES[type]} {threshold ? `${threshold} USD` : ''}?
            </>
          }
          run={() => api('POST', '/monitors', body)}
          done={load}
        />
      </Box>
      <Grid
        name="Monitors"
        head={['Condition', 'Threshold', 'Window', 'State', 'Created', '']}
        empty="No monitor yet."
        rows={monitors.map((m) => [
          TYPES[m.type] ?? m.type,
          <Money key="t" amount={m.thresholdUsd} currency="USD" />,
          m.windowHours ? `${m.windowHours} h` : '—',
          m.enabled ? 'on' : 'off',
          <Time key="c" at={m.createdAt} />,
          <CommandButton
            key="e"
            label={m.enabled ? `Turn off monitor ${m.id}` : `Turn on monitor ${m.id}`}
            confirm={m.enabled ? 'Turn this monitor off? It raises no alert while off.' : 'Turn this monitor on?'}
            run={() => api('POST', `/monitors/${m.id}/enabled`, { enabled: !m.enabled })}
            done={load}
          />,
        ])}
      />
      <Grid
        name="Alerts"
        head={['Raised', 'Monitor', 'What fired', 'Player', 'Amount', 'Webhooks delivered', 'Pending']}
        empty="No alert yet."
        rows={alerts.map((a) => [
          <Time key="r" at={a.raisedAt} />,
          a.monitorId,
          a.subject,
          a.userId === null ? '—' : <a href={`#/users/${a.userId}/show`}>#{a.userId}</a>,
          <Money key="m" amount={a.amountUsd} currency="USD" />,
          a.delivered,
          a.pending,
        ])}
      />
      <Box component="section" aria-label="New webhook" sx={{ display: 'flex', gap: 1, alignItems: 'center', flexWrap: 'wrap', my: 2 }}>
        <TextField select size="small" label="Alerts of" value={hookType} sx={{ width: 300 }} onChange={(e) => setHookType(e.target.value)}>
          {Object.entries(TYPES).map(([k, v]) => (
            <MenuItem key={k} value={k}>
              {v}
            </MenuItem>
          ))}
        </TextField>
        <TextField size="small" label="URL" value={url} sx={{ width: 320 }} onChange={(e) => setUrl(e.target.value)} />
        <TextField
          size="small"
          label="Signing secret (16+ characters)"
          type="password"
          value={secret}
          onChange={(e) => setSecret(e.target.value)}
        />
        <CommandButton
          label="Add webhook"
          disabled={!url || secret.length < 16}
          confirm={<>Send every alert of this type to {url}, signed with the secret (HMAC-SHA256)? The secret is not shown again.</>}
          run={() => api('POST', '/monitors/webhooks', { monitorType: hookType, url, secret })}
          done={() => {
            setSecret('');
            load();
          }}
        />
      </Box>
      <Grid
        name="Webhooks"
        head={['Alerts of', 'URL', 'State', 'Failing since', 'Disabled at', '']}
        empty="No webhook yet."
        rows={webhooks.map((w) => [
          TYPES[w.monitorType] ?? w.monitorType,
          w.url,
          w.state,
          <Time key="f" at={w.failingSince} />,
          <Time key="d" at={w.disabledAt} />,
          w.state === 'disabled' ? (
            <CommandButton
              key="e"
              label={`Enable webhook ${w.id}`}
              confirm="Deliver to this target again?"
              run={() => api('POST', `/monitors/webhooks/${w.id}/enable`)}
              done={load}
            />
          ) : null,
        ])}
      />
    </Box>
  );
};
