import { useEffect, useState } from 'react';
import { Box, Button, MenuItem, TextField as MuiTextField, Typography } from '@mui/material';
import {
  Confirm,
  Datagrid,
  NumberField,
  NumberInput,
  TextField,
  TextInput,
  Title,
  useListContext,
  useRecordContext,
} from 'react-admin';
import { api, ApiError, query } from '../api';
import { can } from '../authProvider';
import { useSettle } from '../refresh';
import { Allowed, ApiProblem, CommandButton, CommandForm, ConsoleList, useSession } from '../ui';

const FaqActions = () => {
  const faq = useRecordContext();
  const { refetch } = useListContext();
  const settle = useSettle(refetch);
  const me = useSession();
  if (!faq || !can(me, 'faq.edit')) return null;
  return (
    <Box onClick={(e) => e.stopPropagation()}>
      <CommandForm
        title={`Edit FAQ ${String(faq.id)}`}
        label="Save FAQ"
        onDone={settle}
        defaultValues={{ title: faq.title, text: faq.text, order: faq.order }}
        submit={(v) => api('PUT', '/faq', { id: faq.id, title: v.title, text: v.text, order: Number(v.order) })}
      >
        <TextInput source="title" fullWidth />
        <TextInput source="text" fullWidth multiline />
        <NumberInput source="order" label="Position (1 = first)" />
      </CommandForm>
      <CommandButton
        label="Delete FAQ"
        color="error"
        confirm={<>Delete “{String(faq.title)}”?</>}
        done={settle}
        run={() => api('DELETE', '/faq', { id: faq.id })}
      />
    </Box>
  );
};

const NewFaq = () => {
  const { refetch } = useListContext();
  const settle = useSettle(refetch);
  return (
    <Allowed permission="faq.edit">
      <CommandForm title="New FAQ" label="Create FAQ" onDone={settle} submit={(v) => api('POST', '/faq', { title: v.title, text: v.text })}>
        <TextInput source="title" fullWidth />
        <TextInput source="text" fullWidth multiline />
      </CommandForm>
    </Allowed>
  );
};

/** FAQ: create, edit, reorder (a new position shifts the others), delete. */
export const FaqList = () => (
  <ConsoleList pagination={false} exporter={false} title="FAQ" aside={<NewFaq />} sort={{ field: 'order', order: 'ASC' }}>
    <Datagrid bulkActionButtons={false} expand={<FaqActions />} rowClick="expand">
      <NumberField source="order" sortable={false} />
      <TextField source="title" sortable={false} />
      <TextField source="text" sortable={false} />
    </Datagrid>
  </ConsoleList>
);

const SECTIONS = ['COMMON', 'BATTLES', 'AFFILIATES', 'WITHDRAWALS'];

/** Site configuration per section (SuperAdmin): JSON sent as typed (decimals stay strings); a PUT replaces the whole section. */
export const ConfigPage = () => {
  const me = useSession();
  const [code, setCode] = useState('COMMON');
  const [text, setText] = useState('{}');
  const [error, setError] = useState<unknown>();
  const [saved, setSaved] = useState<string | undefined>();
  const [asking, setAsking] = useState(false);
  useEffect(() => {
    setSaved(undefined);
    setError(undefined);
  }, [code]);
  if (!can(me, 'superadmin'))
    return <ApiProblem error={new ApiError(403, { statusCode: 403, code: 'FORBIDDEN', message: 'SuperAdmin only' })} />;
  const save = async () => {
    setError(undefined);
    try {
      const config = JSON.parse(text) as unknown;
      const answer = await api<{ revision: number }>('PUT', `/config${query({ code })}`, { code: {}, config });
      setSaved(`Saved: revision ${answer.json.revision}`);
    } catch (e) {
      setError(e instanceof SyntaxError ? new Error(`Not JSON: ${e.message}`) : e);
    }
  };
  const details = error instanceof ApiError ? error.body.details : undefined;
  return (
    <Box sx={{ p: 2, maxWidth: 720 }}>
      <Title title="Site configuration" />
      <Typography variant="h5" component="h1">
        Site configuration
      </Typography>
      <MuiTextField select size="small" label="Section" value={code} onChange={(e) => setCode(e.target.value)} sx={{ my: 1, width: 220 }}>
        {SECTIONS.map((s) => (
          <MenuItem key={s} value={s}>
            {s}
          </MenuItem>
        ))}
      </MuiTextField>
      <MuiTextField
        label={`${code} configuration (JSON)`}
        value={text}
        onChange={(e) => setText(e.target.value)}
        fullWidth
        multiline
        minRows={8}
        error={Boolean(details?.length)}
        helperText={details?.map((d) => `${d.field}: ${d.message}`).join('; ') || 'e.g. {"enabled": true, "manualApprovalAboveUsd": "500"}'}
      />
      <Button variant="contained" sx={{ my: 1 }} onClick={() => setAsking(true)}>
        Save section
      </Button>
      <Confirm
        isOpen={asking}
        title={`Replace ${code}`}
        content={`Replace the whole ${code} section with this configuration?`}
        confirm="Replace"
        onConfirm={() => {
          setAsking(false);
          void save();
        }}
        onClose={() => setAsking(false)}
      />
      {saved ? <Typography role="status">{saved}</Typography> : null}
      {details?.length ? null : <ApiProblem error={error} />}
    </Box>
  );
};
